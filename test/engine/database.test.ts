import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { databasePath, engineHome, openDatabase } from '../../src/engine/store/database.js';
import { MIGRATIONS } from '../../src/engine/store/migrations.js';
import { tempDir } from '../helpers/files.js';

describe('engine database', () => {
  it('lives under WEBWATCH_HOME, else XDG_DATA_HOME, else ~/.local/share', () => {
    assert.equal(engineHome({ WEBWATCH_HOME: '/w', XDG_DATA_HOME: '/x', HOME: '/h' }), '/w');
    assert.equal(engineHome({ XDG_DATA_HOME: '/x', HOME: '/h' }), '/x/webwatch');
    assert.equal(engineHome({ HOME: '/h' }), '/h/.local/share/webwatch');
    assert.equal(databasePath({ WEBWATCH_HOME: '/w' }), '/w/webwatch.db');
  });

  it('creates the file in WAL mode, migrated to the latest version, and reopens it unchanged', () => {
    const path = join(tempDir(), 'nested', 'webwatch.db');
    const db = openDatabase(path);
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS[MIGRATIONS.length - 1]!.version);
    db.prepare('INSERT INTO scrape_cache VALUES (?, ?, ?, ?, ?)').run('local', 'k', 'https://x', '{}', 1);
    db.close();
    const again = openDatabase(path);
    assert.equal((again.prepare('SELECT count(*) AS n FROM scrape_cache').get() as { n: number }).n, 1);
    again.close();
  });

  it('keeps its home 0700 and the database, -wal and -shm 0600, even under umask 022', () => {
    const home = join(tempDir(), 'home');
    const previous = process.umask(0o022);
    try {
      const db = openDatabase(databasePath({ WEBWATCH_HOME: home }));
      db.prepare('INSERT INTO scrape_cache VALUES (?, ?, ?, ?, ?)').run('local', 'k', 'https://x', '{"headers":{"Cookie":"secret"}}', 1);
      const mode = (file: string) => statSync(join(home, file)).mode & 0o777;
      assert.equal(statSync(home).mode & 0o777, 0o700);
      assert.equal(mode('webwatch.db'), 0o600);
      assert.equal(mode('webwatch.db-wal'), 0o600);
      assert.equal(mode('webwatch.db-shm'), 0o600);
      db.close();
    } finally {
      process.umask(previous);
    }
  });

  it('takes group and other permissions off an existing database and its -wal and -shm', () => {
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
    const db = openDatabase(path);
    for (const file of files) assert.equal(statSync(file).mode & 0o777, 0o600, file);
    // The directory may be the user's own, shared with other things: it keeps its mode.
    assert.equal(statSync(home).mode & 0o777, 0o755);
    db.close();
    older.close();
  });

  it('is created by several processes opening it at once, each migrating it no more than once', async () => {
    const module = new URL('../../src/engine/store/database.js', import.meta.url).href;
    const script = `import { openDatabase } from ${JSON.stringify(module)}; openDatabase(process.argv[1]).close();`;
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
      const db = openDatabase(path);
      assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS[MIGRATIONS.length - 1]!.version);
      db.close();
    }
  });

  it('refuses a database from a newer webwatch', () => {
    const path = join(tempDir(), 'webwatch.db');
    const raw = new Database(path);
    raw.pragma('user_version = 999');
    raw.close();
    assert.throws(() => openDatabase(path), /schema version 999, newer than this webwatch knows/);
  });

  it('rebuilds the checks table in migration 5 without losing checks or their page results', () => {
    const path = join(tempDir(), 'webwatch.db');
    const raw = new Database(path);
    for (const migration of MIGRATIONS.filter((m) => m.version <= 4)) raw.exec(migration.sql);
    raw.pragma('user_version = 4');
    raw.prepare("INSERT INTO monitors (id, team, name, status, definition, created_at, updated_at) VALUES ('m', 'local', 'M', 'active', '{}', 't', 't')").run();
    raw.prepare("INSERT INTO checks (id, monitor_id, status, trigger, started_at) VALUES ('c', 'm', 'completed', 'manual', 't')").run();
    raw.prepare("INSERT INTO page_results (check_id, position, target_id, url, status) VALUES ('c', 0, 't', 'https://x', 'new')").run();
    raw.close();

    const db = openDatabase(path);
    assert.equal((db.prepare('SELECT count(*) AS n FROM page_results').get() as { n: number }).n, 1);
    assert.deepEqual(db.prepare('SELECT id, status, scheduled_for FROM checks').all(), [{ id: 'c', status: 'completed', scheduled_for: null }]);
    assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
    db.prepare("INSERT INTO checks (id, monitor_id, status, trigger) VALUES ('s', 'm', 'skipped_overlap', 'scheduled')").run();
    // The page results still belong to their check: deleting it takes them along.
    db.prepare("DELETE FROM checks WHERE id = 'c'").run();
    assert.equal((db.prepare('SELECT count(*) AS n FROM page_results').get() as { n: number }).n, 0);
    db.close();
  });
});
