/**
 * What crawl and batch scrape jobs of `webwatch serve` share: their status answer (paged with
 * `skip` and `next`, at most 10 MB of documents each), cancel and errors. A worker runs them
 * (work/run-jobs.ts). Under zero data retention a page's document leaves the store once it has
 * been read after the job ended: by a status answer, or by a watcher that saw the job to its end.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { CrawlJobRecord, CrawlJobStore } from '../../engine/crawl/crawl-jobs.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { whole } from '../http.js';
import type { RouteDeps } from './deps.js';

/** GET, DELETE and GET errors of `base/:id`; the POST that starts a job is the caller's. */
export function jobRoutes(
  app: FastifyInstance,
  { now, work }: RouteDeps,
  jobs: CrawlJobStore,
  base: '/v2/crawl' | '/v2/batch/scrape',
  noun: string,
  watchLimitPerKey = WATCHERS_PER_KEY,
): void {
  const watchers = jobWatchers(jobs, now, watchLimitPerKey);
  const notFound = `no ${noun} job with this id for this key's team (results are kept for 24 hours)`;

  const jobOf = async (request: FastifyRequest<{ Params: { id: string } }>): Promise<CrawlJobRecord> => {
    const job = await jobs.get(request.team, request.params.id, now());
    if (!job)
      throw new WebwatchError(ERROR_MESSAGES.notFound, {
        status: 404,
        details: { [noun === 'crawl' ? 'crawl' : 'batch']: request.params.id, reason: notFound },
      });
    return job;
  };

  // The status route answers plain GETs, and upgrades to the watcher the hosted SDK opens
  // (`watcher()`); registered in its own context, after the WebSocket plugin has loaded.
  void app.register(async (scoped) => {
    scoped.route<{ Params: { id: string }; Querystring: { skip?: string } }>({
      method: 'GET',
      url: `${base}/:id`,
      handler: async (request, reply) => {
        const job = await jobOf(request);
        // Under zero data retention, once the job has ended, the pages answered leave the store:
        // each is answered once. While it runs they stay, so that a client polling until the end
        // (the SDK's crawl() and batchScrape()) gets every page in its last answer.
        const take = job.zeroDataRetention && job.status !== 'scraping';
        const { texts, nextSkip } = await jobs.documentTexts(job.id, whole(request.query.skip, 'skip', 0), undefined, take);
        const rest = new URL(`${request.protocol}://${request.host}${request.url}`);
        rest.searchParams.set('skip', String(nextSkip));
        const head = JSON.stringify({
          success: true,
          id: job.id,
          status: job.status,
          total: job.total,
          completed: job.completed,
          creditsUsed: job.creditsUsed,
          expiresAt: job.expiresAt,
          next: nextSkip === null ? null : rest.href,
          ...(job.error && { error: job.error }),
        });
        // The documents are spliced in as stored: up to 10 MB never parsed and serialised again.
        return reply.type('application/json; charset=utf-8').send(`${head.slice(0, -1)},"data":[${texts.join(',')}]}`);
      },
      wsHandler: (socket, request) => {
        void jobs.get(request.team, request.params.id, now()).then(
          (job) => {
            if (!job) {
              socket.send(JSON.stringify({ type: 'error', error: notFound }));
              socket.close(4404, 'not found');
              return;
            }
            watchers.open(request.keyId, socket, job.id);
          },
          () => socket.close(1011, 'the job could not be read'),
        );
      },
    });
  });

  app.delete<{ Params: { id: string } }>(`${base}/:id`, async (request) => {
    const job = await jobOf(request);
    if (!(await jobs.cancel(job.id, now()))) {
      throw new WebwatchError(ERROR_MESSAGES.conflict, {
        status: 409,
        details: { [noun === 'crawl' ? 'crawl' : 'batch']: job.id, reason: `the ${noun} has already ended (${job.status})` },
      });
    }
    // Stopped at once when this process runs it; another worker sees the cancel within a second.
    work.abort(job.id, 'cancelled');
    return { success: true, status: 'cancelled' };
  });

  app.get<{ Params: { id: string } }>(`${base}/:id/errors`, async (request) => {
    const job = await jobOf(request);
    return {
      success: true,
      errors: (await jobs.errors(job.id)).map(({ code, ...error }) => ({ ...error, ...(code && { code }) })),
      robotsBlocked: await jobs.robotsBlocked(job.id),
    };
  });
}

