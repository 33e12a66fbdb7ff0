/**
 * The scheduler: runs each active monitor at its nextRunAt (cron and time zone, DST-correct by
 * croner). Due slots are claimed in one transaction that moves each monitor's nextRunAt on and
 * writes the slot's check, queued and held by this worker under a lease (leases.ts); on
 * PostgreSQL the due monitors are read FOR UPDATE SKIP LOCKED, so that any number of workers
 * share them and each slot is claimed by exactly one, and a worker claims no more than it has
 * capacity for. After downtime a monitor runs once and its next slot is the next one after now.
 * A slot that comes while the monitor's previous check still runs is recorded as a
 * `skipped_overlap` check. A worker that stops mid-check leaves a check that another worker
 * fails when its lease runs out: a slot is never lost without a trace, and never run twice.
 * Between runs the process sleeps until the earliest slot.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { capPerParty, countByParty, pickFairly } from '../../lib/fair-share.js';
import { monitorsChecking, takeSlots, type CheckStore, type ClaimedCheck, type SlotClaim } from '../monitors/check-store.js';
import { monitorFromRow, nextRunAt, type StoredMonitor } from '../monitors/monitor-store.js';
import type { Db } from '../store/database.js';
import { leaseDuration } from '../store/leases.js';
import { runningByTeam, teamsSharing } from '../store/work-queue.js';

export type { ClaimedCheck };

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
  /** Runs the claimed check of a slot; settles when it has finished. */
  run(claim: ClaimedCheck): Promise<unknown>;
  /** Checks running at once, across all monitors; due monitors beyond it wait their turn. */
  maxConcurrent: number;
  /** Up to this much random delay before a check starts, to spread monitors that share a slot. */
  jitterMs?: number;
  random?: () => number;
  timers?: Timers;
  /** Only these teams' monitors (run --due: the local engine's); all when omitted. */
  team?: string;
  /** The rule of the webhooks that announce checks found interrupted, per monitor team (none private when omitted). */
  privateTargetsAllowed?: (team: string) => boolean;
  onEvent?: (event: SchedulerEvent) => void;
}

/**
 * Claims due slots in one transaction of a few statements, however many slots it takes: at most
 * `capacity` checks, plus the slots of monitors still checking, which are recorded as skipped. `local` names the monitors this worker is
 * running itself (their checks may not be written yet). Across teams (serve's scheduler) the due
 * monitors are taken fairly (fair-share.ts): the team with the fewest checks running first, each
 * team's most overdue first, and no team more than `capPerTeam` of this worker's check slots, so
 * that one team's thousand monitors due at nine do not hold back another team's one.
 */
