/** Plain SQL on a store's database, for tests that look under the store or write old rows. */
import { CompiledQuery } from 'kysely';
import type { Db } from '../../src/engine/store/database.js';

/** Rows of `text`, whose `?` take `params` in order (as $1, $2... on PostgreSQL). */
export async function sqlRows<T = Record<string, unknown>>(db: Db, text: string, ...params: unknown[]): Promise<T[]> {
  let n = 0;
  const dialectText = db.kind === 'postgres' ? text.replace(/\?/g, () => `$${++n}`) : text;
  return (await db.query.executeQuery(CompiledQuery.raw(dialectText, params))).rows as T[];
}

export async function sqlRow<T = Record<string, unknown>>(db: Db, text: string, ...params: unknown[]): Promise<T | undefined> {
  return (await sqlRows<T>(db, text, ...params))[0];
}
