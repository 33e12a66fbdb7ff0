/**
 * The work queue in the store, on SQLite and PostgreSQL: queued rows wait without a holder (no
 * lease runs out), are claimed oldest first and each by one claimer, count against their key
 * until they end, and PostgreSQL tells listeners when work is queued.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { agentJobs } from '../../src/engine/agent/agent-jobs.js';
import { agentStore } from '../../src/engine/agent/agent-store.js';
import { crawlJobStore } from '../../src/engine/crawl/crawl-jobs.js';
import type { ScrapeContext } from '../../src/engine/scrape/scrape.js';
import { keyStore } from '../../src/engine/keys/key-store.js';
import { WORKER_ID } from '../../src/engine/store/leases.js';
import { announce, claimQueued as claimFairly, hasQueued, unfinishedOfKey, WORK_CHANNEL } from '../../src/engine/store/work-queue.js';
import { forEachDatabase } from '../helpers/postgres.js';
import { sqlRows } from '../helpers/sql.js';
import { waitFor } from '../helpers/wait.js';

/** The ids claimed for `room` free slots of a worker with that many. */
const claimQueued = async (db: Parameters<typeof claimFairly>[0], room: number, now: Date) =>
  (await claimFairly(db, { slots: room, room, now })).map((work) => work.id);
const context = (keyId: string) => ({ keyId, origin: 'http://127.0.0.1:3002', privateTargetsAllowed: false });

