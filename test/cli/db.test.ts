/**
 * `webwatch db migrate`, `db check` and `db copy`: an embedded store moved onto a real PostgreSQL
 * without losing a monitor, check, page result or snapshot; a destination that holds data, an
 * unknown address and a schema newer than this webwatch refused with the reason; a damaged page
 * listed with its table; an empty or foreign file named, with what to do, and left as it is.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkStore } from '../../src/engine/monitors/check-store.js';
import { monitorStore } from '../../src/engine/monitors/monitor-store.js';
import { keyStore } from '../../src/engine/keys/key-store.js';
import { databasePath, openDatabase, redactedUrl, type Db } from '../../src/engine/store/database.js';
import { LATEST_VERSION } from '../../src/engine/store/migrations.js';
import type { NormalizedMonitor } from '../../src/spec/monitor.js';
import { damagePage, manyMonitors } from '../helpers/damage.js';
import { tempDir } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { POSTGRES_SKIP, postgresServer, stopPostgresServer } from '../helpers/postgres.js';
import { sqlRows } from '../helpers/sql.js';

const definition = (name: string) =>
  ({
    name,
    goal: null,
    judgeEnabled: false,
    retentionDays: 30,
    schedule: { cron: '0 * * * *', timezone: 'UTC' },
    targets: [{ type: 'scrape', urls: ['https://example.com/'] }],
  }) as unknown as NormalizedMonitor;

const summary = { changed: 0, error: 0, new: 1, removed: 0, same: 0, totalPages: 1 };

/** Two teams' monitors, each with a finished check, its page result and two snapshots, and a key. */
async function seed(db: Db): Promise<void> {
  const monitors = monitorStore(db);
  const checks = checkStore(db);
  for (const team of ['acme', 'globex']) {
    const monitor = await monitors.insert(team, definition(`${team} prices`), new Date('2026-01-01T00:00:00Z'));
    for (const [i, markdown] of ['# first', '# second'].entries()) {
      const check = await checks.start(monitor, 'manual', new Date(`2026-01-0${i + 2}T00:00:00Z`));
      const scrapeId = `${team}-scrape-${i}`;
      const page = {
        url: 'https://example.com/',
        targetId: 't1',
        status: 'new' as const,
        statusCode: 200,
        previousScrapeId: null,
        currentScrapeId: scrapeId,
        diff: null,
        judgment: null,
        error: null,
      };
      const snapshot = { targetId: 't1', url: 'https://example.com/', scrapeId, markdown, fingerprint: null, contentHash: `hash-${i}` };
      await checks.finish(
        monitor,
        check.id,
        { status: 'completed', pages: [page], snapshots: [snapshot], fingerprints: [], summary, error: null },
        new Date(`2026-01-0${i + 2}T00:01:00Z`),
      );
    }
  }
  await keyStore(db).create('acme', new Date());
}

const TABLES = ['monitors', 'checks', 'page_results', 'snapshots', 'api_keys'];

async function contents(db: Db): Promise<Record<string, unknown[]>> {
  const all: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    const rows = await sqlRows<Record<string, unknown>>(db, `SELECT * FROM ${table}`);
    // PostgreSQL's seq numbers the order of writing where SQLite has its rowid.
    all[table] = rows.map(({ seq: _seq, ...row }) => JSON.stringify(row)).sort();
  }
  return all;
}

describe('webwatch db migrate', () => {
  it('brings a new SQLite file to the latest schema, then finds nothing to do', async () => {
    const file = join(tempDir(), 'webwatch.db');
    const first = await run(['db', 'migrate', '--database', `sqlite:${file}`, '--json']);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(JSON.parse(first.stdout), { database: file, kind: 'sqlite', from: 0, to: LATEST_VERSION });
    const again = await run(['db', 'migrate', '--database', `sqlite:${file}`]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr + again.stdout, new RegExp(`already at version ${LATEST_VERSION}`));
  });

  it('refuses a schema newer than this webwatch, and serve does too', async () => {
    const file = join(tempDir(), 'webwatch.db');
    const db = await openDatabase(file);
    await sqlRows(db, `PRAGMA user_version = ${LATEST_VERSION + 1}`);
    await db.close();
    for (const argv of [
      ['db', 'migrate', '--database', file],
      ['serve', '--port', '0', '--database', file],
    ]) {
      const refused = await run(argv);
      assert.equal(refused.code, 1, `${argv[0]}: ${refused.stderr}`);
      assert.match(
        refused.stderr,
        new RegExp(`schema version ${LATEST_VERSION + 1}, newer than this webwatch knows \\(${LATEST_VERSION}\\); upgrade webwatch`),
      );
    }
  });

  it('refuses an address that is neither PostgreSQL nor SQLite, naming it without its password', async () => {
    const refused = await run(['db', 'migrate', '--database', 'mysql://root:hunter2@db/webwatch']);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /neither postgres:\/\/\.\.\. nor a SQLite file/);
    assert.doesNotMatch(refused.stderr + refused.stdout, /hunter2/);
  });
});

