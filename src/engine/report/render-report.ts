/**
 * A check as one self-contained HTML page: its summary, the recent history as an SVG chart, each
 * changed page side by side with changed words marked, screenshots before and after with the
 * changed pixels, JSON fields old and new, and the new, removed and failed pages. Nothing in it
 * asks the network for anything: the style sheet is inline, images are `data:` URLs, there is
 * no script, and a Content-Security-Policy allows nothing else. Page text is always escaped.
 */
import { createHash } from 'node:crypto';
import type { CheckRecord, Judgment, PageResult } from '../../contract/checks.js';
import type { JsonFieldDiff } from '../../contract/diff.js';
import { diffTableHtml, escapeHtml, fieldsTableHtml, linkHtml, type DiffSegment } from '../diff/diff-html.js';

export interface ReportImage {
  type: 'image/png' | 'image/jpeg';
  bytes: Buffer;
}

export interface ReportScreenshots {
  before?: ReportImage;
  after?: ReportImage;
  /** The changed pixels marked, with their share of the page. */
  diff?: { png: Buffer; changedShare: number; width: number; height: number };
  /** Why there is no comparison (no earlier screenshot, an image too large to compare). */
  note?: string;
}

export interface ReportPage {
  result: PageResult;
  /** The diff's stretches, for a page whose markdown changed. */
  segments?: DiffSegment[];
  /** The JSON fields that changed, for a target that extracts JSON. */
  fields?: JsonFieldDiff;
  screenshots?: ReportScreenshots;
}

