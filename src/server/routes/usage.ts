/**
 * Usage of the key's team, from its usage service (src/services/usage.ts): credits and model tokens
 * this month and by month, the team's page scrapes at once, and its queued and running jobs. serve has no plan:
 * without a monthly budget (--monthly-credits) nothing runs out, and `remainingCredits` says so
 * with UNLIMITED.
 */
import { workOfTeam } from '../../engine/store/work-queue.js';
import type { FastifyPluginAsync } from 'fastify';
import type { RouteDeps } from './deps.js';

/** `remaining` without a budget: 2^31 - 1, what a signed 32-bit counter can hold. */
export const UNLIMITED = 2_147_483_647;

export const usageRoutes: FastifyPluginAsync<RouteDeps> = async (app, { db, servicesOf }) => {
  const { limits } = app;

  app.get('/v2/team/credit-usage', async (request) => {
    const { start, end, credits } = await servicesOf(request).usage.thisMonth();
    const plan = limits.monthlyCredits;
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
    const { start, end, tokens } = await servicesOf(request).usage.thisMonth();
    const plan = limits.monthlyTokens;
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
    const periods = (await servicesOf(request).usage.byMonth(byKey)).map((period) => ({
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

  // As the hosted API answers it: at the top level, the team's page scrapes running now (queued work counts none).
  app.get('/v2/concurrency-check', async (request) => ({
    success: true,
    concurrency: await limits.running(request.team),
    maxConcurrency: limits.concurrencyPerTeam,
  }));

  app.get('/v2/team/queue-status', async (request) => {
    const team = request.team;
    const q = db.query;
    const { running, waiting } = await workOfTeam(db, team);
    const lastCheck = await q
      .selectFrom('checks')
      .innerJoin('monitors', 'monitors.id', 'checks.monitor_id')
      .select((eb) => eb.fn.max('checks.finished_at').as('at'))
      .where('monitors.team', '=', team)
      .where('checks.status', '=', 'completed')
      .executeTakeFirst();
    const lastAgent = await q
      .selectFrom('agent_jobs')
      .select((eb) => eb.fn.max('finished_at').as('at'))
      .where('team', '=', team)
      .where('status', '=', 'completed')
      .executeTakeFirst();
    const latest =
      [lastCheck?.at, lastAgent?.at]
        .filter((at): at is string => typeof at === 'string')
        .sort()
        .at(-1) ?? null;
    return {
      success: true,
      jobsInQueue: running + waiting,
      activeJobsInQueue: running,
      waitingJobsInQueue: waiting,
      maxConcurrency: limits.concurrencyPerTeam,
      mostRecentSuccess: latest,
    };
  });
};
