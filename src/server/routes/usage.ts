/**
 * Usage of the key's team, from the usage ledger (src/engine/usage): credits and model tokens
 * this month and by month, the key's concurrency, and the team's running jobs. serve has no plan:
 * without a monthly budget (--monthly-credits) nothing runs out, and `remainingCredits` says so
 * with UNLIMITED.
 */
import type { FastifyInstance } from 'fastify';
import { monthOf, usageStore } from '../../engine/usage/usage-store.js';
import type { Db } from '../../engine/store/database.js';
import type { RouteDeps } from './deps.js';

/** `remaining` without a budget: 2^31 - 1, what a signed 32-bit counter can hold. */
export const UNLIMITED = 2_147_483_647;

export interface UsageRouteOptions {
  db: Db;
  monthlyCredits?: number | undefined;
  monthlyTokens?: number | undefined;
  concurrencyPerKey: number;
  /** The key's jobs running now. */
  inFlight(keyId: string): number;
}

export function usageRoutes(app: FastifyInstance, { now }: RouteDeps, options: UsageRouteOptions): void {
  const usage = usageStore(options.db);
  const thisMonth = (team: string) => {
    const { start, end } = monthOf(now());
    return { start, end, ...usage.totals(team, start, end) };
  };

  app.get('/v2/team/credit-usage', async (request) => {
    const { start, end, credits } = thisMonth(request.team);
    const plan = options.monthlyCredits;
    return {
      success: true,
      data: {
        remainingCredits: plan === undefined ? UNLIMITED : Math.max(0, plan - credits),
        ...(plan !== undefined && { planCredits: plan }),
        creditsUsed: credits,
        billingPeriodStart: start.toISOString(),
        billingPeriodEnd: end.toISOString(),
      },
    };
  });

  app.get('/v2/team/token-usage', async (request) => {
    const { start, end, tokens } = thisMonth(request.team);
    const plan = options.monthlyTokens;
    return {
      success: true,
      data: {
        remainingTokens: plan === undefined ? UNLIMITED : Math.max(0, plan - tokens),
        ...(plan !== undefined && { planTokens: plan }),
        tokensUsed: tokens,
        billingPeriodStart: start.toISOString(),
        billingPeriodEnd: end.toISOString(),
      },
    };
  });

  const historical = (field: 'creditsUsed' | 'tokensUsed') => async (request: import('fastify').FastifyRequest<{ Querystring: { byApiKey?: string } }>) => {
    const byKey = request.query.byApiKey === 'true';
    const periods = usage.byMonth(request.team, byKey).map((period) => ({
      startDate: period.startDate,
      endDate: period.endDate,
      // The key's id, never the key; work of the command line and the scheduler has none.
      ...(byKey && { apiKey: period.keyId ?? 'none' }),
      [field]: period[field],
    }));
    return { success: true, periods };
  };
  app.get('/v2/team/credit-usage/historical', historical('creditsUsed'));
  app.get('/v2/team/token-usage/historical', historical('tokensUsed'));

  app.get('/v2/concurrency-check', async (request) => ({
    success: true,
    data: { concurrency: options.inFlight(request.keyId), maxConcurrency: options.concurrencyPerKey },
  }));

  app.get('/v2/team/queue-status', async (request) => {
    const team = request.team;
    const count = (sql: string) => (options.db.prepare<[string], { n: number }>(sql).get(team)?.n ?? 0);
    const active =
      count("SELECT count(*) AS n FROM crawl_jobs WHERE team = ? AND status = 'scraping'") +
      count("SELECT count(*) AS n FROM agent_jobs WHERE team = ? AND status = 'processing'") +
      count("SELECT count(*) AS n FROM checks JOIN monitors ON monitors.id = checks.monitor_id WHERE monitors.team = ? AND checks.status = 'running'");
    const latest = options.db.prepare<[string, string], { at: string | null }>(
      `SELECT max(at) AS at FROM (
         SELECT finished_at AS at FROM checks JOIN monitors ON monitors.id = checks.monitor_id WHERE monitors.team = ? AND checks.status = 'completed'
         UNION ALL SELECT finished_at FROM agent_jobs WHERE team = ? AND status = 'completed')`,
    ).get(team, team)?.at ?? null;
    // serve does not queue: beyond the key's concurrency it answers 429, so nothing waits.
    return { success: true, jobsInQueue: active, activeJobsInQueue: active, waitingJobsInQueue: 0, maxConcurrency: options.concurrencyPerKey, mostRecentSuccess: latest };
  });
}
