/**
 * The remembered reads of SQLite's read connection (Db.readNow): answered again only while
 * nothing they read from has changed, by this process's writer (each statement, a transaction
 * once committed, a delete's cascades) or by another process. A stale answer here would be a
 * revoked key still accepted, or a monitor list missing a monitor.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openDatabase, type Db } from '../../src/engine/store/database.js';
import { tempDir } from '../helpers/files.js';

describe('remembered reads of SQLite', () => {
  let db: Db;
  let file: string;
  const keysOf = (team: string) => db.readNow!('select "id" from "api_keys" where "team" = ? order by "id"', [team]) as { id: string }[];
  const key = (id: string, team = 'acme') => ({
    id,
    team,
    key_hash: `hash-${id}`,
    created_at: '2026-11-25T00:00:00Z',
    revoked_at: null,
    grants_local_team: 0 as const,
  });
  before(async () => {
    file = join(tempDir(), 'webwatch.db');
    db = await openDatabase(file, { readConnection: true });
  });
  after(() => db.close());

  it('answers a read again while other tables change, and reads anew once its own table does', async () => {
    await db.query.insertInto('api_keys').values(key('k1')).execute();
    const first = keysOf('acme');
    assert.deepEqual(
      first.map((row) => row.id),
      ['k1'],
    );
    await db.query.insertInto('usage').values({ team: 'acme', key_id: 'k1', kind: 'scrape', credits: 1, tokens: 0, at: '2026-11-25T00:00:00Z' }).execute();
    assert.equal(keysOf('acme'), first, 'the same rows: a write to another table leaves the read as it was');
    await db.query.updateTable('api_keys').set({ revoked_at: '2026-11-25T01:00:00Z' }).where('id', '=', 'k1').execute();
    assert.deepEqual(db.readNow!('select "revoked_at" from "api_keys" where "id" = ?', ['k1']), [{ revoked_at: '2026-11-25T01:00:00Z' }]);
    await db.query.insertInto('api_keys').values(key('k2')).execute();
    assert.deepEqual(
      keysOf('acme').map((row) => row.id),
      ['k1', 'k2'],
    );
  });

  it('sees what a transaction wrote once it commits, never a remembered answer from before', async () => {
    await db.query.transaction().execute(async (trx) => {
      await trx.insertInto('api_keys').values(key('k3')).execute();
      // Not committed yet: the read connection sees the table as it was, and remembers that.
      assert.deepEqual(
        keysOf('acme').map((row) => row.id),
        ['k1', 'k2'],
      );
    });
    assert.deepEqual(
      keysOf('acme').map((row) => row.id),
      ['k1', 'k2', 'k3'],
    );
  });

  it('sees what a delete removed from the tables that cascade from it', async () => {
    await db.query
      .insertInto('crawl_jobs')
      .values({
        id: 'j1',
        team: 'acme',
        kind: 'crawl',
        url: 'https://example.com/',
        options: '{}',
        status: 'scraping',
        created_at: '2026-11-25T00:00:00Z',
        expires_at: '2026-11-26T00:00:00Z',
        owner_pid: null,
        error: null,
        robots_blocked: null,
        lease_owner: null,
        lease_expires_at: null,
      } as never)
      .execute();
    await db.query
      .insertInto('crawl_pages')
      .values({ job_id: 'j1', position: 0, url: 'https://example.com/', document: '{}', error: null, error_code: null, created_at: '2026-11-25T00:00:00Z' })
      .execute();
    const pages = () => db.readNow!('select count(*) as "n" from "crawl_pages" where "job_id" = ?', ['j1']) as { n: number }[];
    assert.equal(pages()[0]!.n, 1);
    await db.query.deleteFrom('crawl_jobs').where('id', '=', 'j1').execute();
    assert.equal(pages()[0]!.n, 0);
  });

  it('sees what another process committed, from the next turn of the event loop on', async () => {
    assert.deepEqual(keysOf('globex'), []);
    const other = new Database(file);
    try {
      other
        .prepare('insert into api_keys (id, team, key_hash, created_at, revoked_at, grants_local_team) values (?, ?, ?, ?, null, 0)')
        .run('g1', 'globex', 'hash-g1', '2026-11-25T00:00:00Z');
    } finally {
      other.close();
    }
    await new Promise(setImmediate);
    assert.deepEqual(
      keysOf('globex').map((row) => row.id),
      ['g1'],
    );
  });
});