async function claimDue(
  db: Db,
  now: Date,
  options: { team?: string | undefined; capacity: number; local?: ReadonlyMap<string, string>; slots?: number },
): Promise<{ claimed: ClaimedCheck[]; skipped: { monitorId: string; slot: string }[] }> {
  const wanted = options.capacity + (options.local?.size ?? 0) + 1;
  const runningHere = countByParty(options.local?.values() ?? [], (team) => team);
  // Read before the transaction: on SQLite it holds the one writer, and these need none.
  const shared =
    options.team === undefined
      ? {
          everywhere: db.kind === 'postgres' ? new Map<string, number>() : await runningByTeam(db, ['checks']),
          cap: capPerParty(options.slots ?? options.capacity, await teamsSharing(db)),
        }
      : undefined;
  return db.query.transaction().execute(async (trx) => {
    const due = () =>
      trx.selectFrom('monitors').selectAll().where('status', '=', 'active').where('next_run_at', 'is not', null).where('next_run_at', '<=', now.toISOString());
    let rows;
    if (options.team !== undefined) {
      rows = await due()
        .where('team', '=', options.team)
        .orderBy('next_run_at')
        .limit(wanted)
        .$if(db.kind === 'postgres', (query) => query.forUpdate().skipLocked())
        .execute();
    } else {
      // Each team's most overdue monitors, in the order a fair share starts them; then those rows, locked.
      const { rows: ranked } = await sql<{ id: string; team: string }>`select id, team from (
          select id, team, next_run_at, row_number() over (partition by team order by next_run_at) as position from monitors
          where status = 'active' and next_run_at is not null and next_run_at <= ${now.toISOString()}
        ) ranked where position <= ${wanted} order by next_run_at`.execute(trx);
      const order = pickFairly(ranked, {
        room: wanted,
        capPerParty: Number.POSITIVE_INFINITY,
        partyOf: (row) => row.team,
        runningHere,
        // On PostgreSQL another worker may commit its claims between a count read before the
        // list and the list: its monitors gone from the list, its checks not yet counted, this
        // worker would share its slots as if the other ran nothing. Counted after the list,
        // the counts are at least as new as the list (a newer count only makes a claim smaller).
        runningEverywhere: db.kind === 'postgres' ? await runningByTeam(db, ['checks']) : shared!.everywhere,
      }).map((row) => row.id);
      const locked =
        order.length === 0
          ? []
          : await due()
              .where('id', 'in', order)
              .$if(db.kind === 'postgres', (query) => query.forUpdate().skipLocked())
              .execute();
      const byId = new Map(locked.map((row) => [row.id, row]));
      rows = order.flatMap((id) => byId.get(id) ?? []);
    }
    // What the round takes, decided in memory; then taken in two statements (takeSlots).
    const checking = await monitorsChecking(
      trx,
      rows.map((row) => row.id),
    );
    const slots: (SlotClaim & { monitor: StoredMonitor })[] = [];
    let claiming = 0;
    for (const row of rows) {
      const overlapping = options.local?.has(row.id) || checking.has(row.id);
      const teamFull = (runningHere.get(row.team) ?? 0) >= (shared?.cap ?? Number.POSITIVE_INFINITY);
      if (!overlapping && (claiming >= options.capacity || teamFull)) continue;
      const monitor = monitorFromRow(row);
      slots.push({
        monitor,
        monitorId: row.id,
        slot: row.next_run_at!,
        next: nextRunAt(monitor.definition, 'active', now),
        checkId: randomUUID(),
        skipped: overlapping,
      });
      if (!overlapping) {
        claiming++;
        runningHere.set(row.team, (runningHere.get(row.team) ?? 0) + 1);
      }
    }
    const taken = await takeSlots(trx, slots, now);
    const claimed: ClaimedCheck[] = [];
    const skipped: { monitorId: string; slot: string }[] = [];
    for (const { monitor, slot, checkId, skipped: overlapping } of slots) {
      if (!taken.has(monitor.id)) continue;
      if (overlapping) skipped.push({ monitorId: monitor.id, slot });
      else claimed.push({ monitor, slot, checkId });
    }
    return { claimed, skipped };
  });
}

/**
 * `monitor run --due`: every due monitor's slot, once, one check after another (a system cron
 * job should not hit many sites at once), with the same claims and overlap rule as the scheduler.
 */
export async function runDueOnce<T>(
  options: Pick<SchedulerOptions, 'db' | 'checks' | 'now' | 'team' | 'onEvent' | 'privateTargetsAllowed'> & { run(claim: ClaimedCheck): Promise<T> },
): Promise<T[]> {
  const results: T[] = [];
  await options.checks.recoverInterrupted(options.now(), options.privateTargetsAllowed);
  for (;;) {
    const now = options.now();
    const { claimed, skipped } = await claimDue(options.db, now, { team: options.team, capacity: 1 });
    for (const skip of skipped) options.onEvent?.({ type: 'skipped', ...skip });
    const [claim] = claimed;
    if (!claim) {
      if (skipped.length > 0) continue;
      return results;
    }
    options.onEvent?.({ type: 'started', monitorId: claim.monitor.id, slot: claim.slot, latenessMs: now.getTime() - Date.parse(claim.slot) });
    results.push(await options.checks.holding(options.run(claim)));
  }
}

export interface Scheduler {
  /** Starts what is due now (as capacity allows) and plans the next wake-up; settles when done. */
  tick(): Promise<void>;
  /** Monitors changed (created, resumed, rescheduled): look again now. */
  wake(): Promise<void>;
  /** Settles when no claiming round is under way or asked for. */
  idle(): Promise<void>;
  /** Stops planning; waits for running checks. */
  stop(): Promise<void>;
  /** Checks running now, by monitor id. */
  readonly running: ReadonlyMap<string, Promise<unknown>>;
}

