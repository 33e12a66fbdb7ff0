/**
 * The crawl routes of `webwatch serve`: a crawl runs in the background, writing each page to
 * the store (crawl-jobs.ts) as it is crawled; status, cancel and errors are jobs.ts's.
 */
import type { FastifyInstance } from 'fastify';
import type { CrawlPage } from '../../engine/crawl/crawl.js';
import type { CrawlJobStore } from '../../engine/crawl/crawl-jobs.js';
import { validateCrawlOptions, validateScrapeOptions } from '../../spec/schemas.js';
import { asObject, invalid, targetUrl } from '../http.js';
import type { RouteDeps } from './deps.js';
import { failureOf, jobRoutes, type RunningJobs } from './jobs.js';

export function crawlRoutes(app: FastifyInstance, deps: RouteDeps, crawls: CrawlJobStore): RunningJobs {
  const { backendOf, tooBusy, runInBackground, now, checkUrl, served } = deps;

  // Registered before /v2/crawl/:id reads "active" as an id.
  app.get('/v2/crawl/active', async (request) => ({
    success: true,
    crawls: (await crawls.active(request.team, now())).map((job) => ({ id: job.id, teamId: job.team, url: job.url, options: job.options })),
  }));

  const jobs = jobRoutes(app, deps, crawls, '/v2/crawl', 'crawl');

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
    const job = await crawls.start(request.team, target.href, { ...crawlOptions.value, scrapeOptions: pageOptions.value }, now());
    const controller = jobs.track(job.id);
    // The crawl runs after the response, as one of the key's concurrent jobs; each page goes
    // to the store as it is crawled, so a crawl holds no documents in memory.
    runInBackground(request, reply, () => crawls.holding((async () => {
      let firstError: string | undefined;
      try {
        const summary = await backendOf(request.team).crawl(target.href, crawlOptions.value, pageOptions.value, async (page: CrawlPage) => {
          if (controller.signal.aborted) return;
          if ('error' in page) firstError ??= failureOf(page.error).error;
          // Stored as the client will read them: screenshots and PDFs as URLs of this server.
          await crawls.addPage(job.id, 'document' in page ? { ...page, document: served(request, page.document) } : { url: page.url, ...failureOf(page.error) }, now());
        }, controller.signal);
        await crawls.setRobotsBlocked(job.id, summary.robotsBlocked);
        // A crawl that could not fetch even its start page failed; it did not complete empty.
        if (summary.pages === 0 && firstError !== undefined) await crawls.finish(job.id, 'failed', `no page could be crawled: ${firstError}`);
        else await crawls.finish(job.id, 'completed');
      } catch (error) {
        const reason = controller.signal.aborted ? String(controller.signal.reason ?? 'cancelled') : failureOf(error).error;
        await crawls.finish(job.id, 'failed', reason);
      } finally {
        jobs.untrack(job.id);
      }
    })()));
    return { success: true, id: job.id, url: `${request.protocol}://${request.host}/v2/crawl/${job.id}` };
  });

  return jobs;
}
