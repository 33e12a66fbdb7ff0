/**
 * What crawl and batch scrape jobs of `webwatch serve` share: their status answer (paged with
 * `skip` and `next`, at most 10 MB of documents each), cancel, errors, and the aborts that stop
 * their fetching at once when they are cancelled or the server stops.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CrawlJobRecord, CrawlJobStore } from '../../engine/crawl/crawl-jobs.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { whole } from '../http.js';
import type { RouteDeps } from './deps.js';

/** A page's failure as stored: its message and code. */
export function failureOf(error: unknown): { error: string; code: string | null } {
  return { error: error instanceof Error ? error.message : String(error), code: error instanceof WebwatchError ? error.code ?? null : null };
}

/** What the server can do to the jobs of its routes when it stops. */
export interface RunningJobs {
  /** Stops every running job at once: each ends `failed` with the reason. */
  stopAll(reason: string): void;
}

export interface JobRoutes extends RunningJobs {
  /** A job started by this process: cancelling it aborts `signal`. */
  track(jobId: string): AbortController;
  untrack(jobId: string): void;
}

/** GET, DELETE and GET errors of `base/:id`; the POST that starts a job is the caller's. */
export function jobRoutes(app: FastifyInstance, { now }: RouteDeps, jobs: CrawlJobStore, base: '/v2/crawl' | '/v2/batch/scrape', noun: string): JobRoutes {
  const running = new Map<string, AbortController>();
  const notFound = `no ${noun} job with this id for this key's team (results are kept for 24 hours)`;

  const jobOf = (request: FastifyRequest<{ Params: { id: string } }>): CrawlJobRecord => {
    const job = jobs.get(request.team, request.params.id, now());
    if (!job) throw new WebwatchError(ERROR_MESSAGES.notFound, { status: 404, details: { [noun === 'crawl' ? 'crawl' : 'batch']: request.params.id, reason: notFound } });
    return job;
  };

  app.get<{ Params: { id: string }; Querystring: { skip?: string } }>(`${base}/:id`, async (request) => {
    const job = jobOf(request);
    const { data, nextSkip } = jobs.documents(job.id, whole(request.query.skip, 'skip', 0));
    const rest = new URL(`${request.protocol}://${request.host}${request.url}`);
    rest.searchParams.set('skip', String(nextSkip));
    return {
      success: true, id: job.id, status: job.status, total: job.total, completed: job.completed, creditsUsed: job.creditsUsed, expiresAt: job.expiresAt,
      next: nextSkip === null ? null : rest.href, data, ...(job.error && { error: job.error }),
    };
  });

  app.delete<{ Params: { id: string } }>(`${base}/:id`, async (request) => {
    const job = jobOf(request);
    if (!jobs.cancel(job.id)) {
      throw new WebwatchError(ERROR_MESSAGES.conflict, { status: 409, details: { [noun === 'crawl' ? 'crawl' : 'batch']: job.id, reason: `the ${noun} has already ended (${job.status})` } });
    }
    running.get(job.id)?.abort('cancelled');
    return { success: true, status: 'cancelled' };
  });

  app.get<{ Params: { id: string } }>(`${base}/:id/errors`, async (request) => {
    const job = jobOf(request);
    return { success: true, errors: jobs.errors(job.id).map(({ code, ...error }) => ({ ...error, ...(code && { code }) })), robotsBlocked: jobs.robotsBlocked(job.id) };
  });

  return {
    track(jobId) {
      const controller = new AbortController();
      running.set(jobId, controller);
      return controller;
    },
    untrack: (jobId) => void running.delete(jobId),
    stopAll(reason) {
      for (const controller of running.values()) controller.abort(reason);
    },
  };
}
