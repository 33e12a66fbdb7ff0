/**
 * The crawl routes of `webwatch serve`: a crawl runs in the background, writing each page to
 * the store (crawl-jobs.ts) as it is crawled; status answers are paged (`skip`, `next`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CrawlPage } from '../../engine/crawl/crawl.js';
import type { CrawlJobStore } from '../../engine/crawl/crawl-jobs.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { validateCrawlOptions, validateScrapeOptions } from '../../spec/schemas.js';
import { asObject, invalid, targetUrl, whole } from '../http.js';
import type { RouteDeps } from './deps.js';

const CRAWL_NOT_FOUND = "no crawl job with this id for this key's team (crawl results are kept for 24 hours)";

/** A crawl page's failure as stored: its message and code. */
function failureOf(error: unknown): { error: string; code: string | null } {
  return { error: error instanceof Error ? error.message : String(error), code: error instanceof WebwatchError ? error.code ?? null : null };
}

/** What the server can do to the crawls of its routes when it stops. */
export interface RunningCrawls {
  /** Stops every running crawl at once: each ends `failed` with the reason. */
  stopAll(reason: string): void;
}

export function crawlRoutes(app: FastifyInstance, { backendOf, tooBusy, runInBackground, now, checkUrl }: RouteDeps, crawls: CrawlJobStore): RunningCrawls {
  /** The crawls of this process, by job id: cancelling one aborts its fetches at once. */
  const running = new Map<string, AbortController>();

  app.post('/v2/crawl', async (request, reply) => {
    const { url, scrapeOptions, ...rest } = asObject(request.body);
    const target = targetUrl(url);
    const crawlOptions = validateCrawlOptions(rest, 'wire');
    if (!crawlOptions.ok) throw invalid(crawlOptions.problems);
    const pageOptions = validateScrapeOptions(scrapeOptions ?? {}, 'wire');
    if (!pageOptions.ok) throw invalid(pageOptions.problems.map((problem) => ({ ...problem, path: ['scrapeOptions', ...problem.path] })));
    if (checkUrl) await checkUrl(target);
    if (tooBusy(request, reply)) return reply;
    crawls.purgeExpired(now());
    const job = crawls.start(request.team, target.href, { ...crawlOptions.value, scrapeOptions: pageOptions.value }, now());
    const controller = new AbortController();
    running.set(job.id, controller);
    // The crawl runs after the response, as one of the key's concurrent jobs; each page goes
    // to the store as it is crawled, so a crawl holds no documents in memory.
    runInBackground(request, reply, async () => {
      let firstError: string | undefined;
      try {
        const summary = await backendOf(request.team).crawl(target.href, crawlOptions.value, pageOptions.value, (page: CrawlPage) => {
          if (controller.signal.aborted) return;
          if ('error' in page) firstError ??= failureOf(page.error).error;
          crawls.addPage(job.id, 'document' in page ? page : { url: page.url, ...failureOf(page.error) }, now());
        }, controller.signal);
        // A crawl that could not fetch even its start page failed; it did not complete empty.
        if (summary.pages === 0 && firstError !== undefined) crawls.finish(job.id, 'failed', `no page could be crawled: ${firstError}`);
        else crawls.finish(job.id, 'completed');
      } catch (error) {
        const reason = controller.signal.aborted ? String(controller.signal.reason ?? 'cancelled') : failureOf(error).error;
        crawls.finish(job.id, 'failed', reason);
      } finally {
        running.delete(job.id);
      }
    });
    return { success: true, id: job.id, url: `${request.protocol}://${request.host}/v2/crawl/${job.id}` };
  });

  const crawlOf = (request: FastifyRequest<{ Params: { id: string } }>) => {
    const job = crawls.get(request.team, request.params.id, now());
    if (!job) throw new WebwatchError(ERROR_MESSAGES.notFound, { status: 404, details: { crawl: request.params.id, reason: CRAWL_NOT_FOUND } });
    return job;
  };

  app.get<{ Params: { id: string }; Querystring: { skip?: string } }>('/v2/crawl/:id', async (request) => {
    const job = crawlOf(request);
    const { data, nextSkip } = crawls.documents(job.id, whole(request.query.skip, 'skip', 0));
    const rest = new URL(`${request.protocol}://${request.host}${request.url}`);
    rest.searchParams.set('skip', String(nextSkip));
    return {
      success: true, id: job.id, status: job.status, total: job.total, completed: job.completed, creditsUsed: job.creditsUsed, expiresAt: job.expiresAt,
      next: nextSkip === null ? null : rest.href, data, ...(job.error && { error: job.error }),
    };
  });

  // Registered before /v2/crawl/:id reads "active" as an id.
  app.get('/v2/crawl/active', async (request) => ({
    success: true,
    crawls: crawls.active(request.team, now()).map((job) => ({ id: job.id, teamId: job.team, url: job.url, options: job.options })),
  }));

  app.delete<{ Params: { id: string } }>('/v2/crawl/:id', async (request) => {
    const job = crawlOf(request);
    if (!crawls.cancel(job.id)) {
      throw new WebwatchError(ERROR_MESSAGES.conflict, { status: 409, details: { crawl: job.id, reason: `the crawl has already ended (${job.status})` } });
    }
    running.get(job.id)?.abort('cancelled');
    return { success: true, status: 'cancelled' };
  });

  app.get<{ Params: { id: string } }>('/v2/crawl/:id/errors', async (request) => {
    const job = crawlOf(request);
    return { success: true, errors: crawls.errors(job.id).map(({ code, ...error }) => ({ ...error, ...(code && { code }) })), robotsBlocked: [] };
  });

  return {
    stopAll(reason) {
      for (const controller of running.values()) controller.abort(reason);
    },
  };
}
