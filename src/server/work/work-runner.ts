/**
 * The worker's side of the work queue (engine/store/work-queue.ts), for worker.ts: crawls, batch scrapes,
 * agent jobs and manual checks that any serve process's API queued are claimed here, as many
 * as this process has room for (`--job-concurrency`), shared fairly between teams: the team with
 * the least running first, its oldest work first, and while other teams hold keys no team takes
 * more than three quarters of the slots, so that a team's first job starts at once. A worker looks for work when
 * it is told (its own API queued some, PostgreSQL's NOTIFY, a run ended) and every POLL_MS
 * besides, so work queued while no notification could reach it is found all the same. Crawls and
 * batches cancelled through any process are stopped here within CANCEL_POLL_MS.
 */
import type { Db } from '../../engine/store/database.js';
import { countByParty } from '../../lib/fair-share.js';
import { claimQueued, hasQueued, WORK_CHANNEL, type QueueTable } from '../../engine/store/work-queue.js';

/** How often a worker looks for queued work it was not told of. */
const POLL_MS = { sqlite: 1_000, postgres: 5_000 } as const;
/** How often running crawls and batches are checked for a cancel made through another process. */
const CANCEL_POLL_MS = 500;

export interface WorkHandlers {
  /** Runs a claimed crawl or batch job until it ends; `signal` stops it with a reason. */
  crawl(id: string, signal: AbortSignal): Promise<void>;
  agent(id: string): Promise<void>;
  check(id: string): Promise<void>;
  /** Of these crawl and batch jobs, those cancelled since they started. */
  cancelledAmong(ids: readonly string[]): Promise<string[]>;
}

export interface WorkRunnerOptions {
  db: Db;
  now(): Date;
  maxConcurrent: number;
  handlers: WorkHandlers;
  onError(error: unknown, what: string): void;
}

export interface WorkRunner {
  /** Looks for queued work now (this process queued some, or was told of some). */
  wake(): void;
  /** Stops a running crawl or batch of this process at once (it was cancelled here). */
  abort(id: string, reason: string): void;
  /** Claims nothing more; running work goes on. */
  stop(): Promise<void>;
  /** Stops every running crawl and batch with the reason. */
  stopAll(reason: string): void;
  /** Settles when the work running now has ended. */
  idle(): Promise<void>;
  readonly running: ReadonlyMap<string, { table: QueueTable; team: string; done: Promise<void> }>;
}

export async function startWorkRunner(options: WorkRunnerOptions): Promise<WorkRunner> {
  const { db, handlers } = options;
  const running = new Map<string, { table: QueueTable; team: string; done: Promise<void>; controller: AbortController }>();
  let stopped = false;
  let round: Promise<void> | undefined;
  let again = false;

  const start = (table: QueueTable, id: string, team: string) => {
    const controller = new AbortController();
    const work = table === 'crawl_jobs' ? handlers.crawl(id, controller.signal) : table === 'agent_jobs' ? handlers.agent(id) : handlers.check(id);
    const done = work
      .catch((error: unknown) => options.onError(error, `running queued work ${id}`))
      .finally(() => {
        running.delete(id);
        wake();
      });
    running.set(id, { table, team, done, controller });
  };

  async function claim(): Promise<void> {
    if (stopped || running.size >= options.maxConcurrent || !(await hasQueued(db))) return;
    const room = options.maxConcurrent - running.size;
    const runningHere = countByParty(running.values(), (work) => work.team);
    for (const work of await claimQueued(db, { slots: options.maxConcurrent, room, now: options.now(), runningHere })) {
      start(work.table, work.id, work.team);
    }
  }

  /** One claiming round at a time; a wake during a round asks for one more after it. */
  function wake(): void {
    if (stopped) return;
    if (round) {
      again = true;
      return;
    }
    round = claim()
      .catch((error: unknown) => options.onError(error, 'claiming queued work'))
      .finally(() => {
        round = undefined;
        if (again) {
          again = false;
          wake();
        }
      });
  }

  const polling = setInterval(wake, POLL_MS[db.kind]).unref();
  const watchingCancels = setInterval(() => {
    const jobs = [...running].filter(([, work]) => work.table === 'crawl_jobs').map(([id]) => id);
    if (jobs.length === 0) return;
    void handlers.cancelledAmong(jobs).then(
      (ids) => {
        for (const id of ids) running.get(id)?.controller.abort('cancelled');
      },
      (error: unknown) => options.onError(error, 'looking for cancelled jobs'),
    );
  }, CANCEL_POLL_MS).unref();
  // PostgreSQL tells workers of queued work at once; without it they find it by polling.
  const unlisten = db.listen
    ? await db.listen(WORK_CHANNEL, wake).catch((error: unknown) => {
        options.onError(error, 'listening for queued work (polling instead)');
        return undefined;
      })
    : undefined;
  wake();

  return {
    wake,
    running,
    abort: (id, reason) => running.get(id)?.controller.abort(reason),
    async stop() {
      stopped = true;
      clearInterval(polling);
      await unlisten?.();
      await round;
    },
    stopAll(reason) {
      for (const work of running.values()) if (work.table === 'crawl_jobs') work.controller.abort(reason);
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running.values()].map((work) => work.done));
      // Cancels are watched for as long as something may run.
      if (stopped) clearInterval(watchingCancels);
    },
  };
}
