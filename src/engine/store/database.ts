/**
 * The engine's one SQLite database (WAL): opened lazily, migrated on open. better-sqlite3 is
 * synchronous, which suits a CLI and keeps transactions simple; it is loaded only by commands
 * that use the engine.
 *
 * The database holds webhook and scrape headers in plain text, so it and its companions are
 * readable by their owner only.
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

/** WEBWATCH_HOME, else $XDG_DATA_HOME/webwatch, else ~/.local/share/webwatch. */
export function engineHome(env: Readonly<Record<string, string | undefined>>): string {
  if (env.WEBWATCH_HOME) return env.WEBWATCH_HOME;
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'webwatch');
  return join(env.HOME ?? homedir(), '.local', 'share', 'webwatch');
}

export function databasePath(env: Readonly<Record<string, string | undefined>>): string {
  return join(engineHome(env), 'webwatch.db');
}

const schemaVersion = (db: Db) => db.pragma('user_version', { simple: true }) as number;

export function migrate(db: Db): void {
  const current = schemaVersion(db);
  const latest = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
  if (current > latest) {
    throw new WebwatchError(`the engine database is at schema version ${current}, newer than this webwatch knows (${latest}); upgrade webwatch`);
  }
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      // Another process opening the same new database may have applied it while this one waited.
      if (schemaVersion(db) >= migration.version) return;
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}

const OWNER_ONLY_DIRECTORY = 0o700;
const OWNER_ONLY_FILE = 0o600;

/** The database file and the files SQLite keeps beside it while it is open or after a crash. */
const databaseFiles = (path: string) => [path, `${path}-wal`, `${path}-shm`, `${path}-journal`];

/**
 * Takes group and other permissions off the database files that exist and belong to this user
 * (those of earlier versions were 0644). Files of another user are left to their owner.
 */
function restrictToOwner(path: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  for (const file of databaseFiles(path)) {
    let mode: number;
    try {
      const stat = statSync(file);
      if (stat.uid !== uid) continue;
      mode = stat.mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) chmodSync(file, mode & 0o700);
  }
}

/**
 * A missing home directory is created 0700; an existing one keeps its mode, as WEBWATCH_HOME
 * may name a directory the user shares with other things. A missing database file is created
 * empty and 0600 before SQLite opens it, because SQLite gives the -wal and -shm files it
 * creates the mode of the database file.
 */
function prepareFiles(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: OWNER_ONLY_DIRECTORY });
  try {
    closeSync(openSync(path, 'wx', OWNER_ONLY_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  restrictToOwner(path);
}

export function openDatabase(path: string): Db {
  let db: Db;
  try {
    prepareFiles(path);
    db = new Database(path);
  } catch (error) {
    const message = (error as Error).message;
    // better-sqlite3 finds its compiled module only when opening: an install with
    // --ignore-scripts, enough for validate and for an API, has none.
    if (message.startsWith('Could not locate the bindings file')) {
      throw new WebwatchError(`cannot open the engine database ${path}: the native SQLite module (better-sqlite3) was never built`, {
        cause: error,
        suggestion: 'the local engine needs it: install webwatch without --ignore-scripts, or run npm rebuild better-sqlite3 where webwatch is installed',
      });
    }
    throw new WebwatchError(`cannot open the engine database ${path}: ${message}`, { cause: error });
  }
  // Another webwatch process may hold the write lock for a moment: wait rather than fail. Set
  // first: switching to WAL takes a lock too.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Foreign keys are enforced once the schema is current: a migration that rebuilds a table
  // must not cascade deletes into the tables that refer to it (better-sqlite3 turns them on).
  db.pragma('foreign_keys = OFF');
  migrate(db);
  db.pragma('foreign_keys = ON');
  return db;
}
