/**
 * Usage of one team, from its usage ledger (engine/usage): credits and model tokens this month
 * and by month. The engine has no plan, so nothing runs out; serve's routes add its budgets.
 */
import { monthOf, usageStore, type UsagePeriod } from '../engine/usage/usage-store.js';
import type { UsageService } from './interfaces.js';
import type { Team } from './team.js';

export interface TeamUsageService extends UsageService {
  /** This month's bounds and what the team used in it. */
  thisMonth(): Promise<{ start: Date; end: Date; credits: number; tokens: number }>;
  /** What the team used by month, newest first; `byKey` splits each month by the key that spent it. */
  byMonth(byKey: boolean): Promise<(UsagePeriod & { keyId: string | null })[]>;
}

export function usageService(team: Team): TeamUsageService {
  const ledger = async () => usageStore(await team.db());
  const thisMonth = async () => {
    const { start, end } = monthOf(team.now());
    return { start, end, ...(await (await ledger()).totals(team.name, start, end)) };
  };
  const byMonth = async (byKey: boolean) => (await ledger()).byMonth(team.name, byKey);
  return {
    thisMonth,
    byMonth,
    report: async () => {
      const { start, end, credits, tokens } = await thisMonth();
      return {
        periodStart: start.toISOString(),
        periodEnd: end.toISOString(),
        credits: { used: credits, remaining: null, plan: null },
        tokens: { used: tokens, remaining: null, plan: null },
        months: (await byMonth(false)).map(({ startDate, endDate, creditsUsed, tokensUsed }) => ({ startDate, endDate, creditsUsed, tokensUsed })),
      };
    },
  };
}
