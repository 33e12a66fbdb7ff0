/**
 * The agent routes of `webwatch serve` (spec §4.2, shapes as the hosted SDK types them): jobs
 * are queued for a worker, count against the key's concurrency, belong to the key's team, and
 * answer with the messages of spec §7.3 to the letter.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { MODEL_NOT_CONFIGURED_CODE } from '../../engine/agent/agent-jobs.js';
import { agentListItem, agentStatusDocument } from '../../engine/agent/wire.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { isJobId, validateAgentRequest } from '../../spec/agent.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { formatPath } from '../../spec/issues.js';
import { AGENT_WEBHOOK_EVENTS, normalizeJobWebhook } from '../../spec/job-webhook.js';
import { refusePrivateHosts } from '../../engine/fetch/target-hosts.js';
import type { RouteDeps } from './deps.js';

const LIST_PAGE = 50;

type JobRequest = FastifyRequest<{ Params: { id: string } }>;

function jobId(request: JobRequest): string {
  if (!isJobId(request.params.id)) throw new WebwatchError(ERROR_MESSAGES.agentInvalidJobId, { status: 400 });
  return request.params.id;
}

export const agentRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  const jobs = (request: FastifyRequest) => deps.servicesOf(request).agents.jobs();

  app.post('/v2/agent', async (request, reply) => {
    const validation = validateAgentRequest(request.body ?? {});
    if (!validation.ok) {
      throw new WebwatchError(ERROR_MESSAGES.badRequest, {
        status: 400,
        details: validation.problems.map((p) => ({ path: formatPath(p.path), message: p.message })),
      });
    }
    const webhook = validation.value.webhook ? normalizeJobWebhook(validation.value.webhook, AGENT_WEBHOOK_EVENTS) : undefined;
    // A refusal names the webhook's URL (deliveries apply the rule again, at connect time).
    if (deps.checkUrl && webhook) await refusePrivateHosts([new URL(webhook.url)], deps.checkUrl);
    if (await app.limits.outOfCredits(request, reply)) return reply;
    let job;
    try {
      // Queued for whichever worker has room; its trace fills as the worker runs it.
      job = await (await jobs(request)).enqueue(validation.value, deps.work.context(request), webhook);
    } catch (error) {
      if (error instanceof WebwatchError && error.code === MODEL_NOT_CONFIGURED_CODE) {
        throw new WebwatchError(ERROR_MESSAGES.agentPassthroughFailed, { status: 500, code: error.code, details: { reason: error.message } });
      }
      throw error;
    }
    await deps.work.queued();
    return { success: true, id: job.id };
  });

  app.get<{ Querystring: { before?: string } }>('/v2/agent', async (request) => {
    const before = request.query.before === undefined ? undefined : Number(request.query.before);
    if (before !== undefined && !Number.isFinite(before)) {
      throw new WebwatchError(ERROR_MESSAGES.badRequest, { status: 400, details: [{ path: 'before', message: 'must be a time in milliseconds since 1970' }] });
    }
    const list = await (await jobs(request)).list({ limit: LIST_PAGE, ...(before !== undefined && { before }) });
    const last = list.length === LIST_PAGE ? list[list.length - 1] : undefined;
    const next = last && new URL(`${request.protocol}://${request.host}/v2/agent?before=${Date.parse(last.createdAt)}`).href;
    return { success: true, agents: list.map(agentListItem), ...(next && { next }) };
  });

  app.get<{ Params: { id: string } }>('/v2/agent/:id', async (request) => agentStatusDocument(await (await jobs(request)).get(jobId(request))));

  app.get<{ Params: { id: string }; Querystring: { since?: string; waitMs?: string } }>('/v2/agent/:id/trace', async (request) => {
    const id = jobId(request);
    const since = Math.max(0, Number(request.query.since ?? 0) || 0);
    // A follower waits here for the next event instead of asking again and again.
    const waitMs = Math.max(0, Number(request.query.waitMs ?? 0) || 0);
    const closed = new AbortController();
    request.raw.once('close', () => closed.abort());
    const { job, events } = await (await jobs(request)).trace(id, since, { waitMs, signal: closed.signal });
    return { success: true, id, events, creditsUsed: job.creditsUsed };
  });

  app.get<{ Params: { id: string; snapshotId: string } }>('/v2/agent/:id/snapshots/:snapshotId', async (request) => {
    const id = jobId(request);
    if (!isJobId(request.params.snapshotId)) throw new WebwatchError(ERROR_MESSAGES.agentInvalidSnapshotId, { status: 400 });
    return { success: true, id, snapshotId: request.params.snapshotId, snapshot: await (await jobs(request)).snapshot(id, request.params.snapshotId) };
  });

  app.delete<{ Params: { id: string } }>('/v2/agent/:id', async (request) => {
    await (await jobs(request)).cancel(jobId(request));
    return { success: true };
  });
};
