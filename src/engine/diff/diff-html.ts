/**
 * A page's change for people to look at: the check's stored diff turned into stretches
 * (unchanged, changed, folded) and the changed stretches marked word by word, as HTML. The
 * report and the e-mail both show diffs this way; every piece of page text is escaped, so a page
 * holding `<script>` or `onerror=` shows it as text.
 */
import { createRequire } from 'node:module';
import type { JsonPageDiff } from '../../contract/checks.js';
import type { JsonFieldDiff, PageDiff } from '../../contract/diff.js';

let diffLibrary: typeof import('diff') | undefined;
const diffModule = () => (diffLibrary ??= createRequire(import.meta.url)('diff') as typeof import('diff'));

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A link only for http(s): a page's `javascript:` or `data:` URL is shown as text. */
export function linkHtml(url: string): string {
  return /^https?:\/\//i.test(url) ? `<a href="${escapeHtml(url)}" rel="noreferrer noopener">${escapeHtml(url)}</a>` : escapeHtml(url);
}

export type DiffSegment =
  | { kind: 'same'; lines: string[] }
  /** Unchanged lines the diff did not show: their text when the current page is known, else only how many. */
  | { kind: 'fold'; count: number; lines: string[] | null }
  | { kind: 'change'; removed: string[]; added: string[] };

/** Unchanged stretches longer than this are folded, keeping the diff's context around changes. */
const FOLD_AT = 7;

/**
 * The stretches of a page's diff, in page order. `current` (the page's markdown this time), when
 * known, fills the stretches between the diff's chunks so that a reader can unfold them.
 */
export function diffSegments(diff: PageDiff, current?: string): DiffSegment[] {
  const file = diff.json.files[0];
  if (!file) return [];
  const currentLines = current === undefined ? undefined : current.replace(/\n$/, '').split('\n');
  const segments: DiffSegment[] = [];
  const fold = (from: number, to: number) => {
    // Lines from..to (1-based, inclusive) of the current page.
    if (to < from) return;
    segments.push({ kind: 'fold', count: to - from + 1, lines: currentLines ? currentLines.slice(from - 1, to) : null });
  };
  let nextNew = 1;
  for (const chunk of file.chunks) {
    fold(nextNew, chunk.newStart - 1);
    let removed: string[] = [];
    let added: string[] = [];
    const flush = () => {
      if (removed.length || added.length) segments.push({ kind: 'change', removed, added });
      removed = [];
      added = [];
    };
    for (const change of chunk.changes) {
      if (change.type === 'del') removed.push(change.content);
      else if (change.type === 'add') added.push(change.content);
      else {
        flush();
        const last = segments.at(-1);
        if (last?.kind === 'same') last.lines.push(change.content);
        else segments.push({ kind: 'same', lines: [change.content] });
      }
    }
    flush();
    // An empty side of a chunk starts one line early (`@@ -0,0 +1,3 @@`).
    nextNew = chunk.newLines === 0 ? chunk.newStart + 1 : chunk.newStart + chunk.newLines;
  }
  if (currentLines) fold(nextNew, currentLines.length);
  return segments.flatMap((segment) => (segment.kind === 'same' && segment.lines.length > FOLD_AT ? splitLong(segment.lines) : [segment]));
}

/** A long unchanged stretch (the diff's context can merge) keeps three lines each side, the rest folded. */
function splitLong(lines: string[]): DiffSegment[] {
  return [
    { kind: 'same', lines: lines.slice(0, 3) },
    { kind: 'fold', count: lines.length - 6, lines: lines.slice(3, -3) },
    { kind: 'same', lines: lines.slice(-3) },
  ];
}

export interface Piece {
  text: string;
  marked: boolean;
}

/**
 * Beyond this many edits between a changed stretch's two sides, the word diff stops (its cost
 * grows with size times edits) and the whole stretch is marked, as a line diff would.
 */
const MAX_WORD_EDITS = 400;

/** The two sides of a changed stretch, the words that differ marked on each. */
export function markWords(removed: readonly string[], added: readonly string[]): { before: Piece[]; after: Piece[] } {
  const before = removed.join('\n');
  const after = added.join('\n');
  if (!before || !after) return { before: before ? [{ text: before, marked: true }] : [], after: after ? [{ text: after, marked: true }] : [] };
  const parts = diffModule().diffWordsWithSpace(before, after, { maxEditLength: MAX_WORD_EDITS });
  if (!parts) return { before: [{ text: before, marked: true }], after: [{ text: after, marked: true }] };
  return {
    before: parts.filter((part) => !part.added).map((part) => ({ text: part.value, marked: Boolean(part.removed) })),
    after: parts.filter((part) => !part.removed).map((part) => ({ text: part.value, marked: Boolean(part.added) })),
  };
}