/** An engine home whose monitors table has a damaged page in its middle; the key store is sound. */
async function damagedHome(): Promise<{ home: string; file: string }> {
  const home = tempDir();
  const file = databasePath({ WEBWATCH_HOME: home });
  const db = await openDatabase(file);
  await manyMonitors(db, 'local');
  await db.close();
  damagePage(file, 'monitors');
  return { home, file };
}

describe('webwatch db check', () => {
  it('finds no damage in a sound file, with quick_check or, with --full, integrity_check', async () => {
    const file = join(tempDir(), 'webwatch.db');
    await (await openDatabase(file)).close();
    const quick = await run(['db', 'check', '--database', `sqlite:${file}`, '--json']);
    assert.equal(quick.code, 0, quick.stderr);
    assert.deepEqual(JSON.parse(quick.stdout), { database: file, kind: 'sqlite', check: 'quick_check', ok: true, problems: [] });
    const full = await run(['db', 'check', '--full'], { env: { WEBWATCH_DATABASE_URL: file } });
    assert.equal(full.code, 0, full.stderr);
    assert.equal(full.stderr, `${file}: no damage found (integrity_check read every page)\n`);
  });

  it('exits 1 listing the damage of a page overwritten in the middle, naming the file and the table, and changes nothing', async () => {
    const { home, file } = await damagedHome();
    const bytes = readFileSync(file);
    const human = await run(['db', 'check'], { env: { WEBWATCH_HOME: home } });
    assert.equal(human.code, 1, human.stderr);
    assert.equal(human.stdout, '');
    assert.match(human.stderr, new RegExp(`^error: the engine database ${file} is damaged: quick_check found \\d+ problems?\\n`));
    assert.match(human.stderr, /\n {2}table monitors: Tree \d+ page \d+: /);
    assert.match(human.stderr, /hint: stop webwatch, keep a copy of the file, and restore the database from a backup/);
    const json = await run(['db', 'check', '--full', '--json'], { env: { WEBWATCH_HOME: home } });
    assert.equal(json.code, 1, json.stderr);
    const report = JSON.parse(json.stdout) as { ok: boolean; check: string; problems: { table?: string; message: string }[] };
    assert.equal(report.ok, false);
    assert.equal(report.check, 'integrity_check');
    assert.ok(
      report.problems.some((problem) => problem.table === 'monitors' && /^Tree \d+ page \d+/.test(problem.message)),
      json.stdout,
    );
    assert.ok(readFileSync(file).equals(bytes), 'db check wrote nothing');
  });

  it('refuses a file that does not exist, creating nothing, and names an empty or foreign one', async () => {
    const dir = tempDir();
    const missing = await run(['db', 'check', '--database', join(dir, 'typo.db')]);
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /typo\.db does not exist: nothing to check/);
    assert.deepEqual(readdirSync(dir), []);
    writeFileSync(join(dir, 'empty.db'), '');
    writeFileSync(join(dir, 'readme.db'), '# My notes\n');
    const longAgo = new Date('2020-01-01T00:00:00Z');
    utimesSync(join(dir, 'empty.db'), longAgo, longAgo);
    const empty = await run(['db', 'check', '--database', join(dir, 'empty.db'), '--json']);
    assert.equal(empty.code, 1, empty.stderr);
    assert.deepEqual(JSON.parse(empty.stdout), {
      success: false,
      code: 'DATABASE_EMPTY',
      error: `the engine database ${join(dir, 'empty.db')} is empty (0 bytes): it was cut short or never written, and webwatch will not start a new database in its place`,
      hint: 'restore it from a backup; if it never held anything, delete it, and webwatch creates a new database there. The file is left as it is',
    });
    const foreign = await run(['db', 'check', '--database', join(dir, 'readme.db')]);
    assert.equal(foreign.code, 1, foreign.stderr);
    assert.match(foreign.stderr, new RegExp(`error: the engine database ${join(dir, 'readme.db')} is not a SQLite database`));
  });
});

