import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import {
  DatabaseDamagedError,
  databaseLocation,
  databasePath,
  engineHome,
  migrate,
  openDatabase,
  redactedUrl,
  schemaVersion,
} from '../../src/engine/store/database.js';
import { checkIntegrity } from '../../src/engine/store/integrity.js';
import { LATEST_VERSION, SQLITE_HISTORY } from '../../src/engine/store/migrations.js';
import { damagePage, manyMonitors } from '../helpers/damage.js';
import { tempDir } from '../helpers/files.js';
import { POSTGRES_SKIP, postgresServer, stopPostgresServer } from '../helpers/postgres.js';
import { sqlRow, sqlRows } from '../helpers/sql.js';

describe('engine database', () => {
  it('lives under WEBWATCH_HOME, else XDG_DATA_HOME, else ~/.local/share', () => {
    assert.equal(engineHome({ WEBWATCH_HOME: '/w', XDG_DATA_HOME: '/x', HOME: '/h' }), '/w');
    assert.equal(engineHome({ XDG_DATA_HOME: '/x', HOME: '/h' }), '/x/webwatch');
    assert.equal(engineHome({ HOME: '/h' }), '/h/.local/share/webwatch');
    assert.equal(databasePath({ WEBWATCH_HOME: '/w' }), '/w/webwatch.db');
  });

  it('serve, keys and db use --database, else WEBWATCH_DATABASE_URL, else the config, else the file', () => {
    const env = { WEBWATCH_HOME: '/w', WEBWATCH_DATABASE_URL: 'postgres://env/db' };
    assert.equal(databaseLocation(env, { flag: 'postgres://flag/db', configUrl: 'postgres://config/db' }), 'postgres://flag/db');
    assert.equal(databaseLocation(env, { configUrl: 'postgres://config/db' }), 'postgres://env/db');
    assert.equal(databaseLocation({ WEBWATCH_HOME: '/w' }, { configUrl: 'postgres://config/db' }), 'postgres://config/db');
    assert.equal(databaseLocation({ WEBWATCH_HOME: '/w' }), '/w/webwatch.db');
    assert.equal(redactedUrl('postgres://ww:s3cret@db.example:5432/ww'), 'postgres://ww:***@db.example:5432/ww');
  });

  it('refuses an address that is neither PostgreSQL nor a SQLite file', async () => {
    await assert.rejects(openDatabase('mysql://root:pw@host/db'), (error: Error) => {
      assert.match(error.message, /neither postgres:\/\/\.\.\. nor a SQLite file/);
      assert.doesNotMatch(error.message, /pw/);
      return true;
    });
  });

  it('creates the file in WAL mode, migrated to the latest version, and reopens it unchanged', async () => {
    const path = join(tempDir(), 'nested', 'webwatch.db');
    const db = await openDatabase(path);
    assert.equal((await sqlRow(db, 'PRAGMA journal_mode'))?.journal_mode, 'wal');
    assert.equal(await schemaVersion(db), LATEST_VERSION);
    await sqlRow(db, 'INSERT INTO scrape_cache VALUES (?, ?, ?, ?, ?)', 'local', 'k', 'https://x', '{}', 1);
    await db.close();
    const again = await openDatabase(`sqlite:${path}`);
    assert.equal((await sqlRow<{ n: number }>(again, 'SELECT count(*) AS n FROM scrape_cache'))!.n, 1);
    await again.close();
  });

  it('keeps its home 0700 and the database, -wal and -shm 0600, even under umask 022', async () => {
    const home = join(tempDir(), 'home');
    const previous = process.umask(0o022);
    try {
      const db = await openDatabase(databasePath({ WEBWATCH_HOME: home }));
      await sqlRow(db, 'INSERT INTO scrape_cache VALUES (?, ?, ?, ?, ?)', 'local', 'k', 'https://x', '{"headers":{"Cookie":"secret"}}', 1);
      const mode = (file: string) => statSync(join(home, file)).mode & 0o777;
      assert.equal(statSync(home).mode & 0o777, 0o700);
      assert.equal(mode('webwatch.db'), 0o600);
      assert.equal(mode('webwatch.db-wal'), 0o600);
      assert.equal(mode('webwatch.db-shm'), 0o600);
      await db.close();
    } finally {
      process.umask(previous);
    }
  });

  it('takes group and other permissions off an existing database and its -wal and -shm', async () => {
    const home = tempDir();
    chmodSync(home, 0o755);
    const path = join(home, 'webwatch.db');
    // An older webwatch, still open, so its -wal and -shm files exist.
    const older = new Database(path);
    older.pragma('journal_mode = WAL');
    older.exec('CREATE TABLE t (x)');
    older.prepare('INSERT INTO t VALUES (1)').run();
    const files = [path, `${path}-wal`, `${path}-shm`];
    for (const file of files) chmodSync(file, 0o644);
    const db = await openDatabase(path);
    for (const file of files) assert.equal(statSync(file).mode & 0o777, 0o600, file);
    // The directory may be the user's own, shared with other things: it keeps its mode.
    assert.equal(statSync(home).mode & 0o777, 0o755);
    await db.close();
    older.close();
  });

  it('is created by several processes opening it at once, each migrating it no more than once', async () => {
    const module = new URL('../../src/engine/store/database.js', import.meta.url).href;
    const script = `import { openDatabase } from ${JSON.stringify(module)}; await (await openDatabase(process.argv[1])).close();`;
    const open = (path: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script, path], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('close', (code) => resolve({ code, stderr }));
      });
    for (let round = 0; round < 5; round++) {
      const path = join(tempDir(), 'fresh', 'webwatch.db');
      const results = await Promise.all(Array.from({ length: 6 }, () => open(path)));
      for (const result of results) assert.equal(result.code, 0, result.stderr);
      const db = await openDatabase(path);
      assert.equal(await schemaVersion(db), LATEST_VERSION);
      await db.close();
    }
  });

  it('refuses a database from a newer webwatch', async () => {
    const path = join(tempDir(), 'webwatch.db');
    const raw = new Database(path);
    raw.pragma('user_version = 999');
    raw.close();
    await assert.rejects(openDatabase(path), /schema version 999, newer than this webwatch knows/);
  });

  // Version 12 and 13 as an earlier webwatch wrote them for SQLite alone (the JSON, credits and
  // kept screenshot columns): a user's file made by it is at user_version 13.
  const JSON_AND_SCREENSHOTS_SQL = `
    ALTER TABLE tracked_pages ADD COLUMN json TEXT;
    ALTER TABLE snapshots ADD COLUMN json TEXT;
    ALTER TABLE page_results ADD COLUMN snapshot TEXT;
    ALTER TABLE checks ADD COLUMN credits INTEGER;
    ALTER TABLE page_results ADD COLUMN screenshot TEXT;
  `;
  const columnsOf = async (db: Awaited<ReturnType<typeof openDatabase>>, table: string) =>
    (await sqlRows<{ name: string }>(db, `SELECT name FROM pragma_table_info('${table}')`)).map((row) => row.name);

  it('upgrades a file at version 13 with the JSON, credits and screenshot columns: it gains the leases, keeping its rows', async () => {
    const path = join(tempDir(), 'webwatch.db');
    const raw = new Database(path);
    for (const migration of SQLITE_HISTORY) raw.exec(migration.sql);
    raw.exec(JSON_AND_SCREENSHOTS_SQL);
    raw.pragma('user_version = 13');
    raw.prepare("INSERT INTO monitors (id, team, name, status, definition, created_at, updated_at) VALUES ('m', 'local', 'M', 'active', '{}', 't', 't')").run();
    raw.prepare("INSERT INTO checks (id, monitor_id, status, trigger, started_at, credits) VALUES ('c', 'm', 'completed', 'manual', 't', 5)").run();
    raw
      .prepare(
        "INSERT INTO page_results (check_id, position, target_id, url, status, snapshot, screenshot) VALUES ('c', 0, 't', 'https://x', 'new', '{\"json\":{\"price\":10}}', 'shot.png')",
      )
      .run();
    raw
      .prepare("INSERT INTO tracked_pages (team, url, tag, scope, markdown, scraped_at, json) VALUES ('local', 'https://x', '', '', 'md', 1, '{\"price\":10}')")
      .run();
    raw.close();

    const db = await openDatabase(path);
    assert.equal(await schemaVersion(db), LATEST_VERSION);
    assert.deepEqual(await sqlRows(db, 'SELECT id, credits, lease_owner FROM checks'), [{ id: 'c', credits: 5, lease_owner: null }]);
    assert.deepEqual(await sqlRows(db, 'SELECT snapshot, screenshot FROM page_results'), [{ snapshot: '{"json":{"price":10}}', screenshot: 'shot.png' }]);
    assert.deepEqual(await sqlRows(db, 'SELECT json FROM tracked_pages'), [{ json: '{"price":10}' }]);
    for (const table of ['checks', 'outbox', 'crawl_jobs', 'agent_jobs']) assert.ok((await columnsOf(db, table)).includes('lease_expires_at'), table);
    // 15: queued work names its key and what its run needs.
    for (const table of ['checks', 'crawl_jobs', 'agent_jobs']) {
      const columns = await columnsOf(db, table);
      assert.ok(columns.includes('key_id') && columns.includes('run_context'), table);
    }
    await sqlRow(db, 'INSERT INTO rate_windows (key_id, window_start, requests) VALUES (?, ?, ?)', 'k', 0, 1);
    await db.close();
  });

  it('upgrades a file that took the leases as version 12: it gains the JSON, credits and screenshot columns, keeping its rows', async () => {
    const path = join(tempDir(), 'webwatch.db');
    const raw = new Database(path);
    for (const migration of SQLITE_HISTORY) raw.exec(migration.sql);
    // What the leases migration wrote when it was version 12.
    for (const table of ['checks', 'outbox', 'crawl_jobs', 'agent_jobs'])
      raw.exec(`ALTER TABLE ${table} ADD COLUMN lease_owner text; ALTER TABLE ${table} ADD COLUMN lease_expires_at text;`);
    raw.exec(
      'CREATE INDEX checks_running ON checks (status, lease_expires_at); CREATE TABLE rate_windows (key_id text not null, window_start bigint not null, requests integer not null, CONSTRAINT rate_windows_key PRIMARY KEY (key_id, window_start))',
    );
    raw.pragma('user_version = 12');
    raw.prepare("INSERT INTO rate_windows VALUES ('k', 0, 3)").run();
    raw.prepare("INSERT INTO monitors (id, team, name, status, definition, created_at, updated_at) VALUES ('m', 'local', 'M', 'active', '{}', 't', 't')").run();
    raw.prepare("INSERT INTO checks (id, monitor_id, status, trigger, started_at, lease_owner) VALUES ('c', 'm', 'running', 'manual', 't', 'w1')").run();
    raw.close();

    const db = await openDatabase(path);
    assert.equal(await schemaVersion(db), LATEST_VERSION);
    assert.deepEqual(await sqlRows(db, 'SELECT id, lease_owner, credits FROM checks'), [{ id: 'c', lease_owner: 'w1', credits: null }]);
    assert.deepEqual(await sqlRows(db, 'SELECT requests FROM rate_windows'), [{ requests: 3 }]);
    assert.ok((await columnsOf(db, 'tracked_pages')).includes('json'));
    assert.ok((await columnsOf(db, 'snapshots')).includes('json'));
    assert.deepEqual(
      (await columnsOf(db, 'page_results')).filter((c) => c === 'snapshot' || c === 'screenshot'),
      ['snapshot', 'screenshot'],
    );
    await db.close();
    // Opened again, nothing more to do.
    const again = await openDatabase(path);
    assert.deepEqual(await migrate(again), { from: LATEST_VERSION, to: LATEST_VERSION });
    await again.close();
  });

  it('rebuilds the checks table in migration 5 without losing checks or their page results', async () => {
    const path = join(tempDir(), 'webwatch.db');
    const raw = new Database(path);
    for (const migration of SQLITE_HISTORY.filter((m) => m.version <= 4)) raw.exec(migration.sql);
    raw.pragma('user_version = 4');
    raw.prepare("INSERT INTO monitors (id, team, name, status, definition, created_at, updated_at) VALUES ('m', 'local', 'M', 'active', '{}', 't', 't')").run();
    raw.prepare("INSERT INTO checks (id, monitor_id, status, trigger, started_at) VALUES ('c', 'm', 'completed', 'manual', 't')").run();
    raw.prepare("INSERT INTO page_results (check_id, position, target_id, url, status) VALUES ('c', 0, 't', 'https://x', 'new')").run();
    raw.close();

    const db = await openDatabase(path);
    assert.equal((await sqlRow<{ n: number }>(db, 'SELECT count(*) AS n FROM page_results'))!.n, 1);
    assert.deepEqual(await sqlRows(db, 'SELECT id, status, scheduled_for FROM checks'), [{ id: 'c', status: 'completed', scheduled_for: null }]);
    assert.equal((await sqlRow(db, 'PRAGMA foreign_keys'))?.foreign_keys, 1);
    await sqlRow(db, "INSERT INTO checks (id, monitor_id, status, trigger) VALUES ('s', 'm', 'skipped_overlap', 'scheduled')");
    // The page results still belong to their check: deleting it takes them along.
    await sqlRow(db, "DELETE FROM checks WHERE id = 'c'");
    assert.equal((await sqlRow<{ n: number }>(db, 'SELECT count(*) AS n FROM page_results'))!.n, 0);
    await db.close();
  });
});

