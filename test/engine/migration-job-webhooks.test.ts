/** Migration 16: SQLite's outbox rebuilt so that a job's deliveries need no monitor or check, its rows kept. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openDatabase } from '../../src/engine/store/database.js';
import { SQLITE_HISTORY } from '../../src/engine/store/migrations.js';
import { sqlRows } from '../helpers/sql.js';
import { tempDir } from '../helpers/files.js';

describe('migration 16', () => {
  it("keeps the outbox's rows, in the order written, and takes a job's delivery without monitor or check", async () => {
    const path = join(tempDir(), 'webwatch.db');
    const raw = new Database(path);
    for (const migration of SQLITE_HISTORY) raw.exec(migration.sql);
    raw.pragma(`user_version = ${SQLITE_HISTORY.at(-1)!.version}`);
    const delivery = raw.prepare(
      "INSERT INTO outbox (id, team, monitor_id, check_id, channel, event, target, body, status, attempts, next_attempt_at, last_error, created_at) VALUES (?, 'acme', 'm', 'c', 'webhook', 'monitor.page', 'http://127.0.0.1:9/', ?, ?, 2, 't', 'HTTP 503', 't')",
    );
    // Written z first: the order of writing, not the ids', is what deliveries are read in.
    delivery.run('z', '{"n":1}', 'pending');
    delivery.run('a', '{"n":2}', 'failed');
    raw.close();

    const db = await openDatabase(path);
    assert.deepEqual(await sqlRows(db, 'SELECT id, team, monitor_id, check_id, job_id, body, status, attempts, last_error FROM outbox ORDER BY rowid'), [
      { id: 'z', team: 'acme', monitor_id: 'm', check_id: 'c', job_id: null, body: '{"n":1}', status: 'pending', attempts: 2, last_error: 'HTTP 503' },
      { id: 'a', team: 'acme', monitor_id: 'm', check_id: 'c', job_id: null, body: '{"n":2}', status: 'failed', attempts: 2, last_error: 'HTTP 503' },
    ]);
    await sqlRows(
      db,
      "INSERT INTO outbox (id, team, job_id, channel, event, target, body, status, next_attempt_at, created_at) VALUES ('j', 'acme', 'job-1', 'webhook', 'crawl.page', 'http://127.0.0.1:9/', '{}', 'pending', 't', 't')",
    );
    assert.deepEqual(await sqlRows(db, "SELECT monitor_id, check_id FROM outbox WHERE job_id = 'job-1'"), [{ monitor_id: null, check_id: null }]);
    assert.deepEqual(
      (
        await sqlRows<{ name: string }>(db, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox' AND sql IS NOT NULL ORDER BY name")
      ).map((row) => row.name),
      ['outbox_check', 'outbox_due', 'outbox_job'],
    );
    await db.close();
  });
});
