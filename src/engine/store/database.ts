/**
 * The engine's one SQLite database (WAL): opened lazily, migrated on open. better-sqlite3 is
 * synchronous, which suits a CLI and keeps transactions simple; it is loaded only by commands
 * that use the engine.
 */
import { mkdirSync } from 'node:fs';
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

export function openDatabase(path: string): Db {
  mkdirSync(dirname(path), { recursive: true });
  let db: Db;
  try {
    db = new Database(path);
  } catch (error) {
    throw new WebwatchError(`cannot open the engine database ${path}: ${(error as Error).message}`, { cause: error });
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
