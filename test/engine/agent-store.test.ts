/** Agent jobs in the store: gapless events, teams, cancel states of spec §3.2, recovery; on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { it } from 'node:test';
import { agentStore, SYSTEM_AGENT } from '../../src/engine/agent/agent-store.js';
import { forEachDatabase } from '../helpers/postgres.js';
import { sqlRow } from '../helpers/sql.js';

const now = new Date('2026-11-22T10:00:00Z');
const agent = { id: 'o', role: 'orchestrator' as const, name: 'orchestrator' };

forEachDatabase('agent store', ({ open }) => {
  it('numbers events without gaps, in order, and reads them after a sequence', async () => {
    const db = await open();
    const store = agentStore(db);
    const job = await store.create('acme', { prompt: 'find prices' }, 'test-model', now);
    for (let i = 0; i < 5; i++) await store.record(job, agent, { type: 'progress.reported', phase: 'working', message: `step ${i}` }, now);
    const events = await store.events('acme', job.id);
    assert.deepEqual(
      events.map((e) => e.producerSequence),
      [1, 2, 3, 4, 5],
    );
    assert.deepEqual(
      (await store.events('acme', job.id, 3)).map((e) => e.producerSequence),
      [4, 5],
    );
    const [first] = events;
    assert.equal(first!.schemaVersion, 1);
    assert.equal(first!.runId, job.id);
    assert.equal(first!.occurredAt, now.toISOString());
    assert.deepEqual(first!.agent, agent);
    assert.equal((await store.events('rival', job.id)).length, 0, "another team reads none of the job's events");
    assert.equal(await store.get('rival', job.id), undefined);
    await db.close();
  });

  it('cancel: requested once, then "already cancelled"; a finished job is "already finished"', async () => {
    const db = await open();
    const store = agentStore(db);
    const job = await store.create('acme', { prompt: 'p' }, null, now);
    assert.equal(await store.requestCancel(job, now), 'requested');
    assert.equal(await store.cancelRequested(job.id), true);
    assert.equal(await store.requestCancel(job, now), 'cancelled');
    assert.deepEqual(
      (await store.events('acme', job.id)).map((e) => [e.type, e.agent.id]),
      [['run.cancel_requested', SYSTEM_AGENT.id]],
    );
    await store.finish(job, 'cancelled', { error: 'Agent run was cancelled' }, now);
    assert.equal(await store.requestCancel(job, now), 'cancelled', 'a cancelled run stays "already cancelled"');

    const done = await store.create('acme', { prompt: 'p' }, null, now);
    await store.addCredits(done.id, 7);
    await store.finish(done, 'succeeded', { data: { price: 10 } }, now);
    assert.equal(await store.requestCancel(done, now), 'finished');
    const record = (await store.get('acme', done.id))!;
    assert.deepEqual([record.status, record.creditsUsed, record.data], ['completed', 7, { price: 10 }]);
    await db.close();
  });

  it('a failed run is not charged and carries no data', async () => {
    const db = await open();
    const store = agentStore(db);
    const job = await store.create('acme', { prompt: 'p', maxCredits: 3 }, null, now);
    await store.addCredits(job.id, 4);
    await store.finish(job, 'credit_limit_reached', { error: 'limit' }, now);
    const record = (await store.get('acme', job.id))!;
    assert.deepEqual([record.status, record.outcome, record.creditsUsed, record.data, record.error], ['failed', 'credit_limit_reached', 0, undefined, 'limit']);
    await db.close();
  });

  it('a job whose worker stopped is finished failed with internal, its trace closed', async () => {
    const db = await open();
    const store = agentStore(db);
    const job = await store.create('acme', { prompt: 'p' }, null, now);
    await sqlRow(db, 'UPDATE agent_jobs SET owner_pid = 99999999, lease_owner = ? WHERE id = ?', `${hostname()}:99999999:dead`, job.id);
    const mine = await store.create('acme', { prompt: 'still running here' }, null, now);
    assert.equal(await store.recoverInterrupted(now), 1);
    const record = (await store.get('acme', job.id))!;
    assert.equal(record.status, 'failed');
    assert.match(record.error!, /interrupted/);
    const last = (await store.events('acme', job.id)).at(-1)!;
    assert.equal(last.type, 'run.finished');
    assert.deepEqual((last as { error: unknown }).error, { code: 'internal', source: 'system', retryable: true, message: record.error });
    assert.equal((await store.get('acme', mine.id))!.status, 'processing', "this process's own job is left alone");
    await db.close();
  });
});
