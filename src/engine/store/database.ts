/**
 * The engine's database: an embedded SQLite file (WAL) by default, or a PostgreSQL server that
 * several `webwatch serve` processes share. Both are reached through one query layer, Kysely,
 * so that every store module is written once; each is opened lazily and migrated on open, and
 * the PostgreSQL client (`pg`) is loaded only when a postgres:// address is given.
 *
 * The SQLite file holds webhook and scrape headers in plain text, so it and its companions are
 * readable by their owner only.
 */
import { chmodSync, closeSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import type { DatabaseConnection, Kysely, RawBuilder } from 'kysely';
import { UsageError, WebwatchError } from '../../errors/webwatch-error.js';
import { DATABASE_CORRUPT } from '../../spec/errors.js';
import { LATEST_VERSION, LEASES_FIRST, MIGRATIONS, SQLITE_HISTORY } from './migrations.js';
import { sqliteReader, type SqliteReader } from './sqlite-reader.js';
import { keptStatements } from './sqlite-statements.js';
import type { Tables } from './tables.js';
import type { Env } from '../../lib/env.js';

export type DatabaseKind = 'sqlite' | 'postgres';

/** The query layer over the engine's tables, or a transaction of it. */
export type Query = Kysely<Tables>;

export interface Db {
  readonly kind: DatabaseKind;
  readonly query: Query;
  /** Where it is, for messages: the file, or the server's address without its password. */
  readonly location: string;
  /** SQL naming the order rows of a table were written in (SQLite's rowid; PostgreSQL's seq column). */
  writtenOrder(column?: string): RawBuilder<number>;
  /** The schema version found on opening, before SQLite's history migrations ran (db migrate reports it). */
  readonly versionAtOpen?: number;
  /** SQLite: what SQLite said of the first damaged page a query met since opening (the health route reports it). */
  readonly damageSeen?: string | undefined;
  /**
   * SQLite: runs a read at once, on a connection of its own with its statements kept, seeing
   * committed rows only, and answers it again while the tables it read have not changed
   * (sqlite-reader.ts, prepared.ts); the rows are shared, never to be changed. Absent on
   * PostgreSQL, where every query is a round trip.
   */
  readNow?(sql: string, parameters: readonly unknown[]): unknown[];
  /**
   * PostgreSQL: calls `onNotify` at each NOTIFY on `channel`, on a connection of its own, until
   * the returned function is called. Absent on SQLite, which has no notifications.
   */
  listen?(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** WEBWATCH_HOME, else $XDG_DATA_HOME/webwatch, else ~/.local/share/webwatch. */
export function engineHome(env: Env): string {
  if (env.WEBWATCH_HOME) return env.WEBWATCH_HOME;
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'webwatch');
  return join(env.HOME ?? homedir(), '.local', 'share', 'webwatch');
}

export function databasePath(env: Env): string {
  return join(engineHome(env), 'webwatch.db');
}

/**
 * The database serve, keys and db commands use: `--database`, else WEBWATCH_DATABASE_URL, else
 * the config's `database.url`, else the embedded file. A `sqlite:PATH` address names a file.
 */
export function databaseLocation(env: Env, options: { flag?: string | undefined; configUrl?: string | undefined } = {}): string {
  return options.flag || env.WEBWATCH_DATABASE_URL || options.configUrl || databasePath(env);
}

export const isPostgresUrl = (location: string) => /^postgres(ql)?:\/\//i.test(location);

/** A database address as it may be shown: without its password. */
export function redactedUrl(location: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) return location;
  try {
    const url = new URL(location);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return `${location.split(':', 1)[0]}://(an address that does not parse)`;
  }
}

/** A file path from `sqlite:PATH`, `sqlite://PATH` or a plain path. */
export const sqlitePath = (location: string) => location.replace(/^sqlite:(\/\/)?/i, '');

export const isUniqueViolation = (error: unknown) => {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
};

/** Opens (and migrates) the database at `location`: a postgres:// address or a SQLite file. */
/**
 * `readConnection`: on SQLite, a second, read-only connection for the queries of serve's hot
 * paths (Db.readNow). A command of the command line reads once and goes: it has none.
 */
export async function openDatabase(location: string, options: { migrate?: boolean; readConnection?: boolean; connections?: number } = {}): Promise<Db> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location) && !isPostgresUrl(location) && !/^sqlite:/i.test(location)) {
    throw new UsageError(`the database address ${redactedUrl(location)} is neither postgres://... nor a SQLite file (sqlite:PATH or a path)`);
  }
  const db = isPostgresUrl(location)
    ? await openPostgres(location, options.connections ?? 10)
    : await openSqlite(sqlitePath(location), options.readConnection ?? false);
  if (options.migrate !== false) {
    try {
      await migrate(db);
    } catch (error) {
      await db.close();
      throw error;
    }
  }
  return db;
}

