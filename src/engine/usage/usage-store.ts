/**
 * The usage ledger: what the engine did for a team, in credits (spec §8's costs: a page 1, a
 * map 1, a search 2 per 10 results, an agent job what it charged) and model tokens, written as
 * the work is done. Serve's engines each work for one key and write it beside each row, so that
 * usage can be told apart per key.
 */
import { sql, type Insertable } from 'kysely';
import type { Db } from '../store/database.js';
import { perDatabase } from '../store/prepared.js';
import type { Tables } from '../store/tables.js';

export type UsageKind = 'scrape' | 'crawl' | 'map' | 'search' | 'batch' | 'check' | 'agent' | 'judge' | 'extract' | 'interact';

export interface UsagePeriod {
  startDate: string;
  endDate: string;
  apiKey?: string;
  creditsUsed: number;
  tokensUsed: number;
}

/** The calendar month (UTC) of `at`: the billing period of the embedded engine. */
export function monthOf(at: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { start, end };
}

type LedgerRow = Insertable<Tables['usage']>;

/** Rows written in one statement at most: six values each, far under either database's bound on parameters. */
const LEDGER_ROWS_PER_WRITE = 500;

/**
 * The ledger's rows, written in groups: every scrape, search and map of serve adds one, and on
 * SQLite a commit costs some 60 µs while a row within one costs 13. Rows added while the event
 * loop runs are written together when it turns; each caller waits for the commit of its group,
 * so that no row is lost once its request has been answered.
 */
const ledgerOf = perDatabase((db: Db) => {
  const waiting: { row: LedgerRow; written: () => void; failed: (error: unknown) => void }[] = [];
  const write = async () => {
    const group = waiting.splice(0, LEDGER_ROWS_PER_WRITE);
    if (waiting.length > 0) setImmediate(() => void write());
    try {
      await db.query
        .insertInto('usage')
        .values(group.map((entry) => entry.row))
        .execute();
      for (const entry of group) entry.written();
    } catch (error) {
      for (const entry of group) entry.failed(error);
    }
  };
  return (row: LedgerRow) =>
    new Promise<void>((written, failed) => {
      if (waiting.push({ row, written, failed }) === 1) setImmediate(() => void write());
    });
});

export function usageStore(db: Db) {
  const q = db.query;
  return {
    /** `keyId`: the key of serve whose request (or queued work) did it; none for the command line's and scheduled work. */
    async record(team: string, entry: { kind: UsageKind; credits?: number; tokens?: number; keyId?: string | undefined }, at: Date): Promise<void> {
      const credits = Math.max(0, Math.round(entry.credits ?? 0));
      const tokens = Math.max(0, Math.round(entry.tokens ?? 0));
      if (credits === 0 && tokens === 0) return;
      await ledgerOf(db)({ team, key_id: entry.keyId ?? null, kind: entry.kind, credits, tokens, at: at.toISOString() });
    },

    /** Credits and tokens of a team from `from` (inclusive) to `to` (exclusive). */
    async totals(team: string, from: Date, to: Date): Promise<{ credits: number; tokens: number }> {
      const row = await q
        .selectFrom('usage')
        .select((eb) => [eb.fn.sum<number | null>('credits').as('credits'), eb.fn.sum<number | null>('tokens').as('tokens')])
        .where('team', '=', team)
        .where('at', '>=', from.toISOString())
        .where('at', '<', to.toISOString())
        .executeTakeFirst();
      return { credits: Number(row?.credits ?? 0), tokens: Number(row?.tokens ?? 0) };
    },

    /** Per calendar month, newest first, optionally per key (`key_id`, null for the command line's). */
    async byMonth(team: string, byKey: boolean): Promise<(UsagePeriod & { keyId: string | null })[]> {
      const month = sql<string>`substr(at, 1, 7)`;
      const rows = await q
        .selectFrom('usage')
        .select((eb) => [
          month.as('month'),
          byKey ? eb.ref('key_id').as('key_id') : sql<string | null>`NULL`.as('key_id'),
          eb.fn.sum<number>('credits').as('credits'),
          eb.fn.sum<number>('tokens').as('tokens'),
        ])
        .where('team', '=', team)
        .groupBy(byKey ? [month, 'key_id'] : [month])
        .orderBy(month, 'desc')
        .$if(byKey, (query) => query.orderBy('key_id'))
        .execute();
      return rows.map((row) => {
        const { start, end } = monthOf(new Date(`${row.month}-01T00:00:00Z`));
        return {
          startDate: start.toISOString(),
          endDate: end.toISOString(),
          creditsUsed: Number(row.credits),
          tokensUsed: Number(row.tokens),
          keyId: row.key_id,
        };
      });
    },
  };
}

export type UsageStore = ReturnType<typeof usageStore>;
