/**
 * The worker side of `webwatch serve`: everything that runs without a request. Queued crawls,
 * batch scrapes, agent jobs (extract jobs among them) and manual checks are claimed, run and finished here (whichever
 * process's API queued them); scheduled checks, notification deliveries, the recovery of jobs
 * whose worker stopped, and the pruning of old screenshots too. Routes only validate, enqueue
 * and read (routes/), and tell the worker through `queue`.
 *
 * Roles (docs/serve.md, "Running on several machines"): `all` and `worker` run all of it; `api` runs
 * only recovery and pruning, and its queued work is claimed by the workers.
 */
import { setMaxListeners } from 'node:events';
import { agentStore } from '../../engine/agent/agent-store.js';
import { artifactsDir, pruneArtifacts, servedArtifacts } from '../../engine/browser/artifacts.js';
import { mediaLinks } from '../media-links.js';
import { closeBrowserIfOpen } from '../../engine/browser/lifetime.js';
import { crawlJobStore } from '../../engine/crawl/crawl-jobs.js';
import { checkStore } from '../../engine/monitors/check-store.js';
import { startScheduler, type Scheduler, type Timers } from '../../engine/scheduler/scheduler.js';
import type { Db } from '../../engine/store/database.js';
import { leaseDuration } from '../../engine/store/leases.js';
import type { PageSlots } from '../../engine/store/page-slots.js';
import { scrapeDocumentStore } from '../../engine/store/scrape-documents.js';
import { announce, SCHEDULE_CHANNEL, WORK_CHANNEL } from '../../engine/store/work-queue.js';
import type { ServicesByTeam } from '../team-services.js';
import { startDeliveries } from './deliveries.js';
import { failureOf, runBatch, runCrawl, SERVER_STOPPED, type QueuedRun } from './run-jobs.js';
import { startWorkRunner, type WorkHandlers } from './work-runner.js';
import type { Env } from '../../lib/env.js';

/** Screenshots and PDFs are kept a day, like crawl results; looked through hourly. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

export interface WorkerOptions {
  db: Db;
  env: Env;
  now(): Date;
  version: string;
  services: ServicesByTeam;
  /** Runs queued work, scheduled checks and deliveries (roles `all` and `worker`); `api` does not. */
  works: boolean;
  /** Queued crawls, batches, agent jobs and manual checks this process runs at once. */
  jobConcurrency: number;
  /** The teams' page slots, which every page of a crawl or batch waits for. */
  pageSlots: PageSlots;
  /** Pages of one host a crawl fetches at once; by default as many as the team's slots allow. */
  perHostConcurrency?: number | undefined;
  /** Runs every team's monitors on their schedules; off when omitted. */
  scheduler?: { maxConcurrent: number; jitterMs: number; timers?: Timers } | undefined;
  webhookSecret?: string | undefined;
  smtp?: { url: string; from: string } | undefined;
  /** On drain, how long running crawls may go on before they are stopped (failed, with the reason). */
  drainTimeoutMs: number;
  log: { error(fields: object, message: string): void; info(fields: object, message: string): void };
}

/** What the routes tell the worker. */
export interface WorkQueue {
  /** Work was queued: this process's runner looks now, PostgreSQL's listeners are told. */
  queued(): Promise<void>;
  /** Stops a crawl or batch at once if this process runs it (it was cancelled). */
  abort(id: string, reason: string): void;
  /** A monitor was created, changed, paused or resumed: the next wake-up may move. */
  monitorsChanged(): void;
}

export interface Worker {
  queue: WorkQueue;
  scheduler: Scheduler | undefined;
  /** Settles once jobs of stopped workers are recovered and the scheduler has started. */
  ready: Promise<void>;
  /** Claims nothing more, lets running work finish (crawls get the drain time), delivers, and closes the browser. */
  drain(): Promise<void>;
}

