/**
 * The read-only connection of Db.readNow (prepared.ts): serve's per-request reads, run at once,
 * outside the query layer's one-at-a-time lock, seeing committed rows only.
 *
 * What it read is answered again while the database has not changed: SQLite's `data_version`
 * moves at every commit of any other connection (this process's writer, or another process),
 * and costs a few microseconds to ask, where reading a list of twenty monitors costs two
 * hundred. Rows are shared between the reads that get them: callers only read them.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { keptStatements, type StatementSource } from './sqlite-statements.js';

/** Reads remembered at once: every query of serve's hot paths, for many teams and keys. */
const REMEMBERED_READS = 2000;

export interface SqliteReader {
  read(sql: string, parameters: readonly unknown[]): unknown[];
  close(): void;
}

export function sqliteReader(open: () => BetterSqlite3.Database): SqliteReader {
  let statements: StatementSource | undefined;
  let version: BetterSqlite3.Statement | undefined;
  let readAt: unknown;
  const remembered = new Map<string, unknown[]>();
  return {
    read(sql, parameters) {
      if (!statements) {
        const connection = open();
        statements = keptStatements(connection);
        version = connection.prepare('pragma data_version').pluck();
      }
      const now = version!.get();
      if (now !== readAt) {
        remembered.clear();
        readAt = now;
      }
      const key = `${sql}\u0000${JSON.stringify(parameters)}`;
      let rows = remembered.get(key);
      if (!rows) {
        rows = statements.prepare(sql).all(parameters as unknown[]);
        if (remembered.size >= REMEMBERED_READS) remembered.delete(remembered.keys().next().value!);
        remembered.set(key, rows);
      }
      return rows;
    },
    close: () => statements?.close(),
  };
}