/** Sockets watching jobs, per key at most; more are closed with a reason. */
export const WATCHERS_PER_KEY = 20;
/** How often a watcher looks for new pages: the store is shared with other processes. */
const WATCH_POLL_MS = 200;
/** A client that reads slower than this much buffered output is waited for, not buffered for. */
const WATCH_BUFFER_MAX = 4 * 1024 * 1024;

/**
 * The watcher: first a `catchup` with the job's status, counts and the pages stored before the
 * socket opened, then each page stored after as a `document` message as soon as it is stored;
 * at the end, `status` and `done` with the job's counts when it completed, or `error` when it
 * failed or was cancelled, and the socket closes. Pages are read from the store
 * in bounded pages, and sending waits while the client is behind, so a watcher holds little.
 */
function jobWatchers(jobs: CrawlJobStore, now: () => Date, limitPerKey: number) {
  const open = new Map<string, number>();
  return {
    open(keyId: string, socket: WebSocket, jobId: string) {
      if ((open.get(keyId) ?? 0) >= limitPerKey) {
        socket.close(1013, `at most ${limitPerKey} watchers per key`);
        return;
      }
      open.set(keyId, (open.get(keyId) ?? 0) + 1);
      let closed = false;
      socket.on('close', () => {
        closed = true;
        const left = (open.get(keyId) ?? 1) - 1;
        if (left === 0) open.delete(keyId);
        else open.set(keyId, left);
      });
      const drained = () =>
        new Promise<void>((resolve) => {
          const check = () => (closed || socket.bufferedAmount < WATCH_BUFFER_MAX ? resolve() : setTimeout(check, 20));
          check();
        });
      void (async () => {
        let position = 0;
        let caughtUp = false;
        while (!closed) {
          const job = await jobs.getById(jobId, now());
          if (!job) return socket.close(1011, 'the job expired');
          // Pages from the first not yet sent; the status is read before, so a page stored
          // after it is still sent before `done`.
          const ended = job.status !== 'scraping';
          const counts = { status: job.status, total: job.total, completed: job.completed, creditsUsed: job.creditsUsed };
          if (!caughtUp) {
            // The first message, as the hosted API sends it: the job's state and the pages stored
            // so far (one bounded page of them; the rest follow as documents), which the SDK's
            // watcher turns into its `snapshot` event.
            caughtUp = true;
            const { data, lastPosition } = await jobs.documentsAfter(jobId, 0);
            if (closed) return;
            socket.send(
              `${JSON.stringify({ type: 'catchup', data: { id: job.id, ...counts, expiresAt: job.expiresAt, next: null } }).slice(0, -2)},"data":[${data.join(',')}]}}`,
            );
            if (lastPosition !== null) position = lastPosition + 1;
            await drained();
          }
          for (;;) {
            const { data, nextSkip, lastPosition } = await jobs.documentsAfter(jobId, position);
            for (const document of data) {
              if (closed) return;
              socket.send(`{"type":"document","data":${document}}`);
              await drained();
            }
            if (lastPosition !== null) position = lastPosition + 1;
            if (nextSkip === null) break;
          }
          if (ended) {
            // Zero data retention: every page is sent by now; they leave the store.
            if (job.zeroDataRetention && position > 0) await jobs.forget(jobId, 0, position - 1);
            // The SDK's watcher emits a `snapshot` for a message with a status, and `done` without
            // one: the last state first, so that its snapshots end with the job's end.
            if (job.status === 'completed') {
              socket.send(JSON.stringify({ type: 'status', data: { ...counts, data: [] } }));
              socket.send(JSON.stringify({ type: 'done', data: { ...counts, data: [] } }));
            } else socket.send(JSON.stringify({ type: 'error', error: job.error ?? job.status, data: counts }));
            return socket.close(1000, job.status);
          }
          await new Promise((resolve) => setTimeout(resolve, WATCH_POLL_MS));
        }
      })().catch(() => socket.terminate());
    },
  };
}
