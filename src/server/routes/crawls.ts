/**
 * The crawl routes of `webwatch serve`: a crawl is queued for a worker (work/worker.ts), which
 * writes each page to the store (crawl-jobs.ts) as it is crawled; status, cancel and errors are
 * jobs.ts's.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { crawlJobStore } from '../../engine/crawl/crawl-jobs.js';
import { validateCrawlOptions, validateScrapeOptions } from '../../spec/schemas.js';
import { retainsNothing, validateZeroDataRetention, zeroDataRetentionProblems } from '../../spec/zero-data-retention.js';
import { asObject, invalid, targetUrl } from '../http.js';
import type { RouteDeps } from './deps.js';
import { jobRoutes } from './jobs.js';

export const crawlRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  const { now, checkUrl, work } = deps;
  const { tooBusy } = app.limits;
  const crawls = crawlJobStore(deps.db);

  // The team's running crawls, first started first; `ongoing` is the hosted API's other name for the list.
  const ongoing = async (request: FastifyRequest) => ({
    success: true,
    crawls: (await crawls.active(request.team, now())).map((job) => ({
      id: job.id, teamId: job.team, url: job.url, created_at: new Date(job.createdAt).toISOString(), options: job.options,
    })),
  });
  app.get('/v2/crawl/active', ongoing);
  app.get('/v2/crawl/ongoing', ongoing);

  jobRoutes(app, deps, crawls, '/v2/crawl', 'crawl');

  app.post('/v2/crawl', async (request, reply) => {
    const { url, scrapeOptions, zeroDataRetention: asked, ...rest } = asObject(request.body);
    const target = targetUrl(url);
    const crawlOptions = validateCrawlOptions(rest, 'wire');
    if (!crawlOptions.ok) throw invalid(crawlOptions.problems);
    const pageOptions = validateScrapeOptions(scrapeOptions ?? {}, 'wire');
    if (!pageOptions.ok) throw invalid(pageOptions.problems.map((problem) => ({ ...problem, path: ['scrapeOptions', ...problem.path] })));
    const retention = validateZeroDataRetention(asked);
    if (!retention.ok) throw invalid(retention.problems);
    const zeroDataRetention = retention.value;
    const refused = zeroDataRetentionProblems(zeroDataRetention, pageOptions.value);
    if (refused.length > 0) throw invalid(refused.map((problem) => ({ ...problem, path: ['scrapeOptions', ...problem.path] })));
    if (checkUrl) await checkUrl(target);
    if (await tooBusy(request, reply)) return reply;
    await crawls.purgeExpired(now());
    // Queued for whichever worker has room (this process too, unless it only serves the API).
    const job = await crawls.enqueue(request.team, target.href, { ...crawlOptions.value, scrapeOptions: pageOptions.value, ...(zeroDataRetention && { zeroDataRetention: true }) }, now(), work.context(request), 0, retainsNothing(zeroDataRetention, pageOptions.value));
    await work.queued();
    return { success: true, id: job.id, url: `${request.protocol}://${request.host}/v2/crawl/${job.id}` };
  });
};
