/**
 * One check of a monitor: every target's pages fetched (with bounded concurrency, through the
 * same scraper and crawler as `scrape` and `crawl`), each compared with the page's last
 * snapshot: new, same (whitespace aside), changed (with diffs), removed (gone from a crawl, or
 * HTTP 404/410) or error. A removal is a change, reported once: its snapshot records the page
 * as gone, so a page still gone is same and a page that comes back is new. Results and the
 * summary are written in one transaction at the end, so an interrupted check leaves nothing
 * half-written.
 */
import { inParallel } from '../../lib/in-parallel.js';
import type { MonitorSummary, Target } from '../../spec/monitor.js';
import { contentHash, diffMarkdown } from '../diff/markdown-diff.js';
import { pageText, splitPageText } from '../diff/page-text.js';
import { comparePages, ROTATION_CHECKS, settledByHistory } from '../diff/reader-comparison.js';
import { headingsOf } from '../scrape/document.js';
import { diffJson, diffText } from '../diff/json-diff.js';
import { extractsJson, trackingSettings } from '../extract/needs.js';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lexicalJudge, type Judge } from '../judge/judge.js';
import { searchTarget, type SearchProvider } from '../search/search.js';
import { emailEntries, webhookEntries } from '../notify/outbox.js';
import { scrapeUnlessUnchanged, type FingerprintedScrape, type ScrapeContext } from '../scrape/scrape.js';
import { checkConversion, type CheckConversion } from '../scrape/convert-pool.js';
import type { CheckRecord, CheckStore, ClaimedCheck, FingerprintUpdate, LastSnapshot, PageResult, Snapshot } from './check-store.js';
import type { StoredMonitor } from './monitor-store.js';
import { compareText } from '../../lib/compare-text.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { refusePrivateTargets } from '../fetch/network-policy.js';

/** Why a page of a monitor saved under the rule is refused by a process that allows private addresses. */
export const SAVED_RULE_HINT =
  'targets on private, loopback and link-local addresses are refused: this monitor was saved under that rule (by serve or mcp --http), and its checks keep it until the command line saves it changed, or deleted and applied again';

/**
 * The stricter of this process's private-address rule and the one the monitor was saved under:
 * a monitor a client of serve or of `mcp --http` saved is checked as they would check it, also
 * by the command line's `monitor run` and serve's scheduler of the command line's monitors.
 */
function underSavedRule(context: CheckContext, monitor: StoredMonitor): CheckContext {
  if (monitor.privateTargetsAllowed || context.scrape.publicAddressesOnly) return context;
  const own = context.scrape.checkUrl;
  const checkUrl = async (url: URL) => {
    try {
      await refusePrivateTargets(url);
    } catch (error) {
      const details = error instanceof WebwatchError && error.details && typeof error.details === 'object' ? error.details : {};
      throw new WebwatchError((error as Error).message, { status: 403, details: { ...details, reason: SAVED_RULE_HINT } });
    }
    await own?.(url);
  };
  return { ...context, scrape: { ...context.scrape, checkUrl, publicAddressesOnly: true } };
}

/** Requests of a check in flight at once: polite to a site whose pages a target lists. */
export const CHECK_CONCURRENCY = 4;
/** Fetched pages that may wait for their conversion while the next ones are fetched. */
const CONVERSIONS_AHEAD = 8;
export const SEARCH_UNAVAILABLE = 'search targets need a search provider: set search in the config (a SearXNG server, or a v2 API)';

export interface CheckContext {
  checks: CheckStore;
  scrape: ScrapeContext;
  now(): Date;
  /** Judges new and changed pages of monitors with a goal; the lexical judge when omitted. */
  judge?: Judge;
  /** Page notifications only for pages judged meaningful (unjudged pages still notify). */
  onlyMeaningful?: boolean;
  /** Answers search targets' queries; without one, search targets are errors. */
  search?: SearchProvider;
  /** Worker threads that convert the pages of large checks; by default from the cores (none on two). */
  conversionThreads?: number;
}

const JUDGE_CONCURRENCY = 4;

