/** How many PostgreSQL connections a serve process keeps: as many as it runs checks and jobs at once, and a few more. */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { connectionsFor } from '../../src/cli/commands/serve.run.js';
import { openDatabase } from '../../src/engine/store/database.js';
import { POSTGRES_SKIP, postgresServer, stopPostgresServer } from '../helpers/postgres.js';
import { sqlRows } from '../helpers/sql.js';

after(() => stopPostgresServer());

it('sizes the pool to the checks and jobs a process runs at once, never under the 10 it kept before', () => {
  assert.equal(connectionsFor(8, 2), 14);
  assert.equal(connectionsFor(64, 2), 70);
  assert.equal(connectionsFor(1, 1), 10);
});

it('opens as many connections as it is given, so that that many statements run at once', { skip: POSTGRES_SKIP }, async () => {
  const db = await openDatabase(await (await postgresServer()).createDatabase(), { connections: 24 });
  try {
    // 24 statements that each hold their connection for a moment: all on connections of their own.
    const pids = await Promise.all(Array.from({ length: 24 }, () => sqlRows(db, 'SELECT pg_backend_pid() AS pid, pg_sleep(0.3)')));
    assert.equal(new Set(pids.map((rows) => rows[0]!.pid)).size, 24);
  } finally {
    await db.close();
  }
});
