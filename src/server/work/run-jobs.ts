/**
 * How a worker runs the crawl and batch jobs it claimed: each page waits for one of the team's page
 * slots (page-slots.ts), at most the job's `maxConcurrency` of them at once, and goes to the job's
 * store as it is done, so a job holds no documents in memory; the job's signal stops it, and the
 * job ends failed with the reason.
 */
import type { CrawlPage } from '../../engine/crawl/crawl.js';
import type { CrawlJobStore } from '../../engine/crawl/crawl-jobs.js';
import { DatabaseDamagedError } from '../../engine/store/database.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { inParallel } from '../../lib/in-parallel.js';
import type { CrawlOptions } from '../../spec/schemas.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import { retainsNothing } from '../../spec/zero-data-retention.js';
import type { TeamServices } from '../../services/team-services.js';

/** A page's failure as stored, for the team to read: its message and code. */
export function failureOf(error: unknown): { error: string; code: string | null } {
  if (error instanceof DatabaseDamagedError) return { error: error.withoutPath, code: error.code ?? null };
  return { error: error instanceof Error ? error.message : String(error), code: error instanceof WebwatchError ? (error.code ?? null) : null };
}

/** A crawl or batch job a worker claimed, as its run reads it. */
export interface QueuedJob {
  id: string;
  url: string;
  options: unknown;
}

/** What a claimed job runs with: the team's services under the queuing request's rule. */
export interface QueuedRun {
  services: TeamServices;
  /** A document with its screenshots and PDFs as URLs of the server the client called. */
  served<T>(value: T): T;
  signal: AbortSignal;
  now(): Date;
  /** Waits for one of the team's page slots (given back by calling the answer). */
  pageSlot(): Promise<() => void>;
  /** The team's page slots: the most pages a job runs at once when it does not say fewer. */
  teamLimit: number;
  /** Pages of one host a crawl fetches at once (serve's politeness setting). */
  perHost?: number | undefined;
}

/** The reason a worker gives a job's signal when the server stops before the job ends. */
export const SERVER_STOPPED = 'server stopped';

/** Why a stopped job ended, as its status says it. */
export function stopReason(signal: AbortSignal, noun: string): string {
  return signal.reason === SERVER_STOPPED ? `the server stopped before the ${noun} finished` : String(signal.reason ?? 'cancelled');
}

/** Runs a crawl job: each page is stored as it is crawled. */
export async function runCrawl(crawls: CrawlJobStore, job: QueuedJob, run: QueuedRun): Promise<void> {
  const { scrapeOptions, zeroDataRetention, ...options } = job.options as CrawlOptions & { scrapeOptions: ScrapeOptions; zeroDataRetention?: boolean };
  const { signal, now } = run;
  const crawlOptions = { ...options, maxConcurrency: Math.min(options.maxConcurrency ?? run.teamLimit, run.teamLimit) };
  // Under zero data retention no page is readable by its scrapeId (GET /v2/scrape/{id}).
  const readable = !retainsNothing(zeroDataRetention, scrapeOptions);
  let firstError: string | undefined;
  try {
    const summary = await run.services.crawl.run(
      job.url,
      crawlOptions,
      scrapeOptions,
      async (page: CrawlPage) => {
        if (signal.aborted) return;
        if ('error' in page) firstError ??= failureOf(page.error).error;
        // Stored as the client will read them: screenshots and PDFs as URLs of the server it called.
        await crawls.addPage(
          job.id,
          'document' in page ? { ...page, document: run.served(page.document) } : { url: page.url, ...failureOf(page.error) },
          now(),
          readable,
        );
      },
      signal,
      { pacing: { perHost: run.perHost, pageSlot: run.pageSlot }, retention: { zeroDataRetention } },
    );
    await crawls.setRobotsBlocked(job.id, summary.robotsBlocked);
    // A crawl that could not fetch even its start page failed; it did not complete empty.
    if (summary.pages === 0 && firstError !== undefined) await crawls.finish(job.id, 'failed', `no page could be crawled: ${firstError}`, now());
    else await crawls.finish(job.id, 'completed', null, now());
  } catch (error) {
    await crawls.finish(job.id, 'failed', signal.aborted ? stopReason(signal, 'crawl') : failureOf(error).error, now());
  }
}

/** Runs a batch job: its URLs, each in a page slot of the team, each page stored as it is done. */
export async function runBatch(batches: CrawlJobStore, job: QueuedJob, run: QueuedRun): Promise<void> {
  const { urls, maxConcurrency, scrapeOptions, zeroDataRetention } = job.options as {
    urls: string[];
    maxConcurrency?: number;
    scrapeOptions: ScrapeOptions;
    zeroDataRetention?: boolean;
  };
  const { signal, now } = run;
  const atOnce = Math.min(maxConcurrency ?? run.teamLimit, run.teamLimit);
  const readable = !retainsNothing(zeroDataRetention, scrapeOptions);
  const scrapeOne = async (url: string) => {
    let release: (() => void) | undefined;
    try {
      release = await run.pageSlot();
      const document = await run.services.scrape.one(url, scrapeOptions, signal, { zeroDataRetention });
      // Stored as the client will read them: screenshots and PDFs as URLs of the server it called.
      if (!signal.aborted) await batches.addPage(job.id, { url, document: run.served(document) }, now(), readable);
    } catch (error) {
      if (!signal.aborted) await batches.addPage(job.id, { url, ...failureOf(error) }, now());
    } finally {
      release?.();
    }
  };
  try {
    await inParallel(urls, atOnce, scrapeOne, signal);
    if (signal.aborted) await batches.finish(job.id, 'failed', stopReason(signal, 'batch scrape'), now());
    else await batches.finish(job.id, 'completed', null, now());
  } catch (error) {
    await batches.finish(job.id, 'failed', failureOf(error).error, now());
  }
}