/** Each new and changed page judged against the goal, when the monitor judges. */
async function judgePages(context: CheckContext, monitor: StoredMonitor, pages: PageResult[], pending: Pending): Promise<void> {
  const { goal, judgeEnabled } = monitor.definition;
  if (!judgeEnabled || !goal) return;
  const judge = context.judge ?? lexicalJudge;
  const judged = pages.filter((page) => page.status === 'new' || page.status === 'changed');
  await inParallel(judged, JUDGE_CONCURRENCY, async (page) => {
    const content =
      page.status === 'changed'
        ? page.diff
          ? diffText(page.diff)
          : ''
        : (pending.snapshots.find((s) => s.url === page.url && s.targetId === page.targetId)?.markdown ?? '');
    page.judgment = await judge({ goal, url: page.url, status: page.status as 'new' | 'changed', content });
  });
}

/** What the check writes at its end, with its results. */
interface Pending {
  snapshots: Snapshot[];
  fingerprints: FingerprintUpdate[];
  /** Credits of fetched pages beyond 1 each (a model's extraction, threat protection). */
  extraCredits: number;
}

type Outcome = FingerprintedScrape | { error: unknown };

/** A page's error; a refusal (403) says why, as its reason: a bare "Forbidden" tells the reader nothing. */
const errorMessage = (error: unknown) => {
  if (!(error instanceof Error)) return String(error);
  const reason = error instanceof WebwatchError && error.status === 403 ? (error.details as { reason?: unknown } | undefined)?.reason : undefined;
  return typeof reason === 'string' ? `${error.message}: ${reason}` : error.message;
};

async function pageResult(
  context: CheckContext,
  pending: Pending,
  monitor: StoredMonitor,
  target: Target,
  url: string,
  previous: LastSnapshot | undefined,
  outcome: Outcome,
): Promise<PageResult> {
  const targetId = target.id!;
  const base = { url, targetId, previousScrapeId: previous?.scrapeId ?? null, judgment: null, diff: null, error: null };
  if ('error' in outcome) return { ...base, status: 'error', statusCode: null, currentScrapeId: null, error: errorMessage(outcome.error) };
  // The same response as last time: the same content, without converting it again (nor asking the model).
  if ('unchanged' in outcome) {
    const same: PageResult = { ...base, status: 'same', statusCode: outcome.unchanged.statusCode, currentScrapeId: outcome.unchanged.scrapeId };
    return target.type !== 'search' && extractsJson(target.scrapeOptions ?? {}) && previous
      ? { ...same, snapshot: { json: await context.checks.snapshotJson(previous.scrapeId) } }
      : same;
  }
  const { document, fingerprint } = outcome;
  pending.extraCredits += Math.max(0, (document.metadata.creditsUsed ?? 1) - 1);
  const statusCode = document.metadata.statusCode;
  const currentScrapeId = document.metadata.scrapeId;
  if (statusCode === 404 || statusCode === 410) {
    if (previous?.gone) {
      if (fingerprint && fingerprint !== previous.fingerprint) pending.fingerprints.push({ scrapeId: previous.scrapeId, fingerprint });
      return { ...base, status: 'same', statusCode, currentScrapeId };
    }
    pending.snapshots.push(goneSnapshot(targetId, url, currentScrapeId, fingerprint));
    // Only a page seen before can be removed; one that never existed is a broken address, said once.
    if (!previous)
      return {
        ...base,
        status: 'error',
        statusCode,
        currentScrapeId,
        error: `HTTP ${statusCode}: the page does not exist (first check of this address, so not counted as removed)`,
      };
    return { ...base, status: 'removed', statusCode, currentScrapeId };
  }
  const markdown = pageText(await comparedText(document), headingsOf(document));
  const hash = contentHash(markdown);
  if (target.type !== 'search' && extractsJson(target.scrapeOptions ?? {})) {
    const json = 'trackedJson' in outcome ? outcome.trackedJson : document.json;
    return jsonPageResult(context, pending, target, { ...base, statusCode, currentScrapeId }, previous, { markdown, hash, json, fingerprint });
  }
  const snapshot: Snapshot = { targetId, url, scrapeId: currentScrapeId, markdown, fingerprint, contentHash: hash };
  // A page back after being gone is new: what it was before it went is no longer the reference.
  if (previous?.gone) {
    pending.snapshots.push(snapshot);
    return { ...base, status: 'new', statusCode, currentScrapeId, previousScrapeId: null, ...screenshotOf(document) };
  }
  if (!previous) {
    pending.snapshots.push(snapshot);
    return { ...base, status: 'new', statusCode, currentScrapeId, ...screenshotOf(document) };
  }
  // A new response with the same content (a changing nonce, say): remember it, so that next time it counts as unchanged.
  const learnFingerprint = () => {
    if (fingerprint && fingerprint !== previous.fingerprint) pending.fingerprints.push({ scrapeId: previous.scrapeId, fingerprint });
  };
  if (previous.contentHash === hash) {
    learnFingerprint();
    return { ...base, status: 'same', statusCode, currentScrapeId };
  }
  const before = await context.checks.snapshotMarkdown(previous.scrapeId);
  let comparison = comparePages(before, markdown, document.metadata.language);
  // Boxes of links or images replaced in place: rotating, when they changed at the page's last checks too.
  if (comparison.unsettled) comparison = settledByHistory(comparison, await context.checks.recentDiffs(monitor.id, targetId, url, ROTATION_CHECKS));
  // Against a text kept before checks kept headings, diffs leave them out too: they are not what changed.
  const current = splitPageText(markdown);
  const keptWithout = current.headings !== undefined && splitPageText(before).headings === undefined;
  const shown = keptWithout ? current.body : markdown;
  if (!comparison.changed) {
    // Such a text is replaced by this one as the reference, which carries them.
    if (keptWithout) pending.snapshots.push(snapshot);
    else learnFingerprint();
    const noise = comparison.noise && { reason: comparison.noise.reason, parts: comparison.noise.parts, diff: diffMarkdown(before, shown) };
    return { ...base, status: 'same', statusCode, currentScrapeId, ...(noise && { noise }) };
  }
  pending.snapshots.push(snapshot);
  return { ...base, status: 'changed', statusCode, currentScrapeId, diff: diffMarkdown(before, shown), ...screenshotOf(document) };
}