// --- SQLite -----------------------------------------------------------------------------------

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
 * creates the mode of the database file. An existing file must be a database (see
 * refuseUnusableFile) before anything of it is changed.
 */
async function prepareFiles(path: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true, mode: OWNER_ONLY_DIRECTORY });
  try {
    closeSync(openSync(path, 'wx', OWNER_ONLY_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    await refuseUnusableFile(path);
  }
  restrictToOwner(path);
}

/** The first 16 bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * How long an empty file may be a database that another process is creating: it creates the
 * file a moment before SQLite writes the first page (prepareFiles), and two webwatch commands
 * may start at once on a new home. An empty file older than this is refused at once.
 */
const NEW_FILE_GRACE_MS = 2000;
const NEW_FILE_POLL_MS = 25;

const DATABASE_EMPTY = 'DATABASE_EMPTY';
const DATABASE_NOT_SQLITE = 'DATABASE_NOT_SQLITE';

/**
 * Refuses an existing file that is empty or not a SQLite database, naming it. SQLite itself
 * would take an empty file for a new database, so that a store cut to nothing (a full disk, a
 * bad copy) would quietly start again with no monitors and no keys; and it says of a foreign
 * file only "file is not a database". The file is only read, never changed.
 */
export async function refuseUnusableFile(path: string): Promise<void> {
  let stat = statSync(path);
  const giveUpAt = Date.now() + NEW_FILE_GRACE_MS;
  while (stat.size === 0 && Date.now() - stat.mtimeMs < NEW_FILE_GRACE_MS && Date.now() < giveUpAt) {
    await sleep(NEW_FILE_POLL_MS);
    stat = statSync(path);
  }
  if (!stat.isFile()) throw new WebwatchError(`the engine database ${path} is not a file`, { code: DATABASE_NOT_SQLITE });
  if (stat.size === 0) {
    throw new WebwatchError(
      `the engine database ${path} is empty (0 bytes): it was cut short or never written, and webwatch will not start a new database in its place`,
      {
        code: DATABASE_EMPTY,
        suggestion: 'restore it from a backup; if it never held anything, delete it, and webwatch creates a new database there. The file is left as it is',
      },
    );
  }
  const header = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (!header.equals(SQLITE_HEADER)) {
    throw new WebwatchError(`the engine database ${path} is not a SQLite database (its first bytes are not SQLite's header)`, {
      code: DATABASE_NOT_SQLITE,
      suggestion:
        "check that this is the file you meant; to start afresh, move the file aside, and webwatch creates a new database there; if it was webwatch's, restore it from a backup. The file is left as it is",
    });
  }
}

/** SQLite's codes for a file whose pages are damaged, or that is not a database after all. */
const isDamage = (error: unknown) => /^SQLITE_(CORRUPT|NOTADB)/.test(String((error as { code?: unknown } | undefined)?.code ?? ''));

/**
 * A query met a damaged page (or a header that is no longer SQLite's). The message names the
 * file, for the operator; `reason`, what SQLite said, is what serve tells a client.
 */
export class DatabaseDamagedError extends WebwatchError {
  readonly reason: string;

  constructor(path: string, cause: Error & { code?: string }) {
    const reason = `${cause.message} (${cause.code})`;
    super(`the engine database ${path} is damaged: ${reason}`, {
      code: DATABASE_CORRUPT,
      cause,
      suggestion: `webwatch db check --database sqlite:${path} lists what is damaged; stop webwatch, keep a copy of the file, and restore the database from a backup`,
    });
    this.name = 'DatabaseDamagedError';
    this.reason = reason;
  }

  /** The message without the file's path, for those who are not the operator (serve's clients). */
  get withoutPath(): string {
    return `the database is damaged: ${this.reason}`;
  }
}

/** The connection with SQLite's damage errors turned into DatabaseDamagedError, each reported to `onDamage`. */
function namingDamage(connection: DatabaseConnection, path: string, onDamage: (error: DatabaseDamagedError) => void): DatabaseConnection {
  const translated = (error: unknown) => {
    if (!isDamage(error)) return error;
    const damaged = new DatabaseDamagedError(path, error as Error & { code?: string });
    onDamage(damaged);
    return damaged;
  };
  return {
    async executeQuery(query) {
      try {
        return await connection.executeQuery(query);
      } catch (error) {
        throw translated(error);
      }
    },
    async *streamQuery(query, chunkSize) {
      try {
        yield* connection.streamQuery(query, chunkSize);
      } catch (error) {
        throw translated(error);
      }
    },
  };
}

/**
 * better-sqlite3 ships a compiled SQLite for Linux (glibc and musl), macOS and Windows on x64 and
 * arm64, and loads it when a database is first opened. Elsewhere it finds none: said plainly,
 * with the way to build one, rather than as a missing-module stack.
 */
function missingSqliteBinary(path: string, error: unknown): WebwatchError | undefined {
  const code = (error as { code?: string }).code;
  if (code !== 'MODULE_NOT_FOUND' || !/better_sqlite3\.node|prebuilds/.test((error as Error).message)) return undefined;
  return new WebwatchError(`cannot open the engine database ${path}: better-sqlite3 has no compiled SQLite for ${process.platform}-${process.arch}`, {
    cause: error,
    suggestion:
      'build one where webwatch is installed: cd node_modules/better-sqlite3 && npx node-gyp rebuild --release (needs python3, make and a C++ compiler); or use a remote API (--api-url)',
  });
}

async function openSqlite(path: string, readConnection: boolean): Promise<Db> {
  const [{ default: Database }, kysely] = await Promise.all([import('better-sqlite3'), import('kysely')]);
  let raw: BetterSqlite3.Database;
  try {
    await prepareFiles(path);
    raw = new Database(path);
  } catch (error) {
    if (error instanceof WebwatchError) throw error;
    throw missingSqliteBinary(path, error) ?? new WebwatchError(`cannot open the engine database ${path}: ${(error as Error).message}`, { cause: error });
  }
  let versionAtOpen: number;
  try {
    // Another webwatch process may hold the write lock for a moment: wait rather than fail. Set
    // first: switching to WAL takes a lock too.
    raw.pragma('busy_timeout = 5000');
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    // Foreign keys are enforced once the schema is current: a migration that rebuilds a table
    // must not cascade deletes into the tables that refer to it (better-sqlite3 turns them on).
    raw.pragma('foreign_keys = OFF');
    versionAtOpen = sqliteVersion(raw);
    migrateSqliteHistory(raw);
  } catch (error) {
    raw.close();
    throw isDamage(error) ? new DatabaseDamagedError(path, error as Error & { code?: string }) : error;
  }

  let damageSeen: string | undefined;
  const noteDamage = (error: DatabaseDamagedError) => {
    damageSeen ??= error.reason;
  };
  /**
   * Transactions begin IMMEDIATE: a transaction that reads, then writes, takes the write lock
   * at once and waits for it (busy_timeout), instead of failing at its first write when
   * another process wrote in between. Every query's damage error names the file.
   */
  class ImmediateDriver extends kysely.SqliteDriver {
    private connection: DatabaseConnection | undefined;
    override async acquireConnection(): Promise<DatabaseConnection> {
      const connection = namingDamage(await super.acquireConnection(), path, noteDamage);
      return (this.connection ??= reader ? announcingWrites(connection, reader) : connection);
    }
    override async beginTransaction(connection: DatabaseConnection): Promise<void> {
      await connection.executeQuery(kysely.CompiledQuery.raw('begin immediate'));
    }
  }
  const statements = keptStatements(raw);
  // Serve's alone (readConnection), opened at its first read.
  const reader = readConnection
    ? sqliteReader(() => {
        const connection = new Database(path, { readonly: true, fileMustExist: true });
        connection.pragma('busy_timeout = 5000');
        return connection;
      }, raw)
    : undefined;
  /** Each statement run, told to the reader once it has run, so that it knows what changed. */
  const announcingWrites = (connection: DatabaseConnection, reader: SqliteReader): DatabaseConnection => ({
    async executeQuery(compiled) {
      try {
        return await connection.executeQuery(compiled);
      } finally {
        reader.written(compiled.sql, raw.inTransaction);
      }
    },
    streamQuery: (compiled, chunkSize) => connection.streamQuery(compiled, chunkSize),
  });
  class ImmediateDialect extends kysely.SqliteDialect {
    override createDriver() {
      return new ImmediateDriver({ database: statements });
    }
  }
  const query = new kysely.Kysely<Tables>({ dialect: new ImmediateDialect({ database: statements }) });
  return {
    kind: 'sqlite',
    query,
    location: path,
    versionAtOpen,
    get damageSeen() {
      return damageSeen;
    },
    writtenOrder: (column = 'rowid') => kysely.sql<number>`${kysely.sql.ref(column.replace(/seq$/, 'rowid'))}`,
    ...(reader && {
      readNow: (sql: string, parameters: readonly unknown[]) => {
        try {
          return reader.read(sql, parameters);
        } catch (error) {
          if (!isDamage(error)) throw error;
          const damaged = new DatabaseDamagedError(path, error as Error & { code?: string });
          noteDamage(damaged);
          throw damaged;
        }
      },
    }),
    close: async () => {
      reader?.close();
      await query.destroy();
    },
  };
}

const sqliteVersion = (raw: BetterSqlite3.Database) => raw.pragma('user_version', { simple: true }) as number;

/** Migrations 1 to 11, written for SQLite alone, run as they always did. */
function migrateSqliteHistory(raw: BetterSqlite3.Database): void {
  const current = sqliteVersion(raw);
  if (current > LATEST_VERSION) throw newerSchema(raw.name, current);
  for (const migration of SQLITE_HISTORY) {
    if (migration.version <= current) continue;
    raw
      .transaction(() => {
        // Another process opening the same new database may have applied it while this one waited.
        if (sqliteVersion(raw) >= migration.version) return;
        raw.exec(migration.sql);
        raw.pragma(`user_version = ${migration.version}`);
      })
      .immediate();
  }
}

// --- PostgreSQL -------------------------------------------------------------------------------

/** pg's type ids of bigint and numeric: counts and sums come back as them. */
const INT8 = 20;
const NUMERIC = 1700;

/** `connections`: the pool's most (serve sizes it to what it runs at once). */
async function openPostgres(url: string, connections: number): Promise<Db> {
  const [{ default: pg }, kysely] = await Promise.all([import('pg'), import('kysely')]);
  // Counts, sums and millisecond times fit a double exactly: read them as numbers, not strings.
  const types = {
    getTypeParser: (id: number, format?: 'text' | 'binary') =>
      id === INT8 || id === NUMERIC ? (value: string) => Number(value) : pg.types.getTypeParser(id, format),
  };
  const pool = new pg.Pool({ connectionString: url, types, max: connections, connectionTimeoutMillis: 10_000, application_name: 'webwatch' });
  // A connection the server drops while idle must not end the process; the next query reconnects.
  pool.on('error', () => undefined);
  const location = redactedUrl(url);
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end();
    throw new WebwatchError(`cannot connect to the database ${location}: ${(error as Error).message || (error as { code?: string }).code}`, { cause: error });
  }
  const query = new kysely.Kysely<Tables>({ dialect: new kysely.PostgresDialect({ pool }) });
  const listeners = new Set<() => Promise<void>>();
  return {
    kind: 'postgres',
    query,
    location,
    writtenOrder: (column = 'seq') => kysely.sql<number>`${kysely.sql.ref(column.replace(/rowid$/, 'seq'))}`,
    async listen(channel, onNotify) {
      // A client of its own, outside the pool: LISTEN holds for the connection's life.
      const client = new pg.Client({ connectionString: url, application_name: 'webwatch' });
      // A dropped connection ends the notifications; the caller's polling still finds the work.
      client.on('error', () => undefined);
      client.on('notification', (message) => {
        if (message.channel === channel) onNotify();
      });
      await client.connect();
      // Channel names are webwatch's own constants, never input: checked, then written as is.
      if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
      await client.query(`LISTEN ${channel}`);
      const stop = async () => {
        listeners.delete(stop);
        await client.end().catch(() => undefined);
      };
      listeners.add(stop);
      return stop;
    },
    close: async () => {
      await Promise.all([...listeners].map((stop) => stop()));
      await query.destroy();
    },
  };
}

