/** Usage on a remote API: the team's credits and tokens this period, and by month, from four routes. */
import { compareText } from '../../lib/compare-text.js';
import type { UsageReport, UsageService } from '../../services/interfaces.js';
import type { Remote } from './remote.js';

type Usage = {
  remainingCredits?: number;
  planCredits?: number;
  creditsUsed?: number;
  remainingTokens?: number;
  planTokens?: number;
  tokensUsed?: number;
  billingPeriodStart?: string | null;
  billingPeriodEnd?: string | null;
};
type Periods = { periods?: { startDate: string | null; endDate: string | null; creditsUsed?: number; tokensUsed?: number }[] };

export function remoteUsage({ client, data }: Remote): UsageService {
  return {
    report: async () => {
      const [credits, tokens, creditMonths, tokenMonths] = await Promise.all([
        data<Usage>('GET', '/team/credit-usage'),
        data<Usage>('GET', '/team/token-usage'),
        client.request<Periods>('GET', '/team/credit-usage/historical'),
        client.request<Periods>('GET', '/team/token-usage/historical'),
      ]);
      const months = new Map<string, UsageReport['months'][number]>();
      for (const period of [...(creditMonths.periods ?? []), ...(tokenMonths.periods ?? [])]) {
        const key = `${period.startDate}|${period.endDate}`;
        const month = months.get(key) ?? { startDate: period.startDate, endDate: period.endDate, creditsUsed: 0, tokensUsed: 0 };
        month.creditsUsed += period.creditsUsed ?? 0;
        month.tokensUsed += period.tokensUsed ?? 0;
        months.set(key, month);
      }
      return {
        periodStart: credits.billingPeriodStart ?? '',
        periodEnd: credits.billingPeriodEnd ?? '',
        credits: { used: credits.creditsUsed ?? null, remaining: credits.remainingCredits ?? null, plan: credits.planCredits ?? null },
        tokens: { used: tokens.tokensUsed ?? null, remaining: tokens.remainingTokens ?? null, plan: tokens.planTokens ?? null },
        months: [...months.values()].sort((a, b) => compareText(b.startDate ?? '', a.startDate ?? '')),
      };
    },
  };
}
