/** The scheduler with an injected clock and timers, on SQLite and PostgreSQL: nothing sleeps. */
import assert from 'node:assert/strict';
import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, it } from 'node:test';
import { keyStore } from '../../src/engine/keys/key-store.js';
import { checkStore } from '../../src/engine/monitors/check-store.js';
import { monitorStore } from '../../src/engine/monitors/monitor-store.js';
import {
  runDueOnce,
  startScheduler,
  type ClaimedCheck,
  type Scheduler,
  type SchedulerEvent,
  type SchedulerOptions,
  type Timers,
} from '../../src/engine/scheduler/scheduler.js';
import type { Db } from '../../src/engine/store/database.js';
import type { NormalizedMonitor } from '../../src/spec/monitor.js';
import { forEachDatabase } from '../helpers/postgres.js';

function definition(name: string, cron: string, timezone = 'UTC'): NormalizedMonitor {
  return {
    name,
    schedule: { cron, timezone },
    goal: null,
    judgeEnabled: false,
    retentionDays: 30,
    targets: [{ type: 'scrape', urls: ['https://example.com/'], id: 't' }],
  };
}

/** A clock that moves only when told, and timers that fire only when the clock passes them. */
function fakeTime(start: string) {
  let now = Date.parse(start);
  const pending: { at: number; callback: () => void; id: number }[] = [];
  let ids = 0;
  /** What a fired timer may have set going: awaited before the clock moves on. */
  let settle: () => Promise<unknown> = async () => undefined;
  const timers: Timers & { lastDelay?: number } = {
    set(callback, ms) {
      timers.lastDelay = ms;
      const id = ++ids;
      pending.push({ at: now + ms, callback, id });
      return id;
    },
    clear(handle) {
      const index = pending.findIndex((timer) => timer.id === handle);
      if (index >= 0) pending.splice(index, 1);
    },
  };
  return {
    timers,
    now: () => new Date(now),
    settleWith(wait: () => Promise<unknown>) {
      settle = wait;
    },
    /** Moves the clock, firing timers that come due on the way. */
    async advance(iso: string) {
      const target = Date.parse(iso);
      for (;;) {
        pending.sort((a, b) => a.at - b.at);
        const next = pending[0];
        if (!next || next.at > target) break;
        pending.shift();
        now = Math.max(now, next.at);
        next.callback();
        await settle();
      }
      now = target;
    },
  };
}