// --- Schema versions --------------------------------------------------------------------------

function newerSchema(location: string, version: number): WebwatchError {
  return new WebwatchError(
    `the engine database ${location} is at schema version ${version}, newer than this webwatch knows (${LATEST_VERSION}); upgrade webwatch`,
  );
}

/** A lock number of PostgreSQL's advisory locks that only webwatch's migrations take. */
const MIGRATION_LOCK = 7_318_223_911;

export async function schemaVersion(db: Db): Promise<number> {
  const { sql } = await import('kysely');
  if (db.kind === 'sqlite') {
    const { rows } = await sql<{ user_version: number }>`pragma user_version`.execute(db.query);
    return rows[0]?.user_version ?? 0;
  }
  const exists = await sql<{ name: string | null }>`select to_regclass('webwatch_schema')::text as name`.execute(db.query);
  if (!exists.rows[0]?.name) return 0;
  const { rows } = await sql<{ version: number }>`select version from webwatch_schema`.execute(db.query);
  return rows[0]?.version ?? 0;
}

/** A database migrated with leases as version 12 gets the migrations that now come before them. */
// biome-ignore lint/suspicious/noExplicitAny: a migration runs on the schema of any version, which the tables' types do not describe
async function addLeasesFirstMissing(trx: import('kysely').Kysely<any>): Promise<void> {
  for (const migration of MIGRATIONS) {
    if ((LEASES_FIRST.missing as readonly number[]).includes(migration.version)) await migration.up(trx);
  }
}

