/**
 * Agent jobs as the v2 wire carries them, in the shapes the hosted SDK types
 * (`AgentStatusResponse`, `AgentListItem`, `AgentTraceResponse`, `AgentSnapshotResponse`), and
 * extract jobs (`ExtractResponse`).
 */
import type { ExtractResult, ExtractStatusDocument } from '../../contract/extract.js';
import type { AgentJob, ExtractJob } from './agent-job.js';

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
    options: {
      ...(request.urls && { urls: request.urls }),
      prompt: request.prompt,
      ...(request.schema && { schema: request.schema }),
      model: job.model ?? 'local',
      ...(request.effort && { effort: request.effort }),
    },
  };
}

export function extractStatusDocument(job: ExtractJob): ExtractStatusDocument {
  const result = job.status === 'completed' ? (job.data as ExtractResult | undefined) : undefined;
  return {
    success: true,
    id: job.id,
    status: job.status,
    ...(job.error !== null && { error: job.error }),
    ...(result && { data: result.data }),
    ...(result?.sources && { sources: result.sources }),
    ...(result?.warnings && { warning: result.warnings.join('; ') }),
    expiresAt: job.expiresAt,
    creditsUsed: job.creditsUsed,
  };
}