/**
 * What a check compares and keeps of a page: its markdown, and a line for each video or audio
 * file the scrape kept, with the file's SHA-256, so that media that changed makes the page
 * `changed` (its diff shows the line) and the same media `same`.
 */
async function comparedText(document: { markdown?: string; video?: string; audio?: string }): Promise<string> {
  const lines: string[] = [];
  for (const format of ['video', 'audio'] as const) {
    const file = document[format];
    if (!file?.startsWith('file:')) continue;
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(fileURLToPath(file))) hash.update(chunk as Buffer);
    lines.push(`${format}: sha256 ${hash.digest('hex')}`);
  }
  return [document.markdown ?? '', ...lines].filter(Boolean).join('\n\n');
}

/** The screenshot of a scraped page: the screenshot format's, else the last screenshot action's. */
function screenshotOf(document: { screenshot?: string; actions?: { screenshots?: string[] } }): { screenshot?: string } {
  const screenshot = document.screenshot ?? document.actions?.screenshots?.at(-1);
  return screenshot ? { screenshot } : {};
}

/**
 * The screenshots of new and changed pages kept with the check (their file names); any other
 * screenshot, or one that cannot be kept, is left to the 24 h pruning of artifacts.
 */
async function keepScreenshots(context: CheckContext, pages: PageResult[]): Promise<void> {
  const directory = context.scrape.browser?.artifactsDir;
  const { keepArtifact } = await import('../browser/artifacts.js');
  for (const page of pages) {
    if (!page.screenshot) continue;
    const kept = directory ? await keepArtifact(page.screenshot, directory).catch(() => undefined) : undefined;
    if (kept) page.screenshot = kept;
    else delete page.screenshot;
  }
}

/**
 * A page of a target that extracts JSON: its extracted JSON decides, field by field. The same
 * JSON is `same` however the markdown changed; a changed one carries `{json}` of the changed
 * leaves, and the markdown's diff as `text` too when changeTracking also asks for git-diff.
 */