describe('engine database: a file that is empty, foreign or damaged', () => {
  /** The directory's files and their bytes, to show that nothing was written, created or chmodded. */
  const snapshot = (dir: string) =>
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name)).toString('base64'), statSync(join(dir, name)).mode]);

  it('refuses an empty file left from before, at once, naming it and leaving it as it is', async () => {
    const dir = tempDir();
    const path = join(dir, 'webwatch.db');
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(path, anHourAgo, anHourAgo);
    const before = snapshot(dir);
    const modifiedAt = statSync(path).mtimeMs;
    const started = Date.now();
    await assert.rejects(openDatabase(path), (error: Error & { code?: string; suggestion?: string }) => {
      assert.ok(error instanceof Error);
      assert.equal(
        error.message,
        `the engine database ${path} is empty (0 bytes): it was cut short or never written, and webwatch will not start a new database in its place`,
      );
      assert.equal(error.code, 'DATABASE_EMPTY');
      assert.match(error.suggestion ?? '', /restore it from a backup; if it never held anything, delete it/);
      return true;
    });
    assert.ok(Date.now() - started < 1000, 'an old empty file is no database in the making: no wait');
    assert.deepEqual(snapshot(dir), before, 'no byte written, no -wal or -shm, the mode unchanged');
    assert.equal(statSync(path).mtimeMs, modifiedAt);
  });

  it('waits for an empty file just created to become a database (another process is creating it), and refuses one that stays empty', async () => {
    const growing = join(tempDir(), 'webwatch.db');
    writeFileSync(growing, '');
    const opening = openDatabase(growing);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const other = new Database(growing);
    other.pragma('journal_mode = WAL');
    other.exec('CREATE TABLE written_by_the_other (x)');
    other.close();
    const db = await opening;
    assert.equal(await schemaVersion(db), LATEST_VERSION);
    assert.deepEqual(await sqlRows(db, "SELECT name FROM sqlite_master WHERE name = 'written_by_the_other'"), [{ name: 'written_by_the_other' }]);
    await db.close();

    const stays = join(tempDir(), 'webwatch.db');
    writeFileSync(stays, '');
    await assert.rejects(openDatabase(stays), /is empty \(0 bytes\)/);
    assert.equal(statSync(stays).size, 0);
  });

  it('refuses a file that is not SQLite, naming it and leaving it as it is', async () => {
    const dir = tempDir();
    const path = join(dir, 'notes.db');
    writeFileSync(path, 'Things to buy: milk, eggs\n');
    const before = snapshot(dir);
    await assert.rejects(openDatabase(`sqlite:${path}`), (error: Error & { code?: string; suggestion?: string }) => {
      assert.equal(error.message, `the engine database ${path} is not a SQLite database (its first bytes are not SQLite's header)`);
      assert.equal(error.code, 'DATABASE_NOT_SQLITE');
      assert.match(error.suggestion ?? '', /move the file aside/);
      return true;
    });
    assert.deepEqual(snapshot(dir), before);
  });

  it('names the file and the cause when a query meets a damaged page, and remembers it', async () => {
    const path = join(tempDir(), 'webwatch.db');
    const seeded = await openDatabase(path);
    await manyMonitors(seeded, 'acme');
    await seeded.close();
    damagePage(path, 'monitors');

    // The damage is in the middle: the file opens, and what does not read the page works.
    const db = await openDatabase(path);
    assert.equal(db.damageSeen, undefined);
    assert.equal(await schemaVersion(db), LATEST_VERSION);
    await assert.rejects(sqlRows(db, 'SELECT * FROM monitors'), (error: Error & { code?: string }) => {
      assert.ok(error instanceof DatabaseDamagedError);
      assert.equal(error.message, `the engine database ${path} is damaged: database disk image is malformed (SQLITE_CORRUPT)`);
      assert.equal(error.code, 'DATABASE_CORRUPT');
      assert.equal(error.withoutPath, 'the database is damaged: database disk image is malformed (SQLITE_CORRUPT)');
      return true;
    });
    assert.equal(db.damageSeen, 'database disk image is malformed (SQLITE_CORRUPT)');
    // In a transaction too.
    await assert.rejects(
      db.query.transaction().execute((trx) => trx.selectFrom('monitors').selectAll().execute()),
      DatabaseDamagedError,
    );
    await db.close();
  });
});

