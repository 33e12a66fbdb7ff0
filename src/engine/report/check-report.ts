/**
 * Gathers what a check's report shows from the engine's store (its pages, the snapshots a diff
 * was made from, the screenshots kept before and now, recent checks) and renders it. One page
 * at a time: a screenshot comparison's pixels are let go before the next page's are decoded.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckRecord, PageResult } from '../../contract/checks.js';
import type { JsonFieldDiff } from '../../contract/diff.js';
import type { StoredMonitor } from '../monitors/monitor-store.js';
import type { CheckStore } from '../monitors/check-store.js';
import { diffJson } from '../diff/json-diff.js';
import { diffMarkdown } from '../diff/markdown-diff.js';
import { diffSegments, isMarkdownDiff } from '../diff/diff-html.js';
import {
  noiseSectionHtml,
  pageHtml,
  REPORTED_STATUSES,
  reportDocument,
  sectionHtml,
  type ReportImage,
  type ReportPage,
  type ReportScreenshots,
} from './render-report.js';
import { compareScreenshots, isJpeg } from './screenshot-diff.js';

/** Checks the report's chart shows: this one and those before it. */
export const HISTORY_CHECKS = 30;

export interface ReportSources {
  checks: Pick<CheckStore, 'list' | 'pages' | 'snapshotMarkdown' | 'previousScreenshot'>;
  /** The team's directory of kept screenshots. */
  keptDir: string;
  version: string;
  now(): Date;
}

const imageOf = (bytes: Buffer): ReportImage => ({ type: isJpeg(bytes) ? 'image/jpeg' : 'image/png', bytes });

/**
 * Pages whose screenshots a report embeds: each costs about 1.5 MB of the file and a fifth of a
 * second; beyond them a page says where its screenshot is kept.
 */
export const MAX_SCREENSHOT_PAGES = 50;

async function screenshotsOf(
  sources: ReportSources,
  monitorId: string,
  check: CheckRecord,
  page: PageResult,
  shown: { pages: number },
): Promise<ReportScreenshots | undefined> {
  if (!page.screenshot) return undefined;
  if (shown.pages >= MAX_SCREENSHOT_PAGES)
    return { note: `A report shows the screenshots of its first ${MAX_SCREENSHOT_PAGES} pages; webwatch monitor check gives where this page's is kept.` };
  shown.pages++;
  const read = (name: string) => readFile(join(sources.keptDir, name)).catch(() => undefined);
  const after = await read(page.screenshot);
  if (!after) return { note: 'The screenshot kept with this check is gone.' };
  const shots: ReportScreenshots = { after: imageOf(after) };
  if (page.status !== 'changed') return shots;
  const earlier = await sources.checks.previousScreenshot(monitorId, check.startedAt ?? check.createdAt, page.targetId, page.url);
  const before = earlier ? await read(earlier) : undefined;
  if (!before) return { ...shots, note: 'No earlier screenshot of this page is kept to compare with.' };
  shots.before = imageOf(before);
  try {
    const comparison = await compareScreenshots(before, after);
    shots.diff = { png: comparison.diffPng, changedShare: comparison.changedShare, width: comparison.width, height: comparison.height };
  } catch (error) {
    shots.note = (error as Error).message;
  }
  return shots;
}

async function reportPage(sources: ReportSources, monitorId: string, check: CheckRecord, result: PageResult, shown: { pages: number }): Promise<ReportPage> {
  const page: ReportPage = { result };
  const { diff } = result;
  if (isMarkdownDiff(diff)) {
    const current = result.currentScrapeId ? await sources.checks.snapshotMarkdown(result.currentScrapeId) : '';
    // A snapshot pruned since reads as empty: the diff's own lines still show, without the folds' text.
    page.segments = diffSegments(diff, current || undefined);
  } else if (diff) {
    page.fields = diff.json as JsonFieldDiff;
    // changeTracking in git-diff and json modes: the markdown's change too, from the two snapshots.
    if (diff.text && result.previousScrapeId && result.currentScrapeId) {
      const [before, after] = [await sources.checks.snapshotMarkdown(result.previousScrapeId), await sources.checks.snapshotMarkdown(result.currentScrapeId)];
      if (before || after) page.segments = diffSegments(diffMarkdown(before, after), after);
    }
  } else if (result.status === 'new' && result.snapshot?.json !== undefined && result.snapshot.json !== null) {
    page.fields = diffJson(undefined, result.snapshot.json);
  }
  page.screenshots = await screenshotsOf(sources, monitorId, check, result, shown);
  return page;
}

/** The checks the chart shows: up to HISTORY_CHECKS that finished, ending at this one. */
function historyAround(checks: readonly CheckRecord[], check: CheckRecord): CheckRecord[] {
  const finished = checks.filter((c) => c.finishedAt && c.status !== 'skipped_overlap');
  const at = Math.max(
    0,
    finished.findIndex((c) => c.id === check.id),
  );
  return finished.slice(at, at + HISTORY_CHECKS);
}

/** Page results read from the store at a time: a large check is never held whole. */
const PAGES_AT_ONCE = 50;

/**
 * The report of a check, as pieces of HTML to write in order. Each page is rendered as soon as its
 * parts are read and only its HTML is kept, a batch of page results at a time, so memory holds
 * the report's text and one batch.
 */
export async function checkReportHtml(sources: ReportSources, monitor: StoredMonitor, check: CheckRecord): Promise<string[]> {
  const sections: string[] = [];
  const shown = { pages: 0 };
  for (const status of REPORTED_STATUSES) {
    const pages: string[] = [];
    for (let offset = 0; ; offset += PAGES_AT_ONCE) {
      const batch = await sources.checks.pages(check.id, status, { offset, limit: PAGES_AT_ONCE });
      for (const result of batch) pages.push(pageHtml(await reportPage(sources, monitor.id, check, result, shown)));
      if (batch.length < PAGES_AT_ONCE) break;
    }
    sections.push(...sectionHtml(status, pages));
  }
  // Same pages that differed in volatile parts only, with their reason and raw diff (no current text is kept of them).
  const noisy: string[] = [];
  for (let offset = 0; ; offset += PAGES_AT_ONCE) {
    const batch = await sources.checks.pages(check.id, 'same', { offset, limit: PAGES_AT_ONCE });
    for (const result of batch) if (result.noise) noisy.push(pageHtml({ result, segments: diffSegments(result.noise.diff) }));
    if (batch.length < PAGES_AT_ONCE) break;
  }
  sections.push(...noiseSectionHtml(noisy));
  return reportDocument(
    {
      monitor: { id: monitor.id, name: monitor.definition.name, goal: monitor.definition.goal },
      check,
      history: historyAround(await sources.checks.list(monitor.id), check),
      generatedAt: sources.now().toISOString(),
      version: sources.version,
    },
    sections,
  );
}