async function jsonPageResult(
  context: CheckContext,
  pending: Pending,
  target: Exclude<Target, { type: 'search' }>,
  base: Omit<PageResult, 'status'>,
  previous: LastSnapshot | undefined,
  current: { markdown: string; hash: string; json: unknown; fingerprint: string | null },
): Promise<PageResult> {
  const json = current.json ?? null;
  const snapshot: Snapshot = {
    targetId: base.targetId,
    url: base.url,
    scrapeId: base.currentScrapeId!,
    markdown: current.markdown,
    fingerprint: current.fingerprint,
    contentHash: current.hash,
    json,
  };
  const result = { ...base, snapshot: { json } };
  if (!previous || previous.gone) {
    pending.snapshots.push(snapshot);
    return { ...result, status: 'new', previousScrapeId: null };
  }
  const fields = diffJson(await context.checks.snapshotJson(previous.scrapeId), json);
  if (Object.keys(fields).length === 0) {
    if (current.fingerprint && current.fingerprint !== previous.fingerprint)
      pending.fingerprints.push({ scrapeId: previous.scrapeId, fingerprint: current.fingerprint });
    return { ...result, status: 'same' };
  }
  pending.snapshots.push(snapshot);
  const before =
    trackingSettings(target.scrapeOptions ?? {})?.gitDiff && previous.contentHash !== current.hash
      ? await context.checks.snapshotMarkdown(previous.scrapeId)
      : undefined;
  return { ...result, status: 'changed', diff: { json: fields, ...(before !== undefined && { text: diffMarkdown(before, current.markdown).text }) } };
}

const goneSnapshot = (targetId: string, url: string, scrapeId: string, fingerprint: string | null): Snapshot => ({
  targetId,
  url,
  scrapeId,
  markdown: '',
  fingerprint,
  contentHash: contentHash(''),
  gone: true,
});

/** At most `limit` holders at once; take() waits for a free slot and gives the function that frees it (once). */
function slots(limit: number) {
  let free = limit;
  const waiting: (() => void)[] = [];
  return {
    async take(): Promise<() => void> {
      if (free > 0) free--;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        const next = waiting.shift();
        if (next) next();
        else free++;
      };
    },
  };
}

/**
 * A monitor check sees pages as they are now: the cache answers only if the target asks for
 * it, and the check's own snapshots, not the cache, keep what it saw.
 */
const freshOptions = (target: Exclude<Target, { type: 'search' }>) => ({
  ...target.scrapeOptions,
  maxAge: target.scrapeOptions?.maxAge ?? 0,
  storeInCache: target.scrapeOptions?.storeInCache ?? false,
});

async function targetPages(
  context: CheckContext,
  pending: Pending,
  monitor: StoredMonitor,
  target: Target,
  conversion: CheckConversion,
): Promise<PageResult[]> {
  const targetId = target.id!;
  if (target.type === 'search') return searchPages(context, pending, monitor, target);
  const results = new Map<string, PageResult>();
  if (target.type === 'scrape') {
    const snapshots = await context.checks.lastSnapshots(monitor.id, targetId, target.urls);
    // New pages will be converted: many of them start the conversion threads at once.
    conversion.expect(target.urls.filter((url) => !snapshots.has(url)).length);
    // A page gives its request slot back once fetched: its conversion (on a worker) does not hold up the next request.
    const requests = slots(CHECK_CONCURRENCY);
    // One options object for every page: what is worked out from it (the cache key's part) is worked out once.
    const options = freshOptions(target);
    await inParallel(target.urls, CHECK_CONCURRENCY + CONVERSIONS_AHEAD, async (url) => {
      const previous = snapshots.get(url);
      const release = await requests.take();
      const convert = context.scrape.convert!;
      const scrapeContext: ScrapeContext = { ...context.scrape, convert: (...page) => (release(), convert(...page)) };
      let outcome: Outcome;
      try {
        outcome = await scrapeUnlessUnchanged({ url, options }, scrapeContext, previous?.fingerprint ?? undefined);
      } catch (error) {
        outcome = { error };
      } finally {
        release();
      }
      results.set(url, await pageResult(context, pending, monitor, target, url, previous, outcome));
    });
    return target.urls.map((url) => results.get(url)!);
  }
  const found: PageResult[] = [];
  try {
    const { crawl } = await import('../crawl/crawl.js');
    await crawl(target.url, target.crawlOptions ?? {}, freshOptions(target), context.scrape, async (page) => {
      const previous = await context.checks.lastSnapshot(monitor.id, targetId, page.url);
      found.push(
        await pageResult(
          context,
          pending,
          monitor,
          target,
          page.url,
          previous,
          'error' in page ? { error: page.error } : { document: page.document, fingerprint: null },
        ),
      );
    });
  } catch (error) {
    found.push(await pageResult(context, pending, monitor, target, target.url, await context.checks.lastSnapshot(monitor.id, targetId, target.url), { error }));
  }
  // A page of the previous check that the crawl no longer finds has been removed, unless it
  // was gone already (still linked, answering 404).
  const seen = new Set(found.map((page) => page.url));
  for (const url of await context.checks.previousUrls(monitor.id, targetId)) {
    if (seen.has(url)) continue;
    const previous = await context.checks.lastSnapshot(monitor.id, targetId, url);
    if (previous?.gone) continue;
    pending.snapshots.push(goneSnapshot(targetId, url, randomUUID(), null));
    found.push({
      url,
      targetId,
      status: 'removed',
      statusCode: null,
      previousScrapeId: previous?.scrapeId ?? null,
      currentScrapeId: null,
      diff: null,
      judgment: null,
      error: null,
    });
  }
  return found.sort((a, b) => compareText(a.url, b.url));
}

