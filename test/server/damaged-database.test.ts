/**
 * `webwatch serve` on a SQLite file with a damaged page in its middle: a route that reads the
 * damaged table answers a §7.1 body with the code and the cause, never a bare 500, and without
 * the file's path, which only the operator's log names.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { keyStore } from '../../src/engine/keys/key-store.js';
import { DatabaseDamagedError, databasePath, openDatabase } from '../../src/engine/store/database.js';
import { failureOf } from '../../src/server/routes/jobs.js';
import { damagePage, manyMonitors } from '../helpers/damage.js';
import { tempDir } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { serveWebwatch } from '../helpers/webwatch-server.js';

/** An engine home with many monitors of team acme and a key of acme's. */
async function seededHome(): Promise<{ home: string; file: string; key: string }> {
  const home = tempDir();
  const file = databasePath({ WEBWATCH_HOME: home });
  const db = await openDatabase(file);
  const { key } = await keyStore(db).create('acme', new Date());
  await manyMonitors(db, 'acme');
  await db.close();
  return { home, file, key };
}

const logOf = () => {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
};

describe('webwatch serve on a damaged database', () => {
  it('answers a route reading the damaged table with DATABASE_CORRUPT and the cause', async () => {
    const { home, file, key } = await seededHome();
    damagePage(file, 'monitors');
    const log = logOf();
    const started = await serveWebwatch({ home, log: log.stream });
    try {
      const listed = await fetch(`${started.url}/monitor`, { headers: { authorization: `Bearer ${key}` } });
      const text = await listed.text();
      assert.equal(listed.status, 500);
      assert.deepEqual(JSON.parse(text), {
        success: false,
        error: "Internal Server Error: the server's database is damaged, and its operator must restore it",
        code: 'DATABASE_CORRUPT',
        details: { reason: 'database disk image is malformed (SQLITE_CORRUPT)' },
      });
      assert.ok(!text.includes(home));
      // The operator's log names the file.
      assert.ok(log.text().includes(`the engine database ${file} is damaged`), log.text());

      // The command line against it says what and why, at once: the error is not one to retry.
      const answered = (log.text().match(/"statusCode":500/g) ?? []).length;
      const remote = await run(['monitor', 'list'], { env: { WEBWATCH_API_URL: started.url, WEBWATCH_API_KEY: key } });
      assert.equal(remote.code, 1, remote.stderr);
      assert.match(remote.stderr, /error: Internal Server Error: the server's database is damaged, and its operator must restore it\n {2}database disk image is malformed \(SQLITE_CORRUPT\)/);
      assert.equal((log.text().match(/"statusCode":500/g) ?? []).length, answered + 1, 'asked once');
    } finally {
      await started.stop();
    }
  });

  it('stores the failure of a crawl or check on a damaged database without the file\'s path', () => {
    const cause = Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
    assert.deepEqual(failureOf(new DatabaseDamagedError('/srv/private/webwatch.db', cause)), {
      error: 'the database is damaged: database disk image is malformed (SQLITE_CORRUPT)', code: 'DATABASE_CORRUPT',
    });
  });
});