export function startWorker(options: WorkerOptions): Worker {
  const { db, services, log } = options;
  const deliveries = options.works
    ? startDeliveries({
        db,
        now: options.now,
        version: options.version,
        webhookSecret: options.webhookSecret,
        smtp: options.smtp,
        onError: (error) => log.error({ err: error }, 'delivering notifications'),
      })
    : undefined;
  // A job's webhook deliveries go out as they are queued, not at the next look.
  const jobStoreOptions = { deliveryQueued: () => deliveries?.deliver() };
  const crawls = crawlJobStore(db, 'crawl', jobStoreOptions);
  const batches = crawlJobStore(db, 'batch', jobStoreOptions);
  const checks = checkStore(db);
  const agents = agentStore(db, jobStoreOptions);
  const links = mediaLinks(options.env);

  // Jobs of workers that stopped are failed: now, and again as leases run out (their webhooks hear
  // it). Expired jobs and scrape documents are deleted meanwhile.
  const recoverJobs = () =>
    Promise.all([
      crawls.recoverInterrupted(options.now()),
      batches.recoverInterrupted(options.now()),
      crawls.purgeExpired(options.now()),
      agents.recoverInterrupted(options.now()),
      scrapeDocumentStore(db).purgeExpired(options.now()),
    ]).catch((error: unknown) => log.error({ err: error }, 'recovering interrupted jobs'));
  const recovering = setInterval(() => void recoverJobs(), Math.max(1000, leaseDuration() / 2)).unref();
  const prune = () => void pruneArtifacts(options.env, options.now().getTime());
  const pruning = setInterval(prune, PRUNE_INTERVAL_MS).unref();
  prune();

  const afterCheck = <T>(work: Promise<T>) => work.finally(() => deliveries?.deliver());

  const handlers: WorkHandlers = {
    async crawl(id, signal) {
      const claimed = await crawls.claimed(id);
      if (!claimed) return;
      const { job, kind, options: stored, context } = claimed;
      const store = kind === 'batch' ? batches : crawls;
      const artifactsUrl = `${context?.origin ?? ''}/v2/artifacts/`;
      // Each page running or waiting for a slot listens to the job's signal: as many as the team's slots, twice over.
      setMaxListeners(Math.max(10, 4 * options.pageSlots.limit), signal);
      const run: QueuedRun = {
        services: services.forJob(job.team, context),
        signal,
        now: options.now,
        pageSlot: () => options.pageSlots.take(job.team, job.id, signal),
        teamLimit: options.pageSlots.limit,
        perHost: options.perHostConcurrency ?? options.pageSlots.limit,
        served: (value) =>
          servedArtifacts(value, artifactsDir(options.env, job.team), artifactsUrl, (name) =>
            links.url(context?.origin ?? '', job.team, name, options.now().getTime()),
          ),
      };
      const queued = { id, url: job.url, options: stored };
      // Its `started` delivery was queued with it, by whichever process took the request.
      deliveries?.deliver();
      await store
        .holding(kind === 'batch' ? runBatch(store, queued, run) : runCrawl(store, queued, run))
        .catch(async (error: unknown) => {
          await store.finish(id, 'failed', failureOf(error).error, options.now());
          throw error;
        })
        // A cancel through the API queued the job's `failed` delivery.
        .finally(() => deliveries?.deliver());
    },
    async agent(id) {
      const claimed = await agents.claimed(id);
      if (!claimed) return;
      // Its `started` delivery was queued with it, by whichever process took the request; its run's go out as queued.
      deliveries?.deliver();
      await (await services.forJob(claimed.job.team, claimed.context).agents.jobs()).runClaimed(claimed.job, jobStoreOptions);
    },
    async check(id) {
      const claimed = await checks.claimed(id);
      if (!claimed) return;
      await afterCheck(services.forJob(claimed.team, claimed.context).checks.runQueued(id, claimed.monitorId)).catch(async (error: unknown) => {
        // Never left running: the check ends failed with what stopped it.
        await checks.abandon(id, `the check could not run: ${failureOf(error).error}`, options.now());
        throw error;
      });
    },
    cancelledAmong: (ids) => crawls.cancelledAmong(ids),
  };
  const runner = options.works
    ? startWorkRunner({ db, now: options.now, handlers, maxConcurrent: options.jobConcurrency, onError: (error, what) => log.error({ err: error }, what) })
    : undefined;

  const scheduler =
    options.scheduler && options.works
      ? startScheduler({
          db,
          checks,
          now: options.now,
          maxConcurrent: options.scheduler.maxConcurrent,
          jitterMs: options.scheduler.jitterMs,
          privateTargetsAllowed: (team) => services.privateTargetsAllowed(team),
          ...(options.scheduler.timers && { timers: options.scheduler.timers }),
          run: (claim) => afterCheck(services.forSchedule(claim.monitor.team).checks.runScheduled(claim)),
          onEvent: (event) => log.info({ scheduler: event }, `scheduler: ${event.type} ${event.monitorId}`),
        })
      : undefined;
  // Other processes' schedulers hear of monitor changes through PostgreSQL; without it they look within a minute.
  const unlistenSchedule =
    scheduler && db.listen
      ? db
          .listen(SCHEDULE_CHANNEL, () => void scheduler.wake())
          .catch((error: unknown) => {
            log.error({ err: error }, 'listening for monitor changes (looking every minute instead)');
            return undefined;
          })
      : undefined;

  const ready = recoverJobs().then(async () => {
    void scheduler?.tick();
    await runner;
    deliveries?.deliver();
  });

  return {
    scheduler,
    ready,
    queue: {
      async queued() {
        (await runner)?.wake();
        await announce(db, WORK_CHANNEL);
      },
      abort: (id, reason) => void runner?.then((started) => started.abort(id, reason)),
      monitorsChanged() {
        void scheduler?.wake();
        void announce(db, SCHEDULE_CHANNEL).catch((error: unknown) => log.error({ err: error }, 'announcing a monitor change'));
      },
    },
    async drain() {
      await ready;
      clearInterval(recovering);
      const work = await runner;
      // Queued work not yet claimed stays queued, for another worker or this one's next start.
      await work?.stop();
      await (await unlistenSchedule)?.();
      await scheduler?.stop();
      // Agent runs can take many minutes: they end now, failed with `internal`, as after a crash.
      await services.stopAgents();
      // Crawls may take long too: they get the drain time, then are stopped and say why.
      const drained = (work?.idle() ?? Promise.resolve()).then(() => true);
      const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), options.drainTimeoutMs).unref());
      if (!(await Promise.race([drained, timeout]))) work?.stopAll(SERVER_STOPPED);
      await work?.idle();
      await deliveries?.finish();
      clearInterval(pruning);
      await closeBrowserIfOpen();
    },
  };
}
