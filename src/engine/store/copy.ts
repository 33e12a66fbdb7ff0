/**
 * `webwatch db copy`: every row of one engine database into another, empty one (an embedded
 * SQLite file onto a PostgreSQL server, usually), in one transaction of the destination: it
 * holds all of the source or, on any failure, nothing. Both are brought to the same schema
 * version first, so their columns are the same (migrations.ts); rows are read in the order they
 * were written, so that what is read in that order (snapshots, deliveries) reads the same.
 */
import { WebwatchError } from '../../errors/webwatch-error.js';
import type { Db } from './database.js';
import type { Tables } from './tables.js';

type Table = keyof Tables;

/** Parents before children (foreign keys); request counts of the last minute are not worth moving. */
export const COPIED_TABLES: readonly Table[] = [
  'monitors',
  'checks',
  'page_results',
  'snapshots',
  'scrape_cache',
  'tracked_pages',
  'api_keys',
  'outbox',
  'crawl_jobs',
  'crawl_pages',
  'agent_jobs',
  'agent_events',
  'agent_snapshots',
  'usage',
];

/** Columns the destination numbers itself. */
const GENERATED: Partial<Record<Table, readonly string[]>> = { usage: ['id'] };

const ROWS_PER_READ = 500;

export interface CopyReport {
  tables: { table: Table; rows: number }[];
}

const count = async (db: Db, table: Table) =>
  Number(
    (
      await db.query
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst()
    )?.n ?? 0,
  );

export async function copyDatabase(from: Db, to: Db, onTable?: (table: Table, rows: number) => void): Promise<CopyReport> {
  const filled: string[] = [];
  for (const table of COPIED_TABLES) if ((await count(to, table)) > 0) filled.push(table);
  if (filled.length > 0) {
    throw new WebwatchError(`the destination ${to.location} already holds data (${filled.join(', ')}): db copy only fills an empty database`, {
      status: 409,
      suggestion: 'copy into a new database (createdb), or empty this one first',
    });
  }
  const tables: CopyReport['tables'] = [];
  await to.query.transaction().execute(async (trx) => {
    for (const table of COPIED_TABLES) {
      const skipped = new Set(GENERATED[table] ?? []);
      let copied = 0;
      for (let offset = 0; ; offset += ROWS_PER_READ) {
        // Offsets over the order of writing: the source is not written meanwhile (serve stopped).
        const rows = (await from.query.selectFrom(table).selectAll().orderBy(from.writtenOrder()).limit(ROWS_PER_READ).offset(offset).execute()) as Record<
          string,
          unknown
        >[];
        if (rows.length === 0) break;
        const values = rows.map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => !skipped.has(column))));
        await trx
          .insertInto(table)
          .values(values as never)
          .execute();
        copied += rows.length;
        if (rows.length < ROWS_PER_READ) break;
      }
      tables.push({ table, rows: copied });
      onTable?.(table, copied);
    }
  });
  // What was written is read back: each table holds as many rows as the source.
  for (const { table, rows } of tables) {
    const written = await count(to, table);
    if (written !== rows) throw new WebwatchError(`after the copy, ${table} holds ${written} rows in ${to.location} where ${from.location} has ${rows}`);
  }
  return { tables };
}
