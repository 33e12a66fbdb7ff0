/**
 * Queries built and compiled once, then run with new values: the queries serve makes on every
 * request (the key, the key's unfinished work, the scrape cache, the monitor list, the usage
 * ledger). Building and compiling a query with Kysely costs more than SQLite takes to run it.
 *
 * On SQLite, a read runs at once on a connection of its own (Db.readNow), outside the query
 * layer's one-at-a-time lock: it sees committed rows only, as another process would, and does
 * not wait behind a long transaction of a crawl or a check. Writes, and everything on
 * PostgreSQL, go through the query layer as any other query.
 */
import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './database.js';

/** The stand-in value of a parameter while the query is compiled: no real value looks like it. */
const PARAMETER = '\u0000webwatch parameter\u0000';

export type PreparedQuery<P extends string, Row> = (values: Readonly<Record<P, unknown>>) => Promise<Row[]>;

/**
 * Compiles `build`'s query once; `parameter(name)` stands for a value given at each run.
 * Values written into the query itself (a status list, say) stay as compiled.
 */
export function prepared<P extends string, Row>(db: Db, build: (parameter: (name: P) => never) => Compilable<Row>): PreparedQuery<P, Row> {
  const compiled: CompiledQuery<Row> = build((name) => `${PARAMETER}${name}` as never).compile();
  const slots = compiled.parameters.map((value) =>
    typeof value === 'string' && value.startsWith(PARAMETER) ? (value.slice(PARAMETER.length) as P) : undefined,
  );
  const parametersOf = (values: Readonly<Record<P, unknown>>) =>
    compiled.parameters.map((value, index) => (slots[index] === undefined ? value : values[slots[index]!]));
  const readNow = compiled.query.kind === 'SelectQueryNode' ? db.readNow : undefined;
  if (readNow) {
    return (values) => {
      try {
        return Promise.resolve(readNow(compiled.sql, parametersOf(values)) as Row[]);
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }
  return async (values) => (await db.query.executeQuery<Row>({ ...compiled, parameters: parametersOf(values) })).rows;
}

/** What a store module makes once per database (its prepared queries), however often the store is opened. */
export function perDatabase<T>(make: (db: Db) => T): (db: Db) => T {
  const made = new WeakMap<Db, T>();
  return (db) => {
    let queries = made.get(db);
    if (!queries) {
      queries = make(db);
      made.set(db, queries);
    }
    return queries;
  };
}
