/** Agent jobs in the store: gapless events, teams, cancel states of spec §3.2, recovery. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentStore, SYSTEM_AGENT } from '../../src/engine/agent/agent-store.js';
import { databasePath, openDatabase } from '../../src/engine/store/database.js';
import { tempDir } from '../helpers/files.js';

const now = new Date('2026-11-22T10:00:00Z');
const agent = { id: 'o', role: 'orchestrator' as const, name: 'orchestrator' };

describe('agent store', () => {
  it('numbers events without gaps, in order, and reads them after a sequence', () => {
    const db = openDatabase(databasePath({ WEBWATCH_HOME: tempDir() }));
    const store = agentStore(db);
    const job = store.create('acme', { prompt: 'find prices' }, 'test-model', now);
    for (let i = 0; i < 5; i++) store.record(job, agent, { type: 'progress.reported', phase: 'working', message: `step ${i}` }, now);
    const events = store.events('acme', job.id);
    assert.deepEqual(events.map((e) => e.producerSequence), [1, 2, 3, 4, 5]);
    assert.deepEqual(store.events('acme', job.id, 3).map((e) => e.producerSequence), [4, 5]);
    const [first] = events;
    assert.equal(first!.schemaVersion, 1);
    assert.equal(first!.runId, job.id);
    assert.equal(first!.occurredAt, now.toISOString());
    assert.deepEqual(first!.agent, agent);
    assert.equal(store.events('rival', job.id).length, 0, "another team reads none of the job's events");
    assert.equal(store.get('rival', job.id), undefined);
    db.close();
  });

  it('cancel: requested once, then "already cancelled"; a finished job is "already finished"', () => {
    const db = openDatabase(databasePath({ WEBWATCH_HOME: tempDir() }));
    const store = agentStore(db);
    const job = store.create('acme', { prompt: 'p' }, null, now);
    assert.equal(store.requestCancel(job, now), 'requested');
    assert.equal(store.cancelRequested(job.id), true);
    assert.equal(store.requestCancel(job, now), 'cancelled');
    assert.deepEqual(store.events('acme', job.id).map((e) => [e.type, e.agent.id]), [['run.cancel_requested', SYSTEM_AGENT.id]]);
    store.finish(job, 'cancelled', { error: 'Agent run was cancelled' }, now);
    assert.equal(store.requestCancel(job, now), 'cancelled', 'a cancelled run stays "already cancelled"');

    const done = store.create('acme', { prompt: 'p' }, null, now);
    store.addCredits(done.id, 7);
    store.finish(done, 'succeeded', { data: { price: 10 } }, now);
    assert.equal(store.requestCancel(done, now), 'finished');
    const record = store.get('acme', done.id)!;
    assert.deepEqual([record.status, record.creditsUsed, record.data], ['completed', 7, { price: 10 }]);
    db.close();
  });

  it('a failed run is not charged and carries no data', () => {
    const db = openDatabase(databasePath({ WEBWATCH_HOME: tempDir() }));
    const store = agentStore(db);
    const job = store.create('acme', { prompt: 'p', maxCredits: 3 }, null, now);
    store.addCredits(job.id, 4);
    store.finish(job, 'credit_limit_reached', { error: 'limit' }, now);
    const record = store.get('acme', job.id)!;
    assert.deepEqual([record.status, record.outcome, record.creditsUsed, record.data, record.error], ['failed', 'credit_limit_reached', 0, undefined, 'limit']);
    db.close();
  });

  it('a job whose process died is finished failed with internal, its trace closed', () => {
    const db = openDatabase(databasePath({ WEBWATCH_HOME: tempDir() }));
    const store = agentStore(db);
    const job = store.create('acme', { prompt: 'p' }, null, now);
    db.prepare('UPDATE agent_jobs SET owner_pid = 99999999 WHERE id = ?').run(job.id);
    const mine = store.create('acme', { prompt: 'still running here' }, null, now);
    assert.equal(store.recoverInterrupted(now), 1);
    const record = store.get('acme', job.id)!;
    assert.equal(record.status, 'failed');
    assert.match(record.error!, /interrupted/);
    const last = store.events('acme', job.id).at(-1)!;
    assert.equal(last.type, 'run.finished');
    assert.deepEqual((last as { error: unknown }).error, { code: 'internal', source: 'system', retryable: true, message: record.error });
    assert.equal(store.get('acme', mine.id)!.status, 'processing', "this process's own job is left alone");
    db.close();
  });
});