describe('a damaged, empty or foreign engine database', () => {
  it('is refused by every command when empty, naming the file, which stays empty: no new database in its place', async () => {
    const home = tempDir();
    const file = databasePath({ WEBWATCH_HOME: home });
    writeFileSync(file, '');
    const longAgo = new Date('2020-01-01T00:00:00Z');
    utimesSync(file, longAgo, longAgo);
    for (const argv of [
      ['monitor', 'list'],
      ['keys', 'list'],
      ['db', 'migrate'],
      ['serve', '--port', '0'],
    ]) {
      const refused = await run(argv, { env: { WEBWATCH_HOME: home } });
      assert.equal(refused.code, 1, `${argv.join(' ')}: ${refused.stderr}`);
      assert.match(refused.stderr, new RegExp(`^error: the engine database ${file} is empty \\(0 bytes\\)`), argv.join(' '));
      assert.match(
        refused.stderr,
        /hint: restore it from a backup; if it never held anything, delete it, and webwatch creates a new database there\. The file is left as it is/,
      );
    }
    assert.deepEqual(readdirSync(home), ['webwatch.db']);
    assert.equal(readFileSync(file).length, 0);
  });

  it('is refused when it is not SQLite, naming the file, where SQLite says only "file is not a database"', async () => {
    const file = join(tempDir(), 'monitors.yaml');
    writeFileSync(file, 'name: Pricing\n');
    for (const argv of [
      ['db', 'migrate', '--database', file],
      ['serve', '--port', '0', '--database', `sqlite:${file}`],
      ['keys', 'create', '--team', 'acme', '--database', file],
    ]) {
      const refused = await run(argv);
      assert.equal(refused.code, 1, `${argv.join(' ')}: ${refused.stderr}`);
      assert.match(
        refused.stderr,
        new RegExp(`^error: the engine database ${file} is not a SQLite database \\(its first bytes are not SQLite's header\\)`),
        argv.join(' '),
      );
      assert.doesNotMatch(refused.stderr, /file is not a database/);
    }
    assert.equal(readFileSync(file, 'utf8'), 'name: Pricing\n');
  });

  it('with a damaged page, fails a command that reads it with the file and the cause, exit 1', async () => {
    const { home, file } = await damagedHome();
    const listed = await run(['monitor', 'list'], { env: { WEBWATCH_HOME: home } });
    assert.equal(listed.code, 1, listed.stderr);
    assert.match(listed.stderr, new RegExp(`^error: the engine database ${file} is damaged: database disk image is malformed \\(SQLITE_CORRUPT\\)\\n`));
    assert.match(listed.stderr, new RegExp(`hint: webwatch db check --database sqlite:${file} lists what is damaged`));
    const json = await run(['monitor', 'list', '--json'], { env: { WEBWATCH_HOME: home } });
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(json.stdout), {
      success: false,
      code: 'DATABASE_CORRUPT',
      error: `the engine database ${file} is damaged: database disk image is malformed (SQLITE_CORRUPT)`,
      hint: `webwatch db check --database sqlite:${file} lists what is damaged; stop webwatch, keep a copy of the file, and restore the database from a backup`,
    });
  });
});

