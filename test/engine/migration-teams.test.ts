/** Migration 7: rows that had no team get one, or are dropped when their owner cannot be known. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openDatabase } from '../../src/engine/store/database.js';
import { SQLITE_HISTORY } from '../../src/engine/store/migrations.js';
import { sqlRow, sqlRows } from '../helpers/sql.js';
import { tempDir } from '../helpers/files.js';

describe('migration 7', () => {
  it("gives outbox rows their monitor's team and rule, and drops cache and tracking rows of unknown owner", async () => {
    const path = join(tempDir(), 'webwatch.db');
    const raw = new Database(path);
    for (const migration of SQLITE_HISTORY.filter((m) => m.version <= 6)) raw.exec(migration.sql);
    raw.pragma('user_version = 6');
    const monitor = raw.prepare(
      "INSERT INTO monitors (id, team, name, status, definition, created_at, updated_at) VALUES (?, ?, 'M', 'active', '{}', 't', 't')",
    );
    monitor.run('cli-monitor', 'local');
    monitor.run('acme-monitor', 'acme');
    const delivery = raw.prepare(
      "INSERT INTO outbox (id, monitor_id, check_id, channel, event, target, body, status, next_attempt_at, created_at) VALUES (?, ?, 'c', 'webhook', 'monitor.page', 'http://127.0.0.1:9/', '{}', 'pending', 't', 't')",
    );
    delivery.run('d1', 'cli-monitor');
    delivery.run('d2', 'acme-monitor');
    raw.prepare("INSERT INTO scrape_cache VALUES ('k', 'https://x', '{}', 1)").run();
    raw.prepare("INSERT INTO tracked_pages VALUES ('https://x', '', 'secret page', 1)").run();
    raw.prepare("INSERT INTO api_keys (id, team, key_hash, created_at) VALUES ('k1', 'local', 'h', 't')").run();
    raw.close();

    const db = await openDatabase(path);
    assert.deepEqual(await sqlRows(db, 'SELECT id, team, private_targets_allowed AS allowed FROM outbox ORDER BY id'), [
      { id: 'd1', team: 'local', allowed: 1 },
      { id: 'd2', team: 'acme', allowed: 0 },
    ]);
    assert.equal((await sqlRow<{ n: number }>(db, 'SELECT count(*) AS n FROM scrape_cache'))!.n, 0);
    assert.equal((await sqlRow<{ n: number }>(db, 'SELECT count(*) AS n FROM tracked_pages'))!.n, 0);
    assert.deepEqual(
      await sqlRow(db, 'SELECT grants_local_team AS grants FROM api_keys'),
      { grants: 0 },
      'an old key of team local is not granted by the migration',
    );
    await db.close();
  });
});