/**
 * A search target's results as pages: a result the monitor has not seen before is `new` (and
 * remembered as a snapshot of its title and snippet), a seen one `same`; a failed query is an
 * `error` page named after it.
 */
async function searchPages(
  context: CheckContext,
  pending: Pending,
  monitor: StoredMonitor,
  target: Extract<Target, { type: 'search' }>,
): Promise<PageResult[]> {
  const targetId = target.id!;
  const base = { targetId, statusCode: null, diff: null, judgment: null, error: null };
  if (!context.search) {
    return [
      { ...base, url: `search:${target.queries.join(' | ')}`, status: 'error', previousScrapeId: null, currentScrapeId: null, error: SEARCH_UNAVAILABLE },
    ];
  }
  const { results, errors } = await searchTarget(context.search, target, context.now());
  const pages: PageResult[] = [];
  for (const result of results) {
    const previous = await context.checks.lastSnapshot(monitor.id, targetId, result.url);
    const scrapeId = randomUUID();
    if (previous) {
      pages.push({ ...base, url: result.url, status: 'same', previousScrapeId: previous.scrapeId, currentScrapeId: scrapeId });
      continue;
    }
    const markdown = `# ${result.title}\n\n${result.snippet}${result.publishedAt ? `\n\nPublished ${result.publishedAt}` : ''}\n`;
    pending.snapshots.push({ targetId, url: result.url, scrapeId, markdown, fingerprint: null, contentHash: contentHash(markdown) });
    pages.push({ ...base, url: result.url, status: 'new', previousScrapeId: null, currentScrapeId: scrapeId });
  }
  for (const failed of errors)
    pages.push({
      ...base,
      url: `search:${failed.query}`,
      status: 'error',
      previousScrapeId: null,
      currentScrapeId: null,
      error: `${context.search.name}: ${failed.error}`,
    });
  return pages;
}

export function summarize(pages: readonly PageResult[]): MonitorSummary {
  const count = (status: PageResult['status']) => pages.filter((page) => page.status === status).length;
  const summary = { changed: count('changed'), error: count('error'), new: count('new'), removed: count('removed'), same: count('same') };
  return { ...summary, totalPages: summary.changed + summary.error + summary.new + summary.removed + summary.same };
}

/**
 * Starts a check: the check record exists (or 409 Conflict was thrown) when this returns;
 * `done` settles when the check has finished and its results are written.
 */
