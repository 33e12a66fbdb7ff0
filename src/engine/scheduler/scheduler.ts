/**
 * The scheduler: runs each active monitor at its nextRunAt (cron and time zone, DST-correct by
 * croner). A slot is claimed in the database by a compare-and-set of the monitor's nextRunAt
 * before its check starts, so no slot runs twice, across restarts or between two processes
 * (`serve` and `run --due`). After downtime a monitor runs once and its next slot is the next
 * one after now. A slot that comes while the monitor's previous check still runs is recorded
 * as a `skipped_overlap` check. Between runs the process sleeps until the earliest slot.
 */
import type { CheckStore } from '../monitors/check-store.js';
import { monitorStore, nextRunAt, type StoredMonitor } from '../monitors/monitor-store.js';
import type { Db } from '../store/database.js';

export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const REAL_TIMERS: Timers = {
  set: (callback, ms) => setTimeout(callback, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** The longest sleep: a clock jump or a missed wake-up costs at most this much lateness. */
export const MAX_SLEEP_MS = 60_000;

export type SchedulerEvent =
  | { type: 'started'; monitorId: string; slot: string; latenessMs: number }
  | { type: 'skipped'; monitorId: string; slot: string }
  | { type: 'failed'; monitorId: string; slot: string; error: string };

export interface SchedulerOptions {
  db: Db;
  checks: CheckStore;
  now(): Date;
  /** Runs a scheduled check of the monitor for the slot; settles when it has finished. */
  run(monitor: StoredMonitor, slot: string): Promise<unknown>;
  /** Checks running at once, across all monitors; due monitors beyond it wait their turn. */
  maxConcurrent: number;
  /** Up to this much random delay before a check starts, to spread monitors that share a slot. */
  jitterMs?: number;
  random?: () => number;
  timers?: Timers;
  /** Only these teams' monitors (run --due: the local engine's); all when omitted. */
  team?: string;
  onEvent?: (event: SchedulerEvent) => void;
}

interface Row {
  id: string;
  team: string;
  status: 'active';
  definition: string;
  next_run_at: string;
}

/** Active monitors whose slot has come, earliest first, at most `limit`. */
function dueRows(db: Db, now: Date, team: string | undefined, limit = -1): Row[] {
  const sql = `SELECT id, team, status, definition, next_run_at FROM monitors WHERE status = 'active' AND next_run_at IS NOT NULL AND next_run_at <= ? ${team ? 'AND team = ?' : ''} ORDER BY next_run_at LIMIT ?`;
  return db.prepare<unknown[], Row>(sql).all(...(team ? [now.toISOString(), team, limit] : [now.toISOString(), limit]));
}

/**
 * Takes a monitor's slot: moves nextRunAt to the next slot after now, if nobody else moved it
 * first. Returns the monitor as claimed, or undefined when another scheduler has it.
 */
function claimSlot(db: Db, row: Row, now: Date): StoredMonitor | undefined {
  const definition = JSON.parse(row.definition) as StoredMonitor['definition'];
  const next = nextRunAt(definition, 'active', now);
  const claimed = db.prepare("UPDATE monitors SET next_run_at = ? WHERE id = ? AND status = 'active' AND next_run_at = ?").run(next, row.id, row.next_run_at).changes === 1;
  return claimed ? monitorStore(db).find(row.team, row.id) : undefined;
}

const hasRunningCheck = (db: Db, monitorId: string) =>
  db.prepare("SELECT 1 FROM checks WHERE monitor_id = ? AND status IN ('queued', 'running')").get(monitorId) !== undefined;

/**
 * Claims a due monitor's slot. When the monitor is still checking, the slot is recorded as
 * skipped; otherwise the claimed monitor comes back, to be run for `row.next_run_at`.
 */
function claimOrSkip(options: Pick<SchedulerOptions, 'db' | 'checks' | 'onEvent'>, row: Row, now: Date, overlapping: boolean): StoredMonitor | undefined {
  const monitor = claimSlot(options.db, row, now);
  if (!monitor || !overlapping) return monitor;
  options.checks.recordSkipped(monitor, row.next_run_at, now);
  options.onEvent?.({ type: 'skipped', monitorId: row.id, slot: row.next_run_at });
  return undefined;
}

/**
 * `monitor run --due`: every due monitor's slot, once, one check after another (a system cron
 * job should not hit many sites at once), with the same claims and overlap rule as the scheduler.
 */
export async function runDueOnce<T>(options: Pick<SchedulerOptions, 'db' | 'checks' | 'now' | 'team' | 'onEvent'> & { run(monitor: StoredMonitor, slot: string): Promise<T> }): Promise<T[]> {
  const results: T[] = [];
  for (const row of dueRows(options.db, options.now(), options.team)) {
    const now = options.now();
    const monitor = claimOrSkip(options, row, now, hasRunningCheck(options.db, row.id));
    if (!monitor) continue;
    options.onEvent?.({ type: 'started', monitorId: row.id, slot: row.next_run_at, latenessMs: now.getTime() - Date.parse(row.next_run_at) });
    results.push(await options.run(monitor, row.next_run_at));
  }
  return results;
}

export interface Scheduler {
  /** Starts what is due now (as capacity allows) and plans the next wake-up. */
  tick(): void;
  /** Monitors changed (created, resumed, rescheduled): look again now. */
  wake(): void;
  /** Stops planning; waits for running checks. */
  stop(): Promise<void>;
  /** Checks running now, by monitor id. */
  readonly running: ReadonlyMap<string, Promise<unknown>>;
}

export function startScheduler(options: SchedulerOptions): Scheduler {
  const timers = options.timers ?? REAL_TIMERS;
  const random = options.random ?? Math.random;
  const running = new Map<string, Promise<unknown>>();
  let timer: unknown;
  let stopped = false;

  const plan = () => {
    if (stopped) return;
    if (timer !== undefined) timers.clear(timer);
    const now = options.now().getTime();
    const next = options.db
      .prepare<unknown[], { next: string | null }>(`SELECT min(next_run_at) AS next FROM monitors WHERE status = 'active' ${options.team ? 'AND team = ?' : ''}`)
      .get(...(options.team ? [options.team] : []))?.next;
    // Due monitors waiting for capacity are started when a running check ends, not by polling.
    const atCapacity = running.size >= options.maxConcurrent;
    const wait = next && !atCapacity ? Math.min(Math.max(0, Date.parse(next) - now), MAX_SLEEP_MS) : MAX_SLEEP_MS;
    timer = timers.set(tick, wait);
  };

  const start = (monitor: StoredMonitor, slot: string) => {
    const latenessMs = options.now().getTime() - Date.parse(slot);
    const delay = options.jitterMs ? Math.floor(random() * options.jitterMs) : 0;
    const work = (delay > 0 ? new Promise((resolve) => timers.set(resolve as () => void, delay)) : Promise.resolve())
      .then(() => {
        options.onEvent?.({ type: 'started', monitorId: monitor.id, slot, latenessMs });
        return options.run(monitor, slot);
      })
      .catch((error: unknown) => options.onEvent?.({ type: 'failed', monitorId: monitor.id, slot, error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        running.delete(monitor.id);
        if (!stopped) tick();
      });
    running.set(monitor.id, work);
  };

  function tick() {
    if (stopped) return;
    const now = options.now();
    // At capacity nothing can start; the next check to end calls tick again. Otherwise only as
    // many due monitors are read as could start, plus those that may overlap running checks:
    // with a burst of due monitors, every ending check calls tick.
    const free = options.maxConcurrent - running.size;
    if (free <= 0) return plan();
    for (const row of dueRows(options.db, now, options.team, free + running.size)) {
      const overlapping = running.has(row.id) || hasRunningCheck(options.db, row.id);
      if (!overlapping && running.size >= options.maxConcurrent) continue;
      const monitor = claimOrSkip(options, row, now, overlapping);
      if (monitor) start(monitor, row.next_run_at);
    }
    plan();
  }

  return {
    tick,
    wake: tick,
    running,
    async stop() {
      stopped = true;
      if (timer !== undefined) timers.clear(timer);
      while (running.size > 0) await Promise.all([...running.values()]);
    },
  };
}
