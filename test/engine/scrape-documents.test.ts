/** The store behind GET /v2/scrape/{id}: groups written with statements of fixed sizes, read before and after, and a failed write reported. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { databasePath, openDatabase } from '../../src/engine/store/database.js';
import { scrapeDocumentStore, SCRAPE_DOCUMENT_TTL_MS } from '../../src/engine/store/scrape-documents.js';
import { timeOrderedUuid } from '../../src/lib/time-ordered-uuid.js';
import { tempDir } from '../helpers/files.js';
import { sqlRow } from '../helpers/sql.js';

describe('scrape documents (SQLite)', () => {
  it('writes a group of any size in statements of 64, 16, 4 and 1 rows, each read back; another team reads none', async () => {
    const db = await openDatabase(databasePath({ WEBWATCH_HOME: tempDir() }), { readConnection: true });
    try {
      const store = scrapeDocumentStore(db);
      const now = new Date();
      const ids = Array.from({ length: 103 }, () => timeOrderedUuid());
      ids.forEach((id, index) => store.keep('acme', id, `{"n":${index}}`, now));
      assert.equal(await store.find('acme', ids[5]!, now), '{"n":5}', 'read from the group before it is written');
      assert.equal(await store.find('rival', ids[5]!, now), undefined);
      await store.flush();
      assert.equal(Number((await sqlRow<{ n: number }>(db, 'select count(*) as n from scrape_documents'))?.n), 103);
      for (const [index, id] of ids.entries()) assert.equal(await store.find('acme', id, now), `{"n":${index}}`);
      assert.equal(await store.find('rival', ids[7]!, now), undefined);
      const later = new Date(now.getTime() + SCRAPE_DOCUMENT_TTL_MS);
      assert.equal(await store.find('acme', ids[0]!, later), undefined, 'past its day');
      assert.equal(await store.purgeExpired(later), 103);
    } finally {
      await db.close();
    }
  });

  it('a group that cannot be written is reported to the listeners, until they stop listening', async () => {
    const db = await openDatabase(databasePath({ WEBWATCH_HOME: tempDir() }), { readConnection: true });
    try {
      const store = scrapeDocumentStore(db);
      const reported: unknown[] = [];
      const stop = store.onWriteFailure((error) => reported.push(error));
      await sql`drop table scrape_documents`.execute(db.query);
      const id = timeOrderedUuid();
      store.keep('acme', id, '{}', new Date());
      await store.flush();
      assert.equal(reported.length, 1);
      assert.match(String(reported[0]), /scrape_documents/);
      stop();
      store.keep('acme', timeOrderedUuid(), '{}', new Date());
      await store.flush();
      assert.equal(reported.length, 1, 'no longer reported once stopped');
    } finally {
      await db.close();
    }
  });
});