export async function beginCheck(
  context: CheckContext,
  monitor: StoredMonitor,
  trigger: 'manual' | 'scheduled',
  scheduledFor: string | null = null,
): Promise<{ check: CheckRecord; done: Promise<CheckRecord> }> {
  // Checks interrupted elsewhere are announced under this process's rule for webhook targets.
  await context.checks.recoverInterrupted(context.now(), () => !context.scrape.publicAddressesOnly);
  const check = await context.checks.start(monitor, trigger, context.now(), scheduledFor);
  return { check, done: context.checks.holding(completeCheck(context, monitor, check)) };
}

export async function runCheck(
  context: CheckContext,
  monitor: StoredMonitor,
  trigger: 'manual' | 'scheduled',
  scheduledFor: string | null = null,
): Promise<CheckRecord> {
  return (await beginCheck(context, monitor, trigger, scheduledFor)).done;
}

/** Runs the check of a slot the scheduler claimed (queued, held by this worker). */
export async function runClaimedCheck(context: CheckContext, claim: ClaimedCheck): Promise<CheckRecord> {
  const check = await context.checks.begin(claim.monitor.id, claim.checkId, context.now());
  return context.checks.holding(completeCheck(context, claim.monitor, check));
}

async function completeCheck(context: CheckContext, monitor: StoredMonitor, check: CheckRecord): Promise<CheckRecord> {
  context = underSavedRule(context, monitor);
  // Pages converted on worker threads while this thread fetches and compares; the caller's converter (a server's) takes the rest.
  const conversion = checkConversion(context.conversionThreads, undefined, context.scrape.convert);
  context = { ...context, scrape: { ...context.scrape, convert: conversion.convert } };
  let pages: PageResult[] = [];
  const pending: Pending = { snapshots: [], fingerprints: [], extraCredits: 0 };
  let failure: string | null = null;
  try {
    for (const target of monitor.definition.targets) pages.push(...(await targetPages(context, pending, monitor, target, conversion)));
    await judgePages(context, monitor, pages, pending);
    if (pages.some((page) => page.screenshot)) await keepScreenshots(context, pages);
  } catch (error) {
    failure = errorMessage(error);
    pages = [];
    pending.snapshots.length = 0;
    pending.fingerprints.length = 0;
    pending.extraCredits = 0;
  }
  const summary = summarize(pages);
  const status = failure !== null || (summary.error > 0 && summary.error === summary.totalPages) ? 'failed' : summary.error > 0 ? 'partial' : 'completed';
  const now = context.now();
  // A page costs 1, and what its scrape reported beyond that; a failed one nothing.
  const credits = summary.totalPages - summary.error + pending.extraCredits;
  const finished = await context.checks.finish(
    monitor,
    check.id,
    {
      status,
      pages,
      snapshots: pending.snapshots,
      fingerprints: pending.fingerprints,
      credits,
      summary,
      error: failure,
      notify: (done, results) => {
        // With onlyMeaningful, pages judged not meaningful are left out of notifications.
        const notified = context.onlyMeaningful ? results.filter((page) => page.judgment?.meaningful !== false) : results;
        // Each delivery keeps this process's private-address rule, whoever delivers it later.
        const privateTargetsAllowed = !context.scrape.publicAddressesOnly;
        return [...webhookEntries(monitor, done, notified, now), ...emailEntries(monitor, done, notified, now)].map((entry) => ({
          ...entry,
          privateTargetsAllowed,
        }));
      },
    },
    now,
  );
  const expired = pruneDue(monitor.lastRunAt, context.now()) ? await context.checks.prune(monitor.id, monitor.definition.retentionDays, context.now()) : [];
  const directory = context.scrape.browser?.artifactsDir;
  if (expired.length > 0 && directory) await (await import('../browser/artifacts.js')).deleteKept(directory, expired);
  return finished;
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * Whether a check prunes its monitor's history past the retention: at its first check, and then
 * at the first of each hour. Retention is counted in days, so an hour's delay loses nothing, and a
 * monitor every 5 minutes pays the deletes (a transaction of four statements) once an hour, not
 * at each check.
 */
export function pruneDue(lastRunAt: string | null, now: Date): boolean {
  return lastRunAt === null || Math.floor(Date.parse(lastRunAt) / HOUR_MS) !== Math.floor(now.getTime() / HOUR_MS);
}
