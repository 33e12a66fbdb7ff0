/**
 * The usage ledger: what the engine did for a team, in credits (spec §8's costs: a page 1, a
 * map 1, a search 2 per 10 results, an agent job what it charged) and model tokens, written as
 * the work is done. The key behind a request of serve is taken from the request's context, so
 * that usage can be told apart per key.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { prepared, preparedQueries } from '../store/prepared.js';

export type UsageKind = 'scrape' | 'crawl' | 'map' | 'search' | 'batch' | 'check' | 'agent' | 'judge' | 'extract';

/** The key a request of serve came with; work it starts (in the background too) keeps it. */
export const usageKey = new AsyncLocalStorage<{ keyId: string }>();

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

/** Written by every scrape, search and map of serve: compiled once. */
const queriesOf = preparedQueries((db: Db) => ({
  insert: prepared<'team' | 'keyId' | 'kind' | 'credits' | 'tokens' | 'at', never>(db, (parameter) =>
    db.query.insertInto('usage').values({ team: parameter('team'), key_id: parameter('keyId'), kind: parameter('kind'), credits: parameter('credits'), tokens: parameter('tokens'), at: parameter('at') })),
}));

export function usageStore(db: Db) {
  const q = db.query;
  return {
    async record(team: string, entry: { kind: UsageKind; credits?: number; tokens?: number }, at: Date): Promise<void> {
      const credits = Math.max(0, Math.round(entry.credits ?? 0));
      const tokens = Math.max(0, Math.round(entry.tokens ?? 0));
      if (credits === 0 && tokens === 0) return;
      await queriesOf(db).insert({ team, keyId: usageKey.getStore()?.keyId ?? null, kind: entry.kind, credits, tokens, at: at.toISOString() });
    },

    /** Credits and tokens of a team from `from` (inclusive) to `to` (exclusive). */
    async totals(team: string, from: Date, to: Date): Promise<{ credits: number; tokens: number }> {
      const row = await q.selectFrom('usage').select((eb) => [eb.fn.sum<number | null>('credits').as('credits'), eb.fn.sum<number | null>('tokens').as('tokens')])
        .where('team', '=', team).where('at', '>=', from.toISOString()).where('at', '<', to.toISOString()).executeTakeFirst();
      return { credits: Number(row?.credits ?? 0), tokens: Number(row?.tokens ?? 0) };
    },

    /** Per calendar month, newest first, optionally per key (`key_id`, null for the command line's). */
    async byMonth(team: string, byKey: boolean): Promise<(UsagePeriod & { keyId: string | null })[]> {
      const month = sql<string>`substr(at, 1, 7)`;
      const rows = await q.selectFrom('usage')
        .select((eb) => [month.as('month'), byKey ? eb.ref('key_id').as('key_id') : sql<string | null>`NULL`.as('key_id'), eb.fn.sum<number>('credits').as('credits'), eb.fn.sum<number>('tokens').as('tokens')])
        .where('team', '=', team)
        .groupBy(byKey ? [month, 'key_id'] : [month])
        .orderBy(month, 'desc')
        .$if(byKey, (query) => query.orderBy('key_id'))
        .execute();
      return rows.map((row) => {
        const { start, end } = monthOf(new Date(`${row.month}-01T00:00:00Z`));
        return { startDate: start.toISOString(), endDate: end.toISOString(), creditsUsed: Number(row.credits), tokensUsed: Number(row.tokens), keyId: row.key_id };
      });
    },
  };
}

export type UsageStore = ReturnType<typeof usageStore>;