/**
 * Brings the schema to LATEST_VERSION; refuses a database newer than this webwatch. Returns the
 * versions before and after. Several processes may start at once: on PostgreSQL an advisory
 * lock lets one migrate while the others wait; on SQLite each step is an IMMEDIATE transaction.
 */
export async function migrate(db: Db): Promise<{ from: number; to: number }> {
  const { sql } = await import('kysely');
  const from = await schemaVersion(db);
  if (from > LATEST_VERSION) throw newerSchema(db.location, from);
  if (db.kind === 'sqlite' && from === LATEST_VERSION) {
    // Up to date, as nearly every command finds it: no write transaction, one version read.
    await sql`pragma foreign_keys = ON`.execute(db.query);
    return { from: Math.min(from, db.versionAtOpen ?? from), to: from };
  }
  if (db.kind === 'sqlite') {
    await db.query.transaction().execute(async (trx) => {
      const { rows } = await sql<{ user_version: number }>`pragma user_version`.execute(trx);
      if (rows[0]?.user_version !== LEASES_FIRST.version) return;
      const table = await sql`select name from sqlite_master where type = 'table' and name = ${LEASES_FIRST.table}`.execute(trx);
      if (table.rows.length === 0) return;
      await addLeasesFirstMissing(trx);
      await sql.raw(`pragma user_version = ${LEASES_FIRST.resumeAt}`).execute(trx);
    });
    const start = await schemaVersion(db);
    for (const migration of MIGRATIONS) {
      if (migration.version <= start) continue;
      await db.query.transaction().execute(async (trx) => {
        const { rows } = await sql<{ user_version: number }>`pragma user_version`.execute(trx);
        if ((rows[0]?.user_version ?? 0) >= migration.version) return;
        await migration.up(trx);
        await sql.raw(`pragma user_version = ${migration.version}`).execute(trx);
      });
    }
    await sql`pragma foreign_keys = ON`.execute(db.query);
  } else {
    await db.query.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
      await sql`create table if not exists webwatch_schema (version integer not null)`.execute(trx);
      const { rows } = await sql<{ version: number }>`select version from webwatch_schema`.execute(trx);
      let version = rows[0]?.version ?? 0;
      if (rows.length === 0) await sql`insert into webwatch_schema (version) values (0)`.execute(trx);
      if (version > LATEST_VERSION) throw newerSchema(db.location, version);
      if (version === 0) {
        const { POSTGRES_BASELINE } = await import('./postgres-baseline.js');
        await sql.raw(POSTGRES_BASELINE.sql).execute(trx);
        version = POSTGRES_BASELINE.version;
      }
      if (version === LEASES_FIRST.version) {
        const table = await sql<{ name: string | null }>`select to_regclass(${LEASES_FIRST.table})::text as name`.execute(trx);
        if (table.rows[0]?.name) {
          await addLeasesFirstMissing(trx);
          version = LEASES_FIRST.resumeAt;
        }
      }
      for (const migration of MIGRATIONS) {
        if (migration.version <= version) continue;
        await migration.up(trx);
        version = migration.version;
      }
      await sql`update webwatch_schema set version = ${version}`.execute(trx);
    });
  }
  return { from: Math.min(from, db.versionAtOpen ?? from), to: await schemaVersion(db) };
}
