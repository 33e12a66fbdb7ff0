/**
 * Batch scrape on `webwatch serve`: a list of URLs queued for a worker (work/worker.ts), which
 * scrapes them with the same options, a few at a time, each page written to the store as it is
 * done (crawl-jobs.ts, kind `batch`); status, cancel and errors are jobs.ts's.
 */
import type { FastifyPluginAsync } from 'fastify';
import { crawlJobStore } from '../../engine/crawl/crawl-jobs.js';
import { sortBatchUrls, validateBatchRequest } from '../../spec/batch.js';
import { BATCH_CONCURRENCY_DEFAULT } from '../../spec/limits.js';
import { validateScrapeOptions } from '../../spec/schemas.js';
import { retainsNothing, zeroDataRetentionProblems } from '../../spec/zero-data-retention.js';
import { asObject, invalid } from '../http.js';
import { refusePrivateHosts } from '../target-hosts.js';
import type { RouteDeps } from './deps.js';
import { jobRoutes } from './jobs.js';

export const batchRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  const { now, checkUrl, work } = deps;
  const { tooBusy, concurrencyPerKey } = app.limits;
  const batches = crawlJobStore(deps.db, 'batch');
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
    const refused = zeroDataRetentionProblems(fields.zeroDataRetention, options.value);
    if (refused.length > 0) throw invalid(refused);
    // Each host once, a few at a time: a batch of a thousand pages of one site is one lookup.
    if (checkUrl) await refusePrivateHosts(valid.map((url) => new URL(url)), checkUrl);
    if (await tooBusy(request, reply)) return reply;
    await batches.purgeExpired(now());
    const atOnce = Math.min(fields.maxConcurrency ?? BATCH_CONCURRENCY_DEFAULT, concurrencyPerKey);
    // Queued for whichever worker has room, with every URL: the worker needs nothing of this request.
    const job = await batches.enqueue(request.team, valid[0]!, { urls: valid, maxConcurrency: atOnce, scrapeOptions: options.value, ...(fields.zeroDataRetention && { zeroDataRetention: true }) }, now(),
      work.context(request), valid.length, retainsNothing(fields.zeroDataRetention, options.value));
    await work.queued();
    return {
      success: true,
      id: job.id,
      url: `${request.protocol}://${request.host}/v2/batch/scrape/${job.id}`,
      ...(invalidUrls.length > 0 && { invalidURLs: invalidUrls.map(({ url }) => url) }),
    };
  });
};
