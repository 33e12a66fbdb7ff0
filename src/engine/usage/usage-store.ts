/**
 * The usage ledger: what the engine did for a team, in credits (spec §8's costs: a page 1, a
 * map 1, a search 2 per 10 results, an agent job what it charged) and model tokens, written as
 * the work is done. The key behind a request of serve is taken from the request's context, so
 * that usage can be told apart per key.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from '../store/database.js';

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

export function usageStore(db: Db) {
  const insert = db.prepare('INSERT INTO usage (team, key_id, kind, credits, tokens, at) VALUES (?, ?, ?, ?, ?, ?)');
  return {
    record(team: string, entry: { kind: UsageKind; credits?: number; tokens?: number }, at: Date): void {
      const credits = Math.max(0, Math.round(entry.credits ?? 0));
      const tokens = Math.max(0, Math.round(entry.tokens ?? 0));
      if (credits === 0 && tokens === 0) return;
      insert.run(team, usageKey.getStore()?.keyId ?? null, entry.kind, credits, tokens, at.toISOString());
    },

    /** Credits and tokens of a team from `from` (inclusive) to `to` (exclusive). */
    totals(team: string, from: Date, to: Date): { credits: number; tokens: number } {
      const row = db.prepare<[string, string, string], { credits: number | null; tokens: number | null }>('SELECT sum(credits) AS credits, sum(tokens) AS tokens FROM usage WHERE team = ? AND at >= ? AND at < ?')
        .get(team, from.toISOString(), to.toISOString());
      return { credits: row?.credits ?? 0, tokens: row?.tokens ?? 0 };
    },

    /** Per calendar month, newest first, optionally per key (`key_id`, null for the command line's). */
    byMonth(team: string, byKey: boolean): (UsagePeriod & { keyId: string | null })[] {
      const rows = db.prepare<[string], { month: string; key_id: string | null; credits: number; tokens: number }>(
        `SELECT substr(at, 1, 7) AS month, ${byKey ? 'key_id' : 'NULL AS key_id'}, sum(credits) AS credits, sum(tokens) AS tokens
         FROM usage WHERE team = ? GROUP BY month${byKey ? ', key_id' : ''} ORDER BY month DESC${byKey ? ', key_id' : ''}`,
      ).all(team);
      return rows.map((row) => {
        const { start, end } = monthOf(new Date(`${row.month}-01T00:00:00Z`));
        return { startDate: start.toISOString(), endDate: end.toISOString(), creditsUsed: row.credits, tokensUsed: row.tokens, keyId: row.key_id };
      });
    },
  };
}

export type UsageStore = ReturnType<typeof usageStore>;
