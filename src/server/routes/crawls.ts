/**
 * The crawl routes of `webwatch serve`: a crawl is queued for a worker (work-runner.ts), which
 * writes each page to the store (crawl-jobs.ts) as it is crawled; status, cancel and errors are
 * jobs.ts's.
 */
import type { FastifyInstance } from 'fastify';
import type { CrawlPage } from '../../engine/crawl/crawl.js';
import type { CrawlJobStore } from '../../engine/crawl/crawl-jobs.js';
import { validateCrawlOptions, validateScrapeOptions } from '../../spec/schemas.js';
import { asObject, invalid, targetUrl } from '../http.js';
import type { RouteDeps } from './deps.js';
import { failureOf, jobRoutes, stopReason, type QueuedJob, type QueuedRun } from './jobs.js';
import type { CrawlOptions } from '../../spec/schemas.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';

export function crawlRoutes(app: FastifyInstance, deps: RouteDeps, crawls: CrawlJobStore): void {
  const { tooBusy, now, checkUrl, work } = deps;

  // Registered before /v2/crawl/:id reads "active" as an id.
  app.get('/v2/crawl/active', async (request) => ({
    success: true,
    crawls: (await crawls.active(request.team, now())).map((job) => ({ id: job.id, teamId: job.team, url: job.url, options: job.options })),
  }));

  jobRoutes(app, deps, crawls, '/v2/crawl', 'crawl');

  app.post('/v2/crawl', async (request, reply) => {
    const { url, scrapeOptions, ...rest } = asObject(request.body);
    const target = targetUrl(url);
    const crawlOptions = validateCrawlOptions(rest, 'wire');
    if (!crawlOptions.ok) throw invalid(crawlOptions.problems);
    const pageOptions = validateScrapeOptions(scrapeOptions ?? {}, 'wire');
    if (!pageOptions.ok) throw invalid(pageOptions.problems.map((problem) => ({ ...problem, path: ['scrapeOptions', ...problem.path] })));
    if (checkUrl) await checkUrl(target);
    if (await tooBusy(request, reply)) return reply;
    await crawls.purgeExpired(now());
    // Queued for whichever worker has room (this process too, unless it only serves the API).
    const job = await crawls.enqueue(request.team, target.href, { ...crawlOptions.value, scrapeOptions: pageOptions.value }, now(), work.context(request));
    await work.queued();
    return { success: true, id: job.id, url: `${request.protocol}://${request.host}/v2/crawl/${job.id}` };
  });
}

/**
 * Runs a crawl job this worker claimed: each page goes to the store as it is crawled, so a
 * crawl holds no documents in memory; `signal` stops it, and the job ends failed with the reason.
 */
export async function runCrawl(crawls: CrawlJobStore, job: QueuedJob, run: QueuedRun): Promise<void> {
  const { crawlOptions, scrapeOptions } = splitOptions(job.options);
  const { signal, now } = run;
  let firstError: string | undefined;
  try {
    const summary = await run.backend.crawl(job.url, crawlOptions, scrapeOptions, async (page: CrawlPage) => {
      if (signal.aborted) return;
      if ('error' in page) firstError ??= failureOf(page.error).error;
      // Stored as the client will read them: screenshots and PDFs as URLs of the server it called.
      await crawls.addPage(job.id, 'document' in page ? { ...page, document: run.served(page.document) } : { url: page.url, ...failureOf(page.error) }, now());
    }, signal);
    await crawls.setRobotsBlocked(job.id, summary.robotsBlocked);
    // A crawl that could not fetch even its start page failed; it did not complete empty.
    if (summary.pages === 0 && firstError !== undefined) await crawls.finish(job.id, 'failed', `no page could be crawled: ${firstError}`);
    else await crawls.finish(job.id, 'completed');
  } catch (error) {
    await crawls.finish(job.id, 'failed', signal.aborted ? stopReason(signal, 'crawl') : failureOf(error).error);
  }
}

/** The options stored with a crawl job: the crawl's, with the pages' under scrapeOptions. */
function splitOptions(stored: unknown): { crawlOptions: CrawlOptions; scrapeOptions: ScrapeOptions } {
  const { scrapeOptions, ...crawlOptions } = stored as CrawlOptions & { scrapeOptions: ScrapeOptions };
  return { crawlOptions: crawlOptions as CrawlOptions, scrapeOptions };
}