/**
 * How the marks look: classes for the report (its style sheet colours them), inline styles for
 * e-mail (mail readers drop style sheets).
 */
export type MarkStyle = 'classes' | 'inline';

const INLINE = {
  table: 'border-collapse:collapse;width:100%;font:13px/1.45 ui-monospace,Menlo,Consolas,monospace',
  cell: 'vertical-align:top;padding:2px 6px;white-space:pre-wrap;word-break:break-word;width:50%',
  before: 'background:#ffeef0',
  after: 'background:#e6ffed',
  del: 'background:#fdb8c0;text-decoration:line-through',
  ins: 'background:#acf2bd;text-decoration:none',
  fold: 'color:#6a737d;padding:2px 6px;font-style:italic',
  fields: 'border-collapse:collapse;font:13px/1.45 ui-monospace,Menlo,Consolas,monospace',
  field: 'border:1px solid #d0d7de;padding:2px 6px;vertical-align:top;white-space:pre-wrap',
};

const piecesHtml = (pieces: readonly Piece[], tag: 'del' | 'ins', style: MarkStyle) =>
  pieces
    .map((piece) =>
      piece.marked && piece.text.trim()
        ? `<${tag}${style === 'inline' ? ` style="${INLINE[tag]}"` : ''}>${escapeHtml(piece.text)}</${tag}>`
        : escapeHtml(piece.text),
    )
    .join('');

/**
 * The stretches side by side, the previous page left and the current right; unchanged text spans
 * both, and a folded stretch is a `<details>` a reader opens (no script needed).
 */
export function diffTableHtml(segments: readonly DiffSegment[], style: MarkStyle): string {
  const attr = (name: keyof typeof INLINE, className: string) => (style === 'inline' ? ` style="${INLINE[name]}"` : ` class="${className}"`);
  const rows = segments.map((segment) => {
    if (segment.kind === 'same') return `<tr><td colspan="2"${attr('cell', 'same')}>${escapeHtml(segment.lines.join('\n'))}</td></tr>`;
    if (segment.kind === 'fold') {
      const label = `${segment.count} unchanged line${segment.count === 1 ? '' : 's'}`;
      // E-mail shows only how many: a mail reader may not fold.
      const body =
        segment.lines && style === 'classes'
          ? `<details><summary>${label}</summary><div class="same">${escapeHtml(segment.lines.join('\n'))}</div></details>`
          : `⋯ ${label}`;
      return `<tr><td colspan="2"${attr('fold', 'fold')}>${body}</td></tr>`;
    }
    const { before, after } = markWords(segment.removed, segment.added);
    // A side with nothing (a paragraph added or removed whole) stays blank rather than coloured.
    const cell = (side: 'before' | 'after') => {
      const empty = (side === 'before' ? before : after).length === 0;
      return style === 'inline' ? ` style="${INLINE.cell}${empty ? '' : `;${INLINE[side]}`}"` : ` class="${empty ? 'empty' : side}"`;
    };
    return `<tr class="change"><td${cell('before')}>${piecesHtml(before, 'del', style)}</td><td${cell('after')}>${piecesHtml(after, 'ins', style)}</td></tr>`;
  });
  return `<table${attr('table', 'diff')}><thead><tr><th>before</th><th>after</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const shownValue = (value: unknown) => (value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value, null, 1));

/** Extracted JSON's changed fields as a table: the path, the value before and after. */
export function fieldsTableHtml(fields: JsonFieldDiff, style: MarkStyle): string {
  const cell = (side?: 'before' | 'after') =>
    style === 'inline' ? ` style="${INLINE.field}${side ? `;${INLINE[side]}` : ''}"` : side ? ` class="${side}"` : '';
  const rows = Object.entries(fields).map(
    ([path, { previous, current }]) =>
      `<tr><td${cell()}><code>${escapeHtml(path)}</code></td><td${cell('before')}><code>${escapeHtml(shownValue(previous))}</code></td><td${cell('after')}><code>${escapeHtml(shownValue(current))}</code></td></tr>`,
  );
  return `<table${style === 'inline' ? ` style="${INLINE.fields}"` : ' class="fields"'}><thead><tr><th>field</th><th>before</th><th>after</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Whether a page's stored diff is the markdown's (files and chunks), not extracted JSON's fields. */
export const isMarkdownDiff = (diff: PageDiff | JsonPageDiff | null): diff is PageDiff => Boolean(diff && 'files' in (diff.json as object));

/** A page's stored diff as HTML, whichever kind it is: the markdown's stretches, or the JSON fields. */
export function changeHtml(diff: PageDiff | JsonPageDiff, style: MarkStyle, current?: string): string {
  if (isMarkdownDiff(diff)) return diffTableHtml(diffSegments(diff, current), style);
  return fieldsTableHtml(diff.json as JsonFieldDiff, style);
}
