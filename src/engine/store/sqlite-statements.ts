/**
 * better-sqlite3's prepared statements, kept by their SQL. Kysely prepares every query it runs
 * anew, and preparing costs as much as running a small query (some 20 µs): a tenth of serve's
 * time under load went to it. A bounded number are kept, the least recently used dropped first.
 */
import type BetterSqlite3 from 'better-sqlite3';

/** Statements kept per connection: every query webwatch writes, with room for `in (...)` lists of many lengths. */
const KEPT_STATEMENTS = 500;

export interface StatementSource {
  prepare(sql: string): BetterSqlite3.Statement;
  close(): void;
}

export function keptStatements(connection: BetterSqlite3.Database, kept = KEPT_STATEMENTS): StatementSource {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(sql) {
      const known = statements.get(sql);
      // One still being iterated (a streamed query) cannot run a second time meanwhile.
      if (known && !known.busy) {
        statements.delete(sql);
        statements.set(sql, known);
        return known;
      }
      const statement = connection.prepare(sql);
      if (known) return statement;
      statements.set(sql, statement);
      if (statements.size > kept) statements.delete(statements.keys().next().value!);
      return statement;
    },
    close: () => connection.close(),
  };
}