async function setup(at: string, db: Db) {
  const time = fakeTime(at);
  const monitors = monitorStore(db);
  const checks = checkStore(db);
  const runs: { name: string; slot: string }[] = [];
  const events: SchedulerEvent[] = [];
  const holds = new Map<string, () => void>();
  const finished = new Map<string, Promise<unknown>>();
  let scheduler: Scheduler | undefined;
  /** A scheduled run: its claimed check runs until the test releases it. */
  const run = (claim: ClaimedCheck) => {
    const { monitor, slot } = claim;
    runs.push({ name: monitor.definition.name, slot });
    const done = (async () => {
      await checks.begin(monitor.id, claim.checkId, time.now());
      await new Promise<void>((resolve) => holds.set(monitor.definition.name, resolve));
      return checks.finish(
        monitor,
        claim.checkId,
        {
          status: 'completed',
          pages: [],
          snapshots: [],
          fingerprints: [],
          summary: { changed: 0, error: 0, new: 0, removed: 0, same: 0, totalPages: 0 },
          error: null,
        },
        time.now(),
      );
    })();
    finished.set(monitor.definition.name, done);
    return done;
  };
  /** Lets the run finish; waits until the scheduler has done what its end sets going. */
  const release = async (name: string) => {
    for (let i = 0; i < 200 && !holds.has(name); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    holds.get(name)?.();
    holds.delete(name);
    await finished.get(name);
    // The run's end starts a claiming round once the scheduler has forgotten the run.
    await new Promise((resolve) => setImmediate(resolve));
    await scheduler?.idle();
  };
  const start = (options: Partial<SchedulerOptions> = {}) => {
    scheduler = startScheduler({ db, checks, now: time.now, run, maxConcurrent: 4, timers: time.timers, onEvent: (e) => events.push(e), ...options });
    const current = scheduler;
    time.settleWith(() => current.idle());
    return current;
  };
  return { db, time, monitors, checks, runs, events, run, release, start };
}

forEachDatabase('scheduler', ({ open }) => {
  let db: Db;
  beforeEach(async () => {
    db = await open();
  });
  afterEach(() => db.close());

  it('runs a monitor at its slot once, sleeps until the next slot, and survives a restart without rerunning', async () => {
    const t = await setup('2026-11-21T09:59:00Z', db);
    const m = await t.monitors.insert('local', definition('Hourly', '0 * * * *'), t.time.now());
    assert.equal(m.nextRunAt, '2026-11-21T10:00:00.000Z');
    const scheduler = t.start({ maxConcurrent: 4, timers: t.time.timers });
    await scheduler.tick();
    assert.equal(t.runs.length, 0);
    assert.equal(t.time.timers.lastDelay, 60_000, 'sleeps until the slot');
    await t.time.advance('2026-11-21T10:00:00Z');
    assert.deepEqual(t.runs, [{ name: 'Hourly', slot: '2026-11-21T10:00:00.000Z' }]);
    await t.release('Hourly');
    assert.equal((await t.monitors.find('local', m.id))!.nextRunAt, '2026-11-21T11:00:00.000Z');
    await scheduler.stop();

    // A new process at the same instant finds the slot taken.
    const again = t.start({ maxConcurrent: 4, timers: t.time.timers });
    await again.tick();
    assert.equal(t.runs.length, 1);
    await again.stop();
    const [check] = await t.checks.list(m.id);
    assert.equal(check!.trigger, 'scheduled');
    assert.equal(check!.scheduledFor, '2026-11-21T10:00:00.000Z');
  });

  it('after downtime runs a missed monitor once, then waits for the next slot after now', async () => {
    const t = await setup('2026-11-21T09:30:00Z', db);
    const m = await t.monitors.insert('local', definition('Hourly', '0 * * * *'), t.time.now());
    await t.time.advance('2026-11-21T14:20:00Z'); // five slots passed with no scheduler running
    const scheduler = t.start({ maxConcurrent: 4, timers: t.time.timers });
    await scheduler.tick();
    assert.deepEqual(
      t.runs.map((r) => r.slot),
      ['2026-11-21T10:00:00.000Z'],
    );
    assert.equal((t.events[0] as { latenessMs: number }).latenessMs, (4 * 60 + 20) * 60_000);
    await t.release('Hourly');
    assert.equal((await t.monitors.find('local', m.id))!.nextRunAt, '2026-11-21T15:00:00.000Z');
    await scheduler.stop();
  });

  it('records a slot that comes while the previous check still runs as skipped_overlap', async () => {
    const t = await setup('2026-11-21T09:59:00Z', db);
    const m = await t.monitors.insert('local', definition('Slow', '*/5 * * * *'), t.time.now());
    const scheduler = t.start({ maxConcurrent: 4, timers: t.time.timers });
    await scheduler.tick();
    await t.time.advance('2026-11-21T10:00:00Z');
    await t.time.advance('2026-11-21T10:05:00Z'); // still running
    assert.equal(t.runs.length, 1);
    const skipped = (await t.checks.list(m.id)).find((c) => c.status === 'skipped_overlap');
    assert.equal(skipped?.scheduledFor, '2026-11-21T10:05:00.000Z');
    await t.release('Slow');
    await t.time.advance('2026-11-21T10:10:00Z');
    assert.deepEqual(
      t.runs.map((r) => r.slot),
      ['2026-11-21T10:00:00.000Z', '2026-11-21T10:10:00.000Z'],
    );
    await t.release('Slow');
    await scheduler.stop();
  });

  it('claims a round of slots in as many statements for 40 due monitors as for 4 (a round trip each was what bounded a worker across a network)', async () => {
    let statements = 0;
    const counter: KyselyPlugin = {
      transformQuery: ({ node }) => {
        statements++;
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const t = await setup('2026-11-21T09:59:00Z', db);
    const counted: Db = { ...db, query: db.query.withPlugin(counter) };
    const insert = async (from: number, to: number) => {
      for (let i = from; i < to; i++) await t.monitors.insert('local', definition(`M${i}`, '0 * * * *'), t.time.now());
    };
    /** The statements of the claiming round at `iso`, and the checks it started (the idle wake-ups before it not counted). */
    const round = async (iso: string) => {
      await t.time.advance(new Date(Date.parse(iso) - 1000).toISOString());
      const before = statements;
      const started = t.runs.length;
      await t.time.advance(iso);
      return { statements: statements - before, started: t.runs.length - started };
    };
    await insert(0, 4);
    const scheduler = t.start({ db: counted, maxConcurrent: 100, timers: t.time.timers });
    await scheduler.tick();
    const four = await round('2026-11-21T10:00:00Z');
    for (const { name } of t.runs.splice(0)) await t.release(name);
    await insert(4, 40);
    const forty = await round('2026-11-21T11:00:00Z');
    assert.deepEqual([four.started, forty.started], [4, 40]);
    assert.ok(four.statements > 0);
    assert.equal(forty.statements, four.statements, `${forty.statements} statements for 40 slots, ${four.statements} for 4`);
    for (const { name } of t.runs) await t.release(name);
    await scheduler.stop();
  });

  it('keeps to the global concurrency cap, starting waiting monitors as checks end', async () => {
    const t = await setup('2026-11-21T09:59:00Z', db);
    for (const name of ['A', 'B', 'C']) await t.monitors.insert('local', definition(name, '0 * * * *'), t.time.now());
    const scheduler = t.start({ maxConcurrent: 2, timers: t.time.timers });
    await scheduler.tick();
    await t.time.advance('2026-11-21T10:00:00Z');
    assert.equal(scheduler.running.size, 2);
    const first = t.runs.map((r) => r.name);
    await t.release(first[0]!);
    assert.equal(t.runs.length, 3, 'the third starts when one ends');
    assert.equal(t.runs[2]!.slot, '2026-11-21T10:00:00.000Z', 'for the slot it waited for');
    await t.release(first[1]!);
    await t.release(t.runs[2]!.name);
    await scheduler.stop();
  });

  it("shares the check slots between teams: one team's many monitors due at once leave room for another team's one", async () => {
    const t = await setup('2026-11-21T09:50:00Z', db);
    await keyStore(db).create('acme', t.time.now());
    await keyStore(db).create('beta', t.time.now());
    // Acme's ten monitors are due a minute before beta's one, and all are overdue together.
    for (let i = 0; i < 10; i++) await t.monitors.insert('acme', definition(`acme-${i}`, '58 9 * * *'), t.time.now());
    await t.monitors.insert('beta', definition('beta', '59 9 * * *'), t.time.now());
    await t.time.advance('2026-11-21T10:00:00Z');
    const scheduler = t.start({ maxConcurrent: 4, timers: t.time.timers });
    await scheduler.tick();
    const first = t.runs.map((run) => run.name);
    assert.ok(first.includes('beta'), `beta's check starts in the first round: ${first.join(' ')}`);
    assert.equal(first.filter((name) => name.startsWith('acme')).length, 3, 'acme holds three of the four slots');
    // A slot freed by acme goes back to acme (beta has nothing waiting), up to its three.
    await t.release(first.find((name) => name.startsWith('acme'))!);
    assert.equal(scheduler.running.size, 4);
    assert.equal(t.runs.length, 5);
    // Released one by one, every acme monitor runs in its turn.
    for (let i = 0; i < t.runs.length; i++) await t.release(t.runs[i]!.name);
    assert.equal(t.runs.length, 11);
    await scheduler.stop();
  });

  it('skips paused and deleted monitors, and resumes at the next slot', async () => {
    const t = await setup('2026-11-21T09:59:00Z', db);
    const m = await t.monitors.insert('local', definition('Paused', '0 * * * *'), t.time.now());
    await t.monitors.setStatus('local', m.id, 'paused', t.time.now());
    const scheduler = t.start({ maxConcurrent: 4, timers: t.time.timers });
    await scheduler.tick();
    await t.time.advance('2026-11-21T10:30:00Z');
    assert.equal(t.runs.length, 0);
    await t.monitors.setStatus('local', m.id, 'active', t.time.now());
    await scheduler.wake();
    await t.time.advance('2026-11-21T11:00:00Z');
    assert.deepEqual(
      t.runs.map((r) => r.slot),
      ['2026-11-21T11:00:00.000Z'],
    );
    await t.release('Paused');
    await scheduler.stop();
  });

  it('follows the zone across a DST change: 09:00 in Paris is 08:00 UTC, then 07:00 UTC', async () => {
    const t = await setup('2026-03-28T07:59:00Z', db);
    await t.monitors.insert('local', definition('Morning', '0 9 * * *', 'Europe/Paris'), t.time.now());
    const scheduler = t.start({ maxConcurrent: 4, timers: t.time.timers });
    await scheduler.tick();
    await t.time.advance('2026-03-28T08:00:00Z');
    await t.release('Morning');
    await t.time.advance('2026-03-29T07:00:00Z');
    assert.deepEqual(
      t.runs.map((r) => r.slot),
      ['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z'],
    );
    await t.release('Morning');
    await scheduler.stop();
  });

  it('delays starts by the jitter, within its bound', async () => {
    const t = await setup('2026-11-21T09:59:00Z', db);
    await t.monitors.insert('local', definition('Jittered', '0 * * * *'), t.time.now());
    const scheduler = t.start({ maxConcurrent: 4, timers: t.time.timers, jitterMs: 10_000, random: () => 0.5 });
    await scheduler.tick();
    await t.time.advance('2026-11-21T10:00:04Z');
    assert.equal(t.runs.length, 0, 'not before the jitter');
    await t.time.advance('2026-11-21T10:00:05Z');
    assert.deepEqual(t.runs, [{ name: 'Jittered', slot: '2026-11-21T10:00:00.000Z' }]);
    await t.release('Jittered');
    await scheduler.stop();
  });

  it('run --due shares the claims: a slot taken by one is not run by the other', async () => {
    const t = await setup('2026-11-21T10:00:30Z', db);
    await t.monitors.insert('local', definition('Shared', '0 * * * *'), new Date('2026-11-21T09:30:00Z'));
    const ran: string[] = [];
    const first = await runDueOnce({
      db: t.db,
      checks: t.checks,
      now: t.time.now,
      run: async ({ monitor, slot }) => void ran.push(`${monitor.definition.name}@${slot}`),
    });
    const second = await runDueOnce({ db: t.db, checks: t.checks, now: t.time.now, run: async () => void ran.push('again') });
    assert.equal(first.length, 1);
    assert.equal(second.length, 0);
    assert.deepEqual(ran, ['Shared@2026-11-21T10:00:00.000Z']);
  });
});