describe('webwatch db copy', () => {
  it('refuses the same database as source and destination', async () => {
    const file = join(tempDir(), 'webwatch.db');
    const refused = await run(['db', 'copy', '--from', file, '--to', file]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /name the same database/);
  });

  it('refuses a SQLite source that does not exist, creating nothing', async () => {
    const dir = tempDir();
    const refused = await run(['db', 'copy', '--from', `sqlite:${join(dir, 'typo.db')}`, '--to', `sqlite:${join(dir, 'to.db')}`]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /typo\.db does not exist: nothing to copy/);
    assert.deepEqual(readdirSync(dir), []);
  });

  it('copies SQLite into SQLite, and refuses a destination that holds data without writing to it', async () => {
    const from = join(tempDir(), 'from.db');
    const to = join(tempDir(), 'to.db');
    const source = await openDatabase(from);
    await seed(source);
    const copied = await run(['db', 'copy', '--from', `sqlite:${from}`, '--to', `sqlite:${to}`, '--json']);
    assert.equal(copied.code, 0, copied.stderr);
    const report = JSON.parse(copied.stdout) as { rows: number; tables: { table: string; rows: number }[] };
    assert.deepEqual(
      report.tables.filter((table) => TABLES.includes(table.table)).map((table) => [table.table, table.rows]),
      [
        ['monitors', 2],
        ['checks', 4],
        ['page_results', 4],
        ['snapshots', 4],
        ['api_keys', 1],
      ],
    );
    const destination = await openDatabase(to);
    assert.deepEqual(await contents(destination), await contents(source));

    const again = await run(['db', 'copy', '--from', `sqlite:${from}`, '--to', `sqlite:${to}`]);
    assert.equal(again.code, 5, again.stderr);
    assert.match(again.stderr, /already holds data \(monitors, checks, page_results, snapshots, api_keys\): db copy only fills an empty database/);
    assert.equal((await sqlRows(destination, 'SELECT 1 FROM monitors')).length, 2, 'nothing written twice');
    await source.close();
    await destination.close();
  });
});

describe('webwatch db copy and db check on PostgreSQL', { skip: POSTGRES_SKIP }, () => {
  after(stopPostgresServer);

  it('moves an embedded store to a server without losing a row, and the server serves it', async () => {
    const from = join(tempDir(), 'webwatch.db');
    const source = await openDatabase(from);
    await seed(source);
    const url = await (await postgresServer()).createDatabase();
    const copied = await run(['db', 'copy', '--from', `sqlite:${from}`, '--to', url]);
    assert.equal(copied.code, 0, copied.stderr);
    assert.match(copied.stderr + copied.stdout, /copied \d+ rows from/);
    const destination = await openDatabase(url);
    assert.deepEqual(await contents(destination), await contents(source));
    // The stores read the copy as they read the original: the latest snapshot is the second.
    const [monitor] = (await monitorStore(destination).list('acme')) as { id: string }[];
    assert.ok(monitor);
    const last = await checkStore(destination).lastSnapshot(monitor.id, 't1', 'https://example.com/');
    assert.equal(last?.scrapeId, 'acme-scrape-1');
    await source.close();
    await destination.close();
  });

  it('db check on a server: not applicable, exit 0, as PostgreSQL checks its own pages', async () => {
    const url = await (await postgresServer()).createDatabase();
    await (await openDatabase(url)).close();
    const checked = await run(['db', 'check', '--database', url, '--json']);
    assert.equal(checked.code, 0, checked.stderr);
    const { database, ...report } = JSON.parse(checked.stdout) as Record<string, unknown>;
    assert.equal(database, redactedUrl(url));
    assert.deepEqual(report, {
      kind: 'postgres',
      check: null,
      ok: true,
      problems: [],
      note: `not applicable: PostgreSQL checks its own pages as it reads them; the server answered (schema version ${LATEST_VERSION})`,
    });
    const human = await run(['db', 'check', '--full'], { env: { WEBWATCH_DATABASE_URL: url } });
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stderr, /: not applicable: PostgreSQL checks its own pages/);
  });

  it('says which server it cannot reach, and leaves the source as it was', async () => {
    const from = join(tempDir(), 'webwatch.db');
    const source = await openDatabase(from);
    await seed(source);
    const before = await contents(source);
    const { port } = await postgresServer();
    const refused = await run(['db', 'copy', '--from', from, '--to', `postgres://webwatch:s3cret@127.0.0.1:${port}/no_such_database`]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /cannot connect to the database postgres:\/\/webwatch:\*\*\*@127\.0\.0\.1/);
    assert.doesNotMatch(refused.stderr, /s3cret/);
    assert.deepEqual(await contents(source), before);
    await source.close();
  });
});
