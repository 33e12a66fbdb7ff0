/**
 * Batch scrape on `webwatch serve`: a list of URLs scraped in the background with the same
 * options, a few at a time, each page written to the store as it is done (crawl-jobs.ts, kind
 * `batch`); status, cancel and errors are jobs.ts's.
 */
import type { FastifyInstance } from 'fastify';
import type { CrawlJobStore } from '../../engine/crawl/crawl-jobs.js';
import { sortBatchUrls, validateBatchRequest } from '../../spec/batch.js';
import { BATCH_CONCURRENCY_DEFAULT } from '../../spec/limits.js';
import { validateScrapeOptions } from '../../spec/schemas.js';
import { asObject, invalid } from '../http.js';
import { refusePrivateHosts } from '../target-hosts.js';
import type { RouteDeps } from './deps.js';
import { failureOf, jobRoutes, type RunningJobs } from './jobs.js';

export function batchRoutes(app: FastifyInstance, deps: RouteDeps, batches: CrawlJobStore, concurrencyPerKey: number): RunningJobs {
  const { backendOf, tooBusy, runInBackground, now, checkUrl, served } = deps;
  const jobs = jobRoutes(app, deps, batches, '/v2/batch/scrape', 'batch scrape');

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
    const job = await batches.start(request.team, valid[0]!, { urls: valid.length, ...pageOptions }, now());
    const controller = jobs.track(job.id);
    const atOnce = Math.min(fields.maxConcurrency ?? BATCH_CONCURRENCY_DEFAULT, concurrencyPerKey);

    runInBackground(request, reply, () => batches.holding((async () => {
      const backend = backendOf(request.team);
      let next = 0;
      const worker = async () => {
        while (next < valid.length && !controller.signal.aborted) {
          const url = valid[next++]!;
          try {
            const document = await backend.scrape(url, pageOptions, controller.signal);
            // Stored as the client will read them: screenshots and PDFs as URLs of this server.
            if (!controller.signal.aborted) await batches.addPage(job.id, { url, document: served(request, document) }, now());
          } catch (error) {
            if (!controller.signal.aborted) await batches.addPage(job.id, { url, ...failureOf(error) }, now());
          }
        }
      };
      try {
        await Promise.all(Array.from({ length: Math.min(atOnce, valid.length) }, worker));
        if (controller.signal.aborted) await batches.finish(job.id, 'failed', String(controller.signal.reason ?? 'cancelled'));
        else await batches.finish(job.id, 'completed');
      } catch (error) {
        await batches.finish(job.id, 'failed', failureOf(error).error);
      } finally {
        jobs.untrack(job.id);
      }
    })()));
    return {
      success: true,
      id: job.id,
      url: `${request.protocol}://${request.host}/v2/batch/scrape/${job.id}`,
      ...(invalidUrls.length > 0 && { invalidURLs: invalidUrls.map(({ url }) => url) }),
    };
  });

  return jobs;
}
