/**
 * Agent jobs as the v2 wire carries them, in the shapes the hosted SDK types
 * (`AgentStatusResponse`, `AgentListItem`, `AgentTraceResponse`, `AgentSnapshotResponse`).
 */
import type { AgentJob } from './agent-store.js';

export type { AgentListItem, AgentStatusDocument, AgentTraceDocument } from '../../contract/agent.js';
import type { AgentListItem, AgentStatusDocument } from '../../contract/agent.js';

export function agentStatusDocument(job: AgentJob): AgentStatusDocument {
  return {
    success: true,
    status: job.status,
    ...(job.error !== null && { error: job.error }),
    ...(job.status === 'completed' && { data: job.data }),
    ...(job.model && { model: job.model }),
    ...(job.request.effort && { effort: job.request.effort }),
    expiresAt: job.expiresAt,
    creditsUsed: job.creditsUsed,
  };
}

export function agentListItem(job: AgentJob): AgentListItem {
  const { request } = job;
  return {
    id: job.id,
    createdAt: job.createdAt,
    targetHint: request.urls?.[0] ?? request.prompt.slice(0, 80),
    origin: request.origin ?? 'api',
    settings: { hidden: false, starred: false },
    status: job.status,
    options: { ...(request.urls && { urls: request.urls }), prompt: request.prompt, ...(request.schema && { schema: request.schema }), model: job.model ?? 'local', ...(request.effort && { effort: request.effort }) },
  };
}