describe('engine database: integrity check', () => {
  it('checks every page without changing the file: the table or index of each damaged b-tree is named', async () => {
    const path = join(tempDir(), 'shop.db');
    const raw = new Database(path);
    raw.exec('CREATE TABLE prices (id INTEGER PRIMARY KEY, product TEXT, note TEXT); CREATE INDEX prices_by_product ON prices (product)');
    const insert = raw.prepare('INSERT INTO prices (product, note) VALUES (?, ?)');
    for (let i = 0; i < 400; i++) insert.run(`product ${i} ${'x'.repeat(200)}`, 'n'.repeat(300));
    raw.close();
    assert.deepEqual(await checkIntegrity(path), { database: path, kind: 'sqlite', check: 'quick_check', ok: true, problems: [] });

    const page = damagePage(path, 'prices_by_product');
    const bytes = readFileSync(path);
    for (const full of [false, true]) {
      const report = await checkIntegrity(`sqlite:${path}`, { full });
      assert.equal(report.ok, false);
      assert.equal(report.check, full ? 'integrity_check' : 'quick_check');
      const named = report.problems.find((problem) => problem.index === 'prices_by_product');
      assert.ok(named, JSON.stringify(report.problems));
      assert.equal(named.table, 'prices');
      assert.match(named.message, new RegExp(`^Tree \\d+ page ${page}\\b`));
    }
    assert.ok(readFileSync(path).equals(bytes), 'the check wrote nothing');

    damagePage(path, 'prices');
    const report = await checkIntegrity(path);
    assert.ok(
      report.problems.some((problem) => problem.table === 'prices' && problem.index === undefined),
      JSON.stringify(report.problems),
    );
  });

  it('stops when aborted, at once or while its thread is still starting, and the process lives on', async () => {
    const path = join(tempDir(), 'shop.db');
    const raw = new Database(path);
    raw.exec("CREATE TABLE prices (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO prices (note) VALUES ('n')");
    raw.close();
    // The delays span the thread's start, when it loads SQLite's native addon (some 20 ms in):
    // a thread terminated inside that load took the whole process down, now and then.
    for (let i = 0; i < 200; i++) {
      const delay = i % 40;
      const controller = new AbortController();
      const checking = checkIntegrity(path, { signal: controller.signal });
      let finished = false;
      void checking.then(
        () => (finished = !controller.signal.aborted),
        () => undefined,
      );
      if (delay === 0) controller.abort();
      else setTimeout(() => controller.abort(), delay);
      const outcome = await checking.catch((error: unknown) => error);
      if (finished)
        assert.deepEqual(outcome, { database: path, kind: 'sqlite', check: 'quick_check', ok: true, problems: [] }, `finished before the abort at ${delay} ms`);
      else assert.equal(outcome, controller.signal.reason, `aborted after ${delay} ms`);
    }
  });

  it('checks nothing that is not there, and refuses to check an empty or foreign file', async () => {
    const dir = tempDir();
    await assert.rejects(checkIntegrity(join(dir, 'typo.db')), /typo\.db does not exist: nothing to check/);
    assert.deepEqual(readdirSync(dir), []);
    await assert.rejects(checkIntegrity(dir), new RegExp(`the engine database ${dir} is not a file`));
    writeFileSync(join(dir, 'text.db'), 'not a database');
    await assert.rejects(checkIntegrity(join(dir, 'text.db')), /text\.db is not a SQLite database/);
  });
});

