/**
 * The read-only connection of Db.readNow (prepared.ts): serve's per-request reads, run at once,
 * outside the query layer's one-at-a-time lock, seeing committed rows only.
 *
 * What it read is answered again until a table it read from changes: reading twenty monitors
 * costs some two hundred microseconds of better-sqlite3's row building, knowing whether they
 * changed a few. Changes are known two ways. This process's writer announces each statement
 * it ran (`written`): an insert or update changes its table once committed, anything else
 * (a delete, whose cascades reach other tables, or a schema change) every table. Commits of
 * other processes move SQLite's `data_version` as the writer's connection sees it, and then
 * nothing remembered is trusted. The usage ledger, written on every request, thus no longer
 * makes the key, the scrape cache or the monitor list be read again. Rows are shared between
 * the reads that get them: callers only read them.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { keptStatements, type StatementSource } from './sqlite-statements.js';

/** Reads remembered at once: every query of serve's hot paths, for many teams and keys. */
const REMEMBERED_READS = 2000;

const READ = /^\s*(select|explain|pragma\s+\w+\s*(;|$))/i;
const TRANSACTION_CONTROL = /^\s*(begin|commit|end|rollback|savepoint|release)\b/i;
const WRITE_OF_ONE_TABLE = /^\s*(?:insert\s+(?:or\s+\w+\s+)?into|replace\s+into|update(?:\s+or\s+\w+)?)\s+"?([A-Za-z_]\w*)"?/i;
const TABLES_READ = /\b(?:from|join)\s+"?([A-Za-z_]\w*)"?/gi;

export interface SqliteReader {
  read(sql: string, parameters: readonly unknown[]): unknown[];
  /** The writer ran `sql` on its connection (`inTransaction`: whether a transaction is still open). */
  written(sql: string, inTransaction: boolean): void;
  close(): void;
}

export function sqliteReader(open: () => BetterSqlite3.Database, writer: BetterSqlite3.Database): SqliteReader {
  let statements: StatementSource | undefined;
  let othersCommitted: BetterSqlite3.Statement | undefined;
  let othersSeen: unknown;
  let othersLookedFor = false;
  /** A change count, and the count at each table's last change (and at the last change of all). */
  let changes = 0;
  const changedAt = new Map<string, number>();
  let allChangedAt = 0;
  /** Tables written in the transaction still open: they change when it ends. */
  let pending: Set<string> | 'all' | undefined;
  const remembered = new Map<string, { rows: unknown[]; tables: string[]; at: number }>();
  const tablesOf = (sql: string) => [...new Set([...sql.matchAll(TABLES_READ)].map((match) => match[1]!))];
  const changed = (tables: Iterable<string> | 'all') => {
    changes++;
    if (tables === 'all') allChangedAt = changes;
    else for (const table of tables) changedAt.set(table, changes);
  };
  return {
    read(sql, parameters) {
      statements ??= keptStatements(open());
      othersCommitted ??= writer.prepare('pragma data_version').pluck();
      // Other processes' commits are looked for once per turn of the event loop: a read in the
      // same turn is answered as one made a moment earlier would have been.
      if (!othersLookedFor) {
        othersLookedFor = true;
        setImmediate(() => (othersLookedFor = false));
        const others = othersCommitted.get();
        if (others !== othersSeen) {
          remembered.clear();
          othersSeen = others;
        }
      }
      const key = `${sql}\u0000${JSON.stringify(parameters)}`;
      const known = remembered.get(key);
      if (known && allChangedAt <= known.at && known.tables.every((table) => (changedAt.get(table) ?? 0) <= known.at)) return known.rows;
      const rows = statements.prepare(sql).all(parameters as unknown[]);
      if (!known && remembered.size >= REMEMBERED_READS) remembered.delete(remembered.keys().next().value!);
      remembered.set(key, { rows, tables: known?.tables ?? tablesOf(sql), at: changes });
      return rows;
    },
    written(sql, inTransaction) {
      if (READ.test(sql)) return;
      if (TRANSACTION_CONTROL.test(sql)) {
        // A transaction's end makes what it wrote visible (or, rolled back, changes nothing: counted all the same).
        if (!inTransaction && pending) changed(pending);
        if (!inTransaction) pending = undefined;
        return;
      }
      const table = WRITE_OF_ONE_TABLE.exec(sql)?.[1];
      const tables: Set<string> | 'all' = table === undefined ? 'all' : new Set([table]);
      if (inTransaction) {
        // Not yet visible to the reader; what it reads meanwhile is read again once committed.
        if (tables === 'all' || pending === 'all') pending = 'all';
        else pending = new Set([...(pending ?? []), ...tables]);
        return;
      }
      changed(tables);
      if (pending) changed(pending);
      pending = undefined;
    },
    close: () => statements?.close(),
  };
}
