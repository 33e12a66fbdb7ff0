/**
 * Batch scrape on `webwatch serve`: a list of URLs queued for a worker (work-runner.ts), which
 * scrapes them with the same options, a few at a time, each page written to the store as it is
 * done (crawl-jobs.ts, kind `batch`); status, cancel and errors are jobs.ts's.
 */
import type { FastifyInstance } from 'fastify';
import type { CrawlJobStore } from '../../engine/crawl/crawl-jobs.js';
import { sortBatchUrls, validateBatchRequest } from '../../spec/batch.js';
import { BATCH_CONCURRENCY_DEFAULT } from '../../spec/limits.js';
import { validateScrapeOptions } from '../../spec/schemas.js';
import { asObject, invalid } from '../http.js';
import { refusePrivateHosts } from '../target-hosts.js';
import type { RouteDeps } from './deps.js';
import { inParallel } from '../../lib/in-parallel.js';
import { failureOf, jobRoutes, stopReason, type QueuedJob, type QueuedRun } from './jobs.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';

export function batchRoutes(app: FastifyInstance, deps: RouteDeps, batches: CrawlJobStore, concurrencyPerKey: number): void {
  const { tooBusy, now, checkUrl, work } = deps;
  jobRoutes(app, deps, batches, '/v2/batch/scrape', 'batch scrape');

  app.post('/v2/batch/scrape', async (request, reply) => {
    const validation = validateBatchRequest(asObject(request.body));
    if (!validation.ok) throw invalid(validation.problems);
    const { fields, scrapeOptions: rawOptions } = validation.value;
    const options = validateScrapeOptions(rawOptions, 'wire');
    if (!options.ok) throw invalid(options.problems);
    const { valid, invalid: invalidUrls } = sortBatchUrls(fields.urls);
    if (invalidUrls.length > 0 && !fields.ignoreInvalidURLs) {
      throw invalid(invalidUrls.slice(0, 20).map(({ index }) => ({ path: ['urls', index], message: 'must be an absolute http(s) URL (or set ignoreInvalidURLs to skip such entries)' })));
    }
    if (valid.length === 0) throw invalid([{ path: ['urls'], message: 'has no valid URL' }]);
    // Spec §2.7: the cleaning pass sends the page to a model, which zero data retention rules out.
    if (fields.zeroDataRetention && options.value.onlyCleanContent) throw invalid([{ path: ['onlyCleanContent'], message: 'is not supported with zeroDataRetention' }]);
    // Each host once, a few at a time: a batch of a thousand pages of one site is one lookup.
    if (checkUrl) await refusePrivateHosts(valid.map((url) => new URL(url)), checkUrl);
    if (await tooBusy(request, reply)) return reply;
    await batches.purgeExpired(now());
    const pageOptions = { ...options.value, ...(fields.zeroDataRetention && { storeInCache: false }) };
    const atOnce = Math.min(fields.maxConcurrency ?? BATCH_CONCURRENCY_DEFAULT, concurrencyPerKey);
    // Queued for whichever worker has room, with every URL: the worker needs nothing of this request.
    const job = await batches.enqueue(request.team, valid[0]!, { urls: valid, maxConcurrency: atOnce, scrapeOptions: pageOptions }, now(), work.context(request), valid.length);
    await work.queued();
    return {
      success: true,
      id: job.id,
      url: `${request.protocol}://${request.host}/v2/batch/scrape/${job.id}`,
      ...(invalidUrls.length > 0 && { invalidURLs: invalidUrls.map(({ url }) => url) }),
    };
  });
}

/** Runs a batch job this worker claimed: its URLs, a few at a time, each page stored as it is done. */
export async function runBatch(batches: CrawlJobStore, job: QueuedJob, run: QueuedRun): Promise<void> {
  const { urls, maxConcurrency, scrapeOptions } = job.options as { urls: string[]; maxConcurrency: number; scrapeOptions: ScrapeOptions };
  const { signal, now } = run;
  const scrapeOne = async (url: string) => {
    try {
      const document = await run.backend.scrape(url, scrapeOptions, signal);
      // Stored as the client will read them: screenshots and PDFs as URLs of the server it called.
      if (!signal.aborted) await batches.addPage(job.id, { url, document: run.served(document) }, now());
    } catch (error) {
      if (!signal.aborted) await batches.addPage(job.id, { url, ...failureOf(error) }, now());
    }
  };
  try {
    await inParallel(urls, maxConcurrency, scrapeOne, signal);
    if (signal.aborted) await batches.finish(job.id, 'failed', stopReason(signal, 'batch scrape'));
    else await batches.finish(job.id, 'completed');
  } catch (error) {
    await batches.finish(job.id, 'failed', failureOf(error).error);
  }
}