describe('engine database on PostgreSQL', { skip: POSTGRES_SKIP }, () => {
  after(stopPostgresServer);

  // That its tables and columns are SQLite's: schema-agreement.test.ts.
  it('is created at the latest version, and migrating again changes nothing', async () => {
    const url = await (await postgresServer()).createDatabase();
    const db = await openDatabase(url);
    assert.equal(db.kind, 'postgres');
    assert.equal(await schemaVersion(db), LATEST_VERSION);
    assert.deepEqual(await migrate(db), { from: LATEST_VERSION, to: LATEST_VERSION });
    await db.close();
  });

  it('is migrated once when several processes open a new database at once', async () => {
    const url = await (await postgresServer()).createDatabase();
    const module = new URL('../../src/engine/store/database.js', import.meta.url).href;
    const script = `import { openDatabase } from ${JSON.stringify(module)}; await (await openDatabase(process.argv[1])).close();`;
    const results = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<{ code: number | null; stderr: string }>((resolve) => {
            const child = spawn(process.execPath, ['--input-type=module', '-e', script, url], { stdio: ['ignore', 'ignore', 'pipe'] });
            let stderr = '';
            child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
            child.on('close', (code) => resolve({ code, stderr }));
          }),
      ),
    );
    for (const result of results) assert.equal(result.code, 0, result.stderr);
    const db = await openDatabase(url);
    assert.deepEqual(await sqlRows(db, 'SELECT version FROM webwatch_schema'), [{ version: LATEST_VERSION }]);
    await db.close();
  });

  it('refuses a database from a newer webwatch', async () => {
    const url = await (await postgresServer()).createDatabase();
    const db = await openDatabase(url);
    await sqlRow(db, 'UPDATE webwatch_schema SET version = 999');
    await db.close();
    await assert.rejects(openDatabase(url), /schema version 999, newer than this webwatch knows/);
  });

  it('upgrades a database that took the leases as version 12: it gains the JSON, credits and screenshot columns', async () => {
    const url = await (await postgresServer()).createDatabase();
    const db = await openDatabase(url);
    // Back to what it was with the leases as 12: without 12 and 13's columns.
    await sqlRow(db, 'ALTER TABLE tracked_pages DROP COLUMN json');
    await sqlRow(db, 'ALTER TABLE snapshots DROP COLUMN json');
    await sqlRow(db, 'ALTER TABLE page_results DROP COLUMN snapshot');
    await sqlRow(db, 'ALTER TABLE page_results DROP COLUMN screenshot');
    await sqlRow(db, 'ALTER TABLE checks DROP COLUMN credits');
    // Nor the queue's columns of 15 (their indexes go with them).
    for (const table of ['checks', 'crawl_jobs', 'agent_jobs']) {
      await sqlRow(db, `DROP INDEX ${table}_lease_owner`);
      await sqlRow(db, `ALTER TABLE ${table} DROP COLUMN key_id, DROP COLUMN run_context`);
    }
    // Nor 16's jobs' webhooks (the index on job_id goes with its column).
    await sqlRow(db, 'ALTER TABLE outbox DROP COLUMN job_id');
    await sqlRow(db, 'ALTER TABLE crawl_jobs DROP COLUMN webhook');
    // Nor 17's scrape documents, 18's kinds of agent jobs, 19's page slots, 20's agent jobs' webhooks, 21's idempotency keys, 22's page noise.
    await sqlRow(db, 'DROP TABLE scrape_documents');
    await sqlRow(db, 'ALTER TABLE crawl_pages DROP COLUMN scrape_id');
    await sqlRow(db, 'ALTER TABLE crawl_jobs DROP COLUMN zero_data_retention');
    await sqlRow(db, 'ALTER TABLE agent_jobs DROP COLUMN kind');
    await sqlRow(db, 'DROP TABLE page_slots');
    await sqlRow(db, 'DROP TABLE idempotency_keys');
    await sqlRow(db, 'ALTER TABLE agent_jobs DROP COLUMN webhook');
    await sqlRow(db, 'ALTER TABLE page_results DROP COLUMN noise');
    // Nor 23's rule of each monitor.
    await sqlRow(db, 'ALTER TABLE monitors DROP COLUMN private_targets_allowed');
    await sqlRow(db, 'UPDATE webwatch_schema SET version = 12');
    await sqlRow(db, "INSERT INTO rate_windows VALUES ('k', 0, 3)");
    await db.close();

    const again = await openDatabase(url);
    assert.equal(await schemaVersion(again), LATEST_VERSION);
    const columns = (
      await sqlRows<{ c: string }>(
        again,
        "SELECT table_name || '.' || column_name AS c FROM information_schema.columns WHERE table_schema = 'public' AND column_name IN ('json', 'snapshot', 'screenshot', 'credits') AND table_name != 'usage' ORDER BY 1",
      )
    ).map((row) => row.c);
    assert.deepEqual(columns, ['checks.credits', 'page_results.screenshot', 'page_results.snapshot', 'snapshots.json', 'tracked_pages.json']);
    assert.deepEqual(await sqlRows(again, 'SELECT requests FROM rate_windows'), [{ requests: 3 }]);
    await again.close();
  });

  it('says which server it cannot reach, without the password', async () => {
    const port = (await postgresServer()).port;
    await assert.rejects(openDatabase(`postgres://webwatch:hunter2@127.0.0.1:${port + 1}/x`), (error: Error) => {
      assert.match(error.message, /cannot connect to the database postgres:\/\/webwatch:\*\*\*@127\.0\.0\.1/);
      assert.doesNotMatch(error.message, /hunter2/);
      return true;
    });
  });
});
