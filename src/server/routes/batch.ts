/**
 * Batch scrape on `webwatch serve`: a list of URLs queued for a worker (work/worker.ts), which
 * scrapes them with the same options, as many at once as the team's page slots allow, each page written to the store as it is
 * done (crawl-jobs.ts, kind `batch`); status, cancel and errors are jobs.ts's.
 */
import type { FastifyPluginAsync } from 'fastify';
import { crawlJobStore } from '../../engine/crawl/crawl-jobs.js';
import { sortBatchUrls, validateBatchRequest } from '../../spec/batch.js';
import { normalizeJobWebhook } from '../../spec/job-webhook.js';
import { validateScrapeOptions } from '../../spec/schemas.js';
import { retainsNothing, zeroDataRetentionProblems } from '../../spec/zero-data-retention.js';
import { asObject, invalid } from '../http.js';
import { refusePrivateHosts } from '../../engine/fetch/target-hosts.js';
import { startOnce } from '../idempotency.js';
import type { RouteDeps } from './deps.js';
import { jobRoutes } from './jobs.js';

export const batchRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  const { now, checkUrl, work } = deps;
  const { outOfCredits } = app.limits;
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
      throw invalid(
        invalidUrls
          .slice(0, 20)
          .map(({ index }) => ({ path: ['urls', index], message: 'must be an absolute http(s) URL (or set ignoreInvalidURLs to skip such entries)' })),
      );
    }
    if (valid.length === 0) throw invalid([{ path: ['urls'], message: 'has no valid URL' }]);
    const refused = zeroDataRetentionProblems(fields.zeroDataRetention, options.value);
    if (refused.length > 0) throw invalid(refused);
    // Each host once, a few at a time: a batch of a thousand pages of one site is one lookup.
    const webhook = fields.webhook ? normalizeJobWebhook(fields.webhook) : undefined;
    // The webhook's host first, then the pages': a refusal names the first URL of its host (deliveries apply the rule again).
    if (checkUrl) await refusePrivateHosts([...(webhook ? [new URL(webhook.url)] : []), ...valid.map((url) => new URL(url))], checkUrl);
    if (await outOfCredits(request, reply)) return reply;
    await batches.purgeExpired(now());
    // Queued for whichever worker has room, with every URL: the worker needs nothing of this request.
    // One job per idempotency key of the team (the hosted SDK's idempotencyKey, sent as x-idempotency-key).
    const job = await startOnce(deps.db, now, request, reply, () =>
      batches.enqueue(
        request.team,
        valid[0]!,
        { urls: valid, maxConcurrency: fields.maxConcurrency, scrapeOptions: options.value, ...(fields.zeroDataRetention && { zeroDataRetention: true }) },
        now(),
        work.context(request),
        valid.length,
        webhook,
        retainsNothing(fields.zeroDataRetention, options.value),
      ),
    );
    if (!job) return reply;
    await work.queued();
    return {
      success: true,
      id: job.id,
      url: `${request.protocol}://${request.host}/v2/batch/scrape/${job.id}`,
      ...(invalidUrls.length > 0 && { invalidURLs: invalidUrls.map(({ url }) => url) }),
    };
  });
};