export interface ReportData {
  monitor: { id: string; name: string; goal: string | null };
  check: CheckRecord;
  /** The pages that were not the same (same pages are only counted). */
  pages: ReportPage[];
  /** Recent checks, newest first, this one among them. */
  history: CheckRecord[];
  generatedAt: string;
  version: string;
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1f2328;--muted:#656d76;--line:#d0d7de;--bg:#fff;--del:#ffebe9;--delw:#ffb3ad;--ins:#dafbe1;--insw:#8ce19f;--card:#f6f8fa}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#8d96a0;--line:#30363d;--bg:#0d1117;--del:#3c1618;--delw:#8e2c2c;--ins:#12261e;--insw:#2b6a3a;--card:#161b22}}
*{box-sizing:border-box}body{margin:0 auto;max-width:1200px;padding:24px;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:0;word-break:break-all}
.meta,.muted{color:var(--muted)}.counts{display:flex;gap:8px;flex-wrap:wrap;margin:12px 0}.count{padding:2px 10px;border-radius:12px;background:var(--card);border:1px solid var(--line)}
.count.changed{border-color:#bf8700}.count.new{border-color:#1a7f37}.count.removed{border-color:#cf222e}.count.error{border-color:#8250df}
section.page{border:1px solid var(--line);border-radius:8px;padding:12px 16px;margin:16px 0;background:var(--bg)}
.status{display:inline-block;font-size:12px;font-weight:600;text-transform:uppercase;padding:0 6px;border-radius:4px;margin-right:8px;background:var(--card);border:1px solid var(--line)}
.verdict{margin:8px 0;padding:8px 12px;border-left:4px solid var(--line);background:var(--card)}.verdict.yes{border-color:#1a7f37}.verdict.no{border-color:var(--muted)}
.verdict ul{margin:4px 0 0;padding-left:20px}
table.diff{border-collapse:collapse;width:100%;table-layout:fixed;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;margin-top:8px}
table.diff th{text-align:left;font:12px system-ui,sans-serif;color:var(--muted);padding:2px 6px}
table.diff td{vertical-align:top;padding:2px 6px;white-space:pre-wrap;word-break:break-word;border-top:1px solid var(--line)}
td.before{background:var(--del)}td.after{background:var(--ins)}del{background:var(--delw);text-decoration:line-through}ins{background:var(--insw);text-decoration:none}
td.fold{color:var(--muted);font-style:italic}td.fold details div{font-style:normal;color:var(--fg);white-space:pre-wrap}summary{cursor:pointer}
table.fields,table.pages{border-collapse:collapse;width:100%;margin-top:8px;font-size:14px}table.fields td,table.fields th,table.pages td,table.pages th{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top;word-break:break-word}
table.fields code{white-space:pre-wrap}.shots{display:grid;grid-template-columns:repeat(3,1fr);gap:8px;margin-top:8px}.shots figure{margin:0}.shots img{width:100%;border:1px solid var(--line)}
.shots figcaption{font-size:12px;color:var(--muted)}svg.history{width:100%;max-width:720px;height:auto}footer{margin-top:32px;font-size:12px;color:var(--muted)}
`;

/** The policy: nothing loads but this style sheet (by its hash) and the embedded images. */
export function contentSecurityPolicy(style = STYLE): string {
  const hash = createHash('sha256').update(style).digest('base64');
  return `default-src 'none'; img-src data:; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'`;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

const dataUrl = (image: ReportImage) => `data:${image.type};base64,${image.bytes.toString('base64')}`;

function verdictHtml(judgment: Judgment | null): string {
  if (!judgment) return '';
  const changes = judgment.meaningfulChanges.map(
    (change) =>
      `<li>${escapeHtml(change.type)}: ${change.before !== null ? `<del>${escapeHtml(change.before)}</del> ` : ''}${change.after !== null ? `<ins>${escapeHtml(change.after)}</ins> ` : ''}<span class="muted">${escapeHtml(change.reason)}</span></li>`,
  );
  return `<div class="verdict ${judgment.meaningful ? 'yes' : 'no'}"><strong>${judgment.meaningful ? 'Meaningful' : 'Not meaningful'}</strong> (${escapeHtml(judgment.confidence)} confidence): ${escapeHtml(judgment.reason)}${changes.length ? `<ul>${changes.join('')}</ul>` : ''}</div>`;
}

function screenshotsHtml(shots: ReportScreenshots): string {
  const figure = (caption: string, src: string) =>
    `<figure><img alt="${escapeHtml(caption)}" src="${src}"><figcaption>${escapeHtml(caption)}</figcaption></figure>`;
  const figures = [
    shots.before && figure('before', dataUrl(shots.before)),
    shots.after && figure('after', dataUrl(shots.after)),
    shots.diff &&
      figure(
        `changed pixels: ${(shots.diff.changedShare * 100).toFixed(2)} % of ${shots.diff.width} x ${shots.diff.height}`,
        dataUrl({ type: 'image/png', bytes: shots.diff.png }),
      ),
  ].filter(Boolean);
  return `${figures.length ? `<div class="shots">${figures.join('')}</div>` : ''}${shots.note ? `<p class="muted">${escapeHtml(shots.note)}</p>` : ''}`;
}

export function pageHtml(page: ReportPage): string {
  const { result } = page;
  const code = result.statusCode === null ? '' : ` <span class="muted">HTTP ${result.statusCode}</span>`;
  const parts = [`<h3><span class="status">${result.status}</span>${linkHtml(result.url)}${code}</h3>`, verdictHtml(result.judgment)];
  if (result.error) parts.push(`<p>Error: ${escapeHtml(result.error)}</p>`);
  if (result.noise) parts.push(`<p class="muted">${escapeHtml(result.noise.reason)}</p>`);
  if (page.fields && Object.keys(page.fields).length) parts.push(fieldsTableHtml(page.fields, 'classes'));
  if (page.segments?.length) parts.push(diffTableHtml(page.segments, 'classes'));
  if (page.screenshots) parts.push(screenshotsHtml(page.screenshots));
  return `<section class="page ${result.status}">${parts.join('')}</section>`;
}

/** Recent checks as stacked bars (changed, new, removed, errors), oldest left, this check outlined. */
export function historySvg(history: readonly CheckRecord[], current: string): string {
  const checks = [...history].reverse();
  if (checks.length === 0) return '';
  const width = 720;
  const height = 120;
  const top = 10;
  const base = height - 20;
  const slot = width / checks.length;
  const bar = Math.max(2, Math.min(24, slot * 0.7));
  const total = (c: CheckRecord) => c.summary.changed + c.summary.new + c.summary.removed + c.summary.error;
  const most = Math.max(1, ...checks.map(total));
  const colours = { changed: '#bf8700', new: '#1a7f37', removed: '#cf222e', error: '#8250df' } as const;
  const bars = checks.map((check, index) => {
    const x = index * slot + (slot - bar) / 2;
    let y = base;
    const rects = (Object.keys(colours) as (keyof typeof colours)[])
      .map((kind) => {
        const h = (check.summary[kind] / most) * (base - top);
        if (h <= 0) return '';
        y -= h;
        return `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${bar.toFixed(1)}" height="${h.toFixed(1)}" fill="${colours[kind]}"/>`;
      })
      .join('');
    const label = `${check.startedAt ?? check.createdAt}: ${check.summary.changed} changed, ${check.summary.new} new, ${check.summary.removed} removed, ${plural(check.summary.error, 'error')} (${check.status})`;
    const outline =
      check.id === current
        ? `<rect x="${(x - 2).toFixed(1)}" y="${top - 4}" width="${(bar + 4).toFixed(1)}" height="${base - top + 6}" fill="none" stroke="currentColor" stroke-dasharray="3 2"/>`
        : '';
    return `<g><title>${escapeHtml(label)}</title><rect x="${(index * slot).toFixed(1)}" y="${top}" width="${slot.toFixed(1)}" height="${base - top}" fill="transparent"/>${rects}${outline}</g>`;
  });
  const first = checks[0]!.startedAt ?? checks[0]!.createdAt;
  const last = checks.at(-1)!.startedAt ?? checks.at(-1)!.createdAt;
  return `<svg class="history" viewBox="0 0 ${width} ${height}" role="img" aria-label="changes in the last ${plural(checks.length, 'check')}"><line x1="0" y1="${base}" x2="${width}" y2="${base}" stroke="currentColor" stroke-opacity="0.3"/>${bars.join('')}<text x="0" y="${height - 4}" font-size="11" fill="currentColor">${escapeHtml(first.slice(0, 16).replace('T', ' '))}</text><text x="${width}" y="${height - 4}" font-size="11" fill="currentColor" text-anchor="end">${escapeHtml(last.slice(0, 16).replace('T', ' '))}</text><text x="0" y="${top}" font-size="11" fill="currentColor">${most}</text></svg>`;
}

/** The statuses a report shows, in its order; same pages are only counted. */
export const REPORTED_STATUSES = ['changed', 'new', 'removed', 'error'] as const;
export type ReportedStatus = (typeof REPORTED_STATUSES)[number];

const SECTION_TITLES: Record<ReportedStatus, string> = { changed: 'Changed pages', new: 'New pages', removed: 'Removed pages', error: 'Errors' };

/** The pages of one status under their heading, from each page's HTML (pageHtml); nothing without pages. */
export const sectionHtml = (status: ReportedStatus, pages: readonly string[]): string[] =>
  pages.length ? [`<h2>${SECTION_TITLES[status]} (${pages.length})</h2>`, ...pages] : [];

/** Same pages whose text differed only in volatile parts, last: there to look at, not news. */
export const noiseSectionHtml = (pages: readonly string[]): string[] =>
  pages.length ? [`<h2>Same pages, volatile parts only (${pages.length})</h2>`, ...pages] : [];

export function renderReport(data: ReportData): string {
  const sections = REPORTED_STATUSES.flatMap((status) => sectionHtml(status, data.pages.filter((page) => page.result.status === status).map(pageHtml)));
  sections.push(...noiseSectionHtml(data.pages.filter((page) => page.result.status === 'same' && page.result.noise).map(pageHtml)));
  return reportDocument(data, sections).join('');
}

/**
 * The page around its sections (the check, its counts and history, and the policy), as the
 * pieces to write one after another: a report with screenshots runs to tens of megabytes, which
 * are never joined into one string.
 */
export function reportDocument(data: Omit<ReportData, 'pages'>, sections: readonly string[]): string[] {
  const { check, monitor } = data;
  const s = check.summary;
  const counts = [
    ...REPORTED_STATUSES.map((kind) => `<span class="count ${kind}">${s[kind]} ${kind === 'error' ? (s.error === 1 ? 'error' : 'errors') : kind}</span>`),
    `<span class="count">${s.same} same</span>`,
    `<span class="count">${plural(s.totalPages, 'page')}</span>`,
  ].join('');
  const nothing = sections.length ? '' : '<p>Nothing changed in this check.</p>';
  const title = `${monitor.name}: check ${check.id}`;
  const head = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy()}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style></head>
<body>
<header><h1>${escapeHtml(monitor.name)}</h1>
<div class="meta">check <code>${escapeHtml(check.id)}</code>, ${escapeHtml(check.status)}, ${escapeHtml(check.trigger)}; started ${escapeHtml(check.startedAt ?? '')}${check.finishedAt ? `, finished ${escapeHtml(check.finishedAt)}` : ''}</div>
${monitor.goal ? `<div class="meta">goal: ${escapeHtml(monitor.goal)}</div>` : ''}
${check.error ? `<p>Error: ${escapeHtml(check.error)}</p>` : ''}
<div class="counts">${counts}</div></header>
<h2>History</h2>${historySvg(data.history, check.id)}
${nothing}`;
  return [
    head,
    ...sections,
    `<footer>webwatch ${escapeHtml(data.version)}, ${escapeHtml(data.generatedAt)}</footer>
</body></html>
`,
  ];
}
