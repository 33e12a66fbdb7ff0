/**
 * `webwatch serve` on a SQLite file with a damaged page in its middle: the health route says
 * degraded (from the quick check at start, or the next one after the damage), a route that reads
 * the damaged table answers a §7.1 body with the code and the cause, never a bare 500, and
 * without the file's path, which only the operator's log names.
 */
import assert from 'node:assert/strict';
import { truncateSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { keyStore } from '../../src/engine/keys/key-store.js';
import { DatabaseDamagedError, databasePath, openDatabase } from '../../src/engine/store/database.js';
import { failureOf } from '../../src/server/work/run-jobs.js';
import { damagePage, manyMonitors } from '../helpers/damage.js';
import { tempDir } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { call, serveWebwatch } from '../helpers/webwatch-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

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

/** The health route's answer once the integrity check has a result to give. */
async function healthChecked(
  origin: string,
  until: (body: Body) => boolean = (body) => body.database.integrity.status !== 'checking',
): Promise<{ status: number; body: Body; text: string }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await fetch(`${origin}/health`);
    const text = await response.text();
    const body = JSON.parse(text) as Body;
    if (until(body)) return { status: response.status, body, text };
    if (Date.now() > deadline) throw new Error(`the health route still says ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const logOf = () => {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
};

describe('webwatch serve on a damaged database', () => {
  it('says degraded on /health and answers a route reading the damaged table with DATABASE_CORRUPT and the cause', async () => {
    const { home, file, key } = await seededHome();
    const page = damagePage(file, 'monitors');
    const log = logOf();
    const started = await serveWebwatch({ home, log: log.stream });
    try {
      const health = await healthChecked(started.origin);
      assert.equal(health.status, 503);
      assert.equal(health.body.status, 'degraded');
      assert.equal(health.body.database.ok, false);
      assert.equal(health.body.database.integrity.status, 'damaged');
      assert.match(health.body.database.integrity.checkedAt, /^\d{4}-\d\d-\d\dT/);
      assert.ok(
        health.body.database.integrity.problems.some((problem: string) => new RegExp(`^table monitors: Tree \\d+ page ${page}: `).test(problem)),
        health.text,
      );
      assert.ok(!health.text.includes(home), 'the health route, open to anyone, does not say where the file is');

      const listed = await call(started, key, 'GET', '/monitor');
      assert.equal(listed.status, 500);
      assert.deepEqual(listed.body, {
        success: false,
        error: "Internal Server Error: the server's database is damaged, and its operator must restore it",
        code: 'DATABASE_CORRUPT',
        details: { reason: 'database disk image is malformed (SQLITE_CORRUPT)' },
      });
      assert.ok(!listed.text.includes(home));
      // The operator's log names the file.
      assert.ok(log.text().includes(`the engine database ${file} is damaged`), log.text());

      // The command line against it says what and why, at once: the error is not one to retry.
      const answered = (log.text().match(/"statusCode":500/g) ?? []).length;
      const remote = await run(['monitor', 'list'], { env: { WEBWATCH_API_URL: started.url, WEBWATCH_API_KEY: key } });
      assert.equal(remote.code, 1, remote.stderr);
      assert.match(
        remote.stderr,
        /error: Internal Server Error: the server's database is damaged, and its operator must restore it\n {2}database disk image is malformed \(SQLITE_CORRUPT\)/,
      );
      assert.equal((log.text().match(/"statusCode":500/g) ?? []).length, answered + 1, 'asked once');
    } finally {
      await started.stop();
    }
  });

  it('says ok while the file is sound, and degraded after the next check once a page is damaged under it', async () => {
    const { home, file } = await seededHome();
    const started = await serveWebwatch({ home, integrityCheckIntervalMs: 100 });
    try {
      const sound = await healthChecked(started.origin);
      assert.equal(sound.status, 200, sound.text);
      assert.equal(sound.body.status, 'ok');
      assert.equal(sound.body.database.ok, true);
      assert.equal(sound.body.database.integrity.status, 'ok');
      assert.equal(sound.body.database.integrity.problems, undefined);

      damagePage(file, 'monitors');
      const damaged = await healthChecked(started.origin, (body) => body.database.integrity.status !== 'ok');
      assert.equal(damaged.status, 503);
      assert.equal(damaged.body.database.integrity.status, 'damaged');
      assert.ok(
        damaged.body.database.integrity.problems.some((problem: string) => problem.startsWith('table monitors: ')),
        damaged.text,
      );
    } finally {
      await started.stop();
    }
  });

  it('lists on /health the damage a query met, before what the last check found', async () => {
    const { home, file, key } = await seededHome();
    damagePage(file, 'monitors');
    const started = await serveWebwatch({ home });
    try {
      await healthChecked(started.origin);
      const listed = await call(started, key, 'GET', '/monitor');
      assert.equal(listed.status, 500);
      const health = await fetch(`${started.origin}/health`);
      const body = (await health.json()) as Body;
      assert.equal(health.status, 503);
      assert.equal(body.database.integrity.problems[0], 'a query met a damaged page: database disk image is malformed (SQLITE_CORRUPT)');
    } finally {
      await started.stop();
    }
  });

  it('says damaged, never ok beside a damage error, when the file is cut short under it', async () => {
    const { home, file } = await seededHome();
    const started = await serveWebwatch({ home });
    try {
      assert.equal((await healthChecked(started.origin)).body.database.integrity.status, 'ok');
      // The file loses all but its first pages, as a full disk or a bad copy leaves it.
      truncateSync(file, 8192);
      const cut = await healthChecked(started.origin, (body) => body.database.ok === false);
      assert.equal(cut.status, 503);
      assert.equal(cut.body.code, 'DATABASE_CORRUPT', cut.text);
      assert.equal(cut.body.database.integrity.status, 'damaged', cut.text);
      assert.match(cut.body.database.integrity.problems[0], /^a query met a damaged page: /);
      assert.ok(!cut.text.includes(file), "the file's path is the operator's log's only");
    } finally {
      await started.stop();
    }
  });

  it("stores the failure of a crawl or check on a damaged database without the file's path", () => {
    const cause = Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
    assert.deepEqual(failureOf(new DatabaseDamagedError('/srv/private/webwatch.db', cause)), {
      error: 'the database is damaged: database disk image is malformed (SQLITE_CORRUPT)',
      code: 'DATABASE_CORRUPT',
    });
  });
});