forEachDatabase('work queue', ({ kind, open }) => {
  it('claims queued jobs oldest first, each once, and counts them against their key until they end', async () => {
    const db = await open();
    const crawls = crawlJobStore(db);
    const start = Date.parse('2026-11-22T10:00:00Z');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await crawls.enqueue('acme', `https://example.com/${i}`, { limit: 1 }, new Date(start + i * 1000), context(i < 3 ? 'k1' : 'k2'))).id);
    assert.equal(await hasQueued(db), true);
    assert.deepEqual([await unfinishedOfKey(db, 'k1'), await unfinishedOfKey(db, 'k2'), await unfinishedOfKey(db, 'other')], [3, 2, 0]);
    // A queued job has no holder: recovery, however late, leaves it waiting.
    assert.equal(await crawls.recoverInterrupted(new Date(start + 86_400_000)), 0);

    const first = await claimQueued(db, 2, new Date(start));
    assert.deepEqual(first, ids.slice(0, 2), 'the two oldest');
    // Two claimers at once share the rest without overlap.
    const [a, b] = await Promise.all([claimQueued(db, 3, new Date(start)), claimQueued(db, 3, new Date(start))]);
    assert.deepEqual([...a, ...b].sort(), ids.slice(2).sort());
    assert.equal(await hasQueued(db), false);
    assert.deepEqual(await claimQueued(db, 3, new Date(start)), []);
    const held = await sqlRows<{ lease_owner: string }>(db, 'SELECT lease_owner FROM crawl_jobs');
    assert.ok(held.every((row) => row.lease_owner === WORKER_ID));

    const claimed = (await crawls.claimed(ids[0]!))!;
    assert.deepEqual(claimed.context, context('k1'));
    assert.equal(claimed.kind, 'crawl');
    await crawls.finish(ids[0]!, 'completed');
    assert.equal(await crawls.cancel(ids[1]!), true);
    assert.deepEqual(await crawls.cancelledAmong(ids), [ids[1]]);
    assert.equal(await unfinishedOfKey(db, 'k1'), 1, 'ended jobs no longer count');
    assert.equal(await crawls.claimed(ids[1]!), undefined, 'a cancelled job is not run');
    await db.close();
  });

  it("shares a worker's slots fairly between teams: a team that queued one job after another's twenty is served in the same round", async () => {
    const db = await open();
    const crawls = crawlJobStore(db);
    await keyStore(db).create('acme', new Date());
    await keyStore(db).create('beta', new Date());
    const start = Date.parse('2026-11-22T10:00:00Z');
    const acme: string[] = [];
    for (let i = 0; i < 20; i++)
      acme.push((await crawls.enqueue('acme', `https://example.com/${i}`, { limit: 1 }, new Date(start + i * 1000), context('ka'))).id);
    const beta = (await crawls.enqueue('beta', 'https://example.org/', { limit: 1 }, new Date(start + 60_000), context('kb'))).id;

    // A worker with 8 slots: beta's one job first (nothing of beta runs), acme's oldest after it, acme held to 6.
    const first = await claimFairly(db, { slots: 8, room: 8, now: new Date(start) });
    assert.deepEqual(
      first.map((work) => work.id),
      [acme[0], beta, ...acme.slice(1, 6)],
    );
    assert.deepEqual(
      first.map((work) => work.team),
      ['acme', 'beta', 'acme', 'acme', 'acme', 'acme', 'acme'],
    );
    // While acme holds its six here, a second worker's round follows the same rule: what runs in
    // the first worker counts for the order, and acme takes at most six of the second's slots too.
    const gamma = (await crawls.enqueue('gamma', 'https://example.net/', { limit: 1 }, new Date(start + 120_000), context('kc'))).id;
    const second = await claimFairly(db, { slots: 8, room: 8, now: new Date(start) });
    assert.equal(second[0]!.id, gamma, 'the team with nothing running anywhere first');
    assert.deepEqual(
      second.slice(1).map((work) => work.id),
      acme.slice(6, 12),
    );
    await db.close();
  });

  it('gives a lone team every slot: nothing is kept back while no other team holds a key', async () => {
    const db = await open();
    const crawls = crawlJobStore(db);
    await keyStore(db).create('acme', new Date());
    for (let i = 0; i < 6; i++) await crawls.enqueue('acme', `https://example.com/${i}`, { limit: 1 }, new Date(Date.now() + i), context('ka'));
    assert.equal((await claimFairly(db, { slots: 4, room: 4, now: new Date() })).length, 4);
    await db.close();
  });

  it(kind === 'postgres' ? 'tells listeners of queued work through NOTIFY' : 'has no notifications: workers poll', async () => {
    const db = await open();
    if (kind === 'sqlite') {
      assert.equal(db.listen, undefined);
      await announce(db, WORK_CHANNEL);
      return db.close();
    }
    let told = 0;
    const stop = await db.listen!(WORK_CHANNEL, () => told++);
    await announce(db, WORK_CHANNEL);
    await waitFor(async () => (told > 0 ? told : undefined));
    assert.equal(told, 1);
    await stop();
    await announce(db, WORK_CHANNEL);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(told, 1, 'not after it stopped listening');
    await assert.rejects(
      db.listen!('bad channel; drop table monitors', () => undefined),
      /not a channel name/,
    );
    await db.close();
  });

  it('never claims work a process runs itself: only queued rows are claimable', async () => {
    const db = await open();
    const crawls = crawlJobStore(db);
    const running = await crawls.start('acme', 'https://example.com/', {}, new Date());
    assert.equal(await hasQueued(db), false);
    assert.deepEqual(await claimQueued(db, 5, new Date()), []);
    assert.deepEqual(await sqlRows(db, 'SELECT lease_owner FROM crawl_jobs WHERE id = ?', running.id), [{ lease_owner: WORKER_ID }]);
    await db.close();
  });

  it('an agent job queued by a process with a model, claimed by one without: failed with the reason, its trace closed', async () => {
    const db = await open();
    const queued = await agentStore(db).create('acme', { prompt: 'find the price' }, 'scripted', new Date(), context('k1'));
    assert.deepEqual([queued.status, await unfinishedOfKey(db, 'k1')], ['processing', 1]);
    assert.deepEqual(await claimQueued(db, 5, new Date()), [queued.id]);
    // A worker without llm configured (the processes were not given the same configuration).
    const worker = agentJobs({ db, team: 'acme', now: () => new Date(), scrape: {} as ScrapeContext });
    await worker.runClaimed((await agentStore(db).claimed(queued.id))!.job);
    const ended = await worker.get(queued.id);
    assert.equal(ended.status, 'failed');
    assert.match(ended.error ?? '', /^the worker could not run the job: no model is configured for agent jobs/);
    const { events } = await worker.trace(queued.id);
    assert.deepEqual(
      events.map((event) => [event.type, (event as { outcome?: string }).outcome]),
      [['run.finished', 'failed']],
    );
    assert.equal(await unfinishedOfKey(db, 'k1'), 0);
    await db.close();
  });
});
