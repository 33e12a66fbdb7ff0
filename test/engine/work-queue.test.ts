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
import { WORKER_ID } from '../../src/engine/store/leases.js';
import { announce, claimQueued, hasQueued, unfinishedOfKey, WORK_CHANNEL } from '../../src/engine/store/work-queue.js';
import { forEachDatabase } from '../helpers/postgres.js';
import { sqlRows } from '../helpers/sql.js';

const context = (keyId: string) => ({ keyId, origin: 'http://127.0.0.1:3002', privateTargetsAllowed: false });

forEachDatabase('work queue', ({ kind, open }) => {
  it('claims queued jobs oldest first, each once, and counts them against their key until they end', async () => {
    const db = await open();
    const crawls = crawlJobStore(db);
    const start = Date.parse('2026-11-22T10:00:00Z');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await crawls.enqueue('acme', `https://example.com/${i}`, { limit: 1 }, new Date(start + i * 1000), context(i < 3 ? 'k1' : 'k2'))).id);
    assert.equal(await hasQueued(db), true);
    assert.deepEqual([await unfinishedOfKey(db, 'k1'), await unfinishedOfKey(db, 'k2'), await unfinishedOfKey(db, 'other')], [3, 2, 0]);
    // A queued job has no holder: recovery, however late, leaves it waiting.
    assert.equal(await crawls.recoverInterrupted(new Date(start + 86_400_000)), 0);

    const first = await claimQueued(db, 'crawl_jobs', 2, new Date(start));
    assert.deepEqual(first, ids.slice(0, 2), 'the two oldest');
    // Two claimers at once share the rest without overlap.
    const [a, b] = await Promise.all([claimQueued(db, 'crawl_jobs', 3, new Date(start)), claimQueued(db, 'crawl_jobs', 3, new Date(start))]);
    assert.deepEqual([...a, ...b].sort(), ids.slice(2).sort());
    assert.equal(await hasQueued(db), false);
    assert.deepEqual(await claimQueued(db, 'crawl_jobs', 3, new Date(start)), []);
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
    for (let i = 0; i < 100 && told === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(told, 1);
    await stop();
    await announce(db, WORK_CHANNEL);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(told, 1, 'not after it stopped listening');
    await assert.rejects(db.listen!('bad channel; drop table monitors', () => undefined), /not a channel name/);
    await db.close();
  });

  it('never claims work a process runs itself: only queued rows are claimable', async () => {
    const db = await open();
    const crawls = crawlJobStore(db);
    const running = await crawls.start('acme', 'https://example.com/', {}, new Date());
    assert.equal(await hasQueued(db), false);
    assert.deepEqual(await claimQueued(db, 'crawl_jobs', 5, new Date()), []);
    assert.deepEqual(await sqlRows(db, 'SELECT lease_owner FROM crawl_jobs WHERE id = ?', running.id), [{ lease_owner: WORKER_ID }]);
    await db.close();
  });

  it('an agent job queued by a process with a model, claimed by one without: failed with the reason, its trace closed', async () => {
    const db = await open();
    const queued = await agentStore(db).create('acme', { prompt: 'find the price' }, 'scripted', new Date(), context('k1'));
    assert.deepEqual([queued.status, await unfinishedOfKey(db, 'k1')], ['processing', 1]);
    assert.deepEqual(await claimQueued(db, 'agent_jobs', 5, new Date()), [queued.id]);
    // A worker without llm configured (the processes were not given the same configuration).
    const worker = agentJobs({ db, team: 'acme', now: () => new Date(), scrape: {} as ScrapeContext });
    await worker.runClaimed((await agentStore(db).claimed(queued.id))!.job);
    const ended = await worker.get(queued.id);
    assert.equal(ended.status, 'failed');
    assert.match(ended.error ?? '', /^the worker could not run the job: no model is configured for agent jobs/);
    const { events } = await worker.trace(queued.id);
    assert.deepEqual(events.map((event) => [event.type, (event as { outcome?: string }).outcome]), [['run.finished', 'failed']]);
    assert.equal(await unfinishedOfKey(db, 'k1'), 0);
    await db.close();
  });
});