export function startScheduler(options: SchedulerOptions): Scheduler {
  const timers = options.timers ?? REAL_TIMERS;
  const random = options.random ?? Math.random;
  const running = new Map<string, Promise<unknown>>();
  /** The team of each monitor running here: its share of the check slots. */
  const teams = new Map<string, string>();
  let timer: unknown;
  let stopped = false;
  // Claiming rounds run one after another; ticks asked for while one waits to begin share it.
  let current: Promise<void> = Promise.resolve();
  let waiting: Promise<void> | undefined;
  let lastRecovery = 0;

  const plan = async () => {
    if (stopped) return;
    if (timer !== undefined) timers.clear(timer);
    const now = options.now().getTime();
    const next = (
      await options.db.query
        .selectFrom('monitors')
        .select((eb) => eb.fn.min('next_run_at').as('next'))
        .where('status', '=', 'active')
        .$if(options.team !== undefined, (query) => query.where('team', '=', options.team!))
        .executeTakeFirst()
    )?.next;
    if (stopped) return;
    // Due monitors waiting for capacity are started when a running check ends, not by polling.
    const atCapacity = running.size >= options.maxConcurrent;
    const wait = next && !atCapacity ? Math.min(Math.max(0, Date.parse(next) - now), MAX_SLEEP_MS) : MAX_SLEEP_MS;
    timer = timers.set(() => void tick(), wait);
  };

  const start = (claim: ClaimedCheck) => {
    const { monitor, slot } = claim;
    const latenessMs = options.now().getTime() - Date.parse(slot);
    const delay = options.jitterMs ? Math.floor(random() * options.jitterMs) : 0;
    const work = (delay > 0 ? new Promise((resolve) => timers.set(resolve as () => void, delay)) : Promise.resolve())
      .then(() => {
        options.onEvent?.({ type: 'started', monitorId: monitor.id, slot, latenessMs });
        return options.run(claim);
      })
      .catch((error: unknown) =>
        options.onEvent?.({ type: 'failed', monitorId: monitor.id, slot, error: error instanceof Error ? error.message : String(error) }),
      )
      .finally(() => {
        running.delete(monitor.id);
        teams.delete(monitor.id);
        if (!stopped) void tick();
      });
    running.set(monitor.id, options.checks.holding(work));
    teams.set(monitor.id, monitor.team);
  };

  async function claimAndStart() {
    const now = options.now();
    // Checks of workers that stopped hold their monitors: they are failed once their lease runs out.
    if (now.getTime() - lastRecovery >= leaseDuration() / 2) {
      lastRecovery = now.getTime();
      await options.checks.recoverInterrupted(now, options.privateTargetsAllowed);
    }
    // At capacity nothing can start; the next check to end calls tick again. Otherwise as many
    // due slots are claimed as could start, and those of monitors still checking are skipped.
    const capacity = options.maxConcurrent - running.size;
    if (capacity > 0) {
      const { claimed, skipped } = await claimDue(options.db, now, {
        team: options.team,
        capacity,
        local: new Map(teams),
        slots: options.maxConcurrent,
      });
      for (const skip of skipped) options.onEvent?.({ type: 'skipped', ...skip });
      for (const claim of claimed) start(claim);
    }
    await plan();
  }

  function tick(): Promise<void> {
    if (stopped) return current;
    if (waiting) return waiting;
    const round = current.then(() => {
      waiting = undefined;
      if (stopped) return undefined;
      return claimAndStart().catch((error: unknown) => {
        // The database may be away for a moment: try again soon.
        options.onEvent?.({
          type: 'failed',
          monitorId: '',
          slot: '',
          error: `claiming due monitors: ${error instanceof Error ? error.message : String(error)}`,
        });
        if (!stopped) timer = timers.set(tick, Math.min(MAX_SLEEP_MS, 5_000));
      });
    });
    waiting = round;
    current = round;
    return round;
  }

  return {
    tick,
    wake: tick,
    idle: () => current,
    running,
    async stop() {
      stopped = true;
      if (timer !== undefined) timers.clear(timer);
      await current;
      while (running.size > 0) await Promise.all([...running.values()]);
    },
  };
}
