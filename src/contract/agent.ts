/**
 * Agent jobs as every side sees them, in the shapes the hosted SDK types: trace events in the
 * canonical schema v1 (`AgentTraceEvent`: each carries its schema version, id, run, time,
 * producer sequence and the agent that produced it), and the status, list and trace documents
 * (`AgentStatusResponse`, `AgentListItem`, `AgentTraceResponse`). Types only: the engine, both
 * backends, serve and the command line read them from here.
 */

export type AgentEffort = 'low' | 'medium' | 'high';

export type AgentRole = 'orchestrator' | 'subagent' | 'browser' | 'system';

export interface AgentIdentity {
  id: string;
  role: AgentRole;
  name: string;
  parentId?: string;
}

/** Trace error codes of spec §7.4. */
export type TraceErrorCode = 'cancelled' | 'credit_limit_reached' | 'parent_finished' | 'refused' | 'internal';

export interface TraceError {
  code: TraceErrorCode;
  source: 'agent' | 'tool' | 'billing' | 'system';
  retryable: boolean;
  message: string;
}

export type RunOutcome = 'succeeded' | 'failed' | 'cancelled' | 'refused' | 'credit_limit_reached';

export interface ArtifactChange {
  kind: 'json' | 'markdown' | 'html' | 'screenshot' | 'text';
  artifactId: string;
  path?: string;
  snapshotId: string;
  change: 'init' | 'partial' | 'append' | 'modify' | 'update';
  changedFields?: string[];
  itemCount?: number;
  sourceToolCallId?: string;
}

/** What a producer records: the store adds the envelope (ids, time, sequence). */
export type TraceEventBody =
  | { type: 'run.started' }
  | { type: 'run.cancel_requested'; reason: 'user' }
  | { type: 'run.finished'; outcome: RunOutcome; error: TraceError | null }
  | { type: 'agent.started' }
  | { type: 'agent.finished'; outcome: Exclude<RunOutcome, 'credit_limit_reached'>; durationMs: number; error: TraceError | null }
  /** `modelTurn` (webwatch's own field): the agent asks its model for turn N now. */
  | { type: 'progress.reported'; phase: 'planning' | 'working' | 'finalizing'; message: string; modelTurn?: number }
  | { type: 'reasoning.summary'; text: string }
  | { type: 'tool_call.started'; toolCallId: string; toolName: string; parameters: unknown }
  /** `durationMs` (webwatch's own field): how long the call took; absent from other APIs' traces. */
  | { type: 'tool_call.finished'; toolCallId: string; toolName: string; result: unknown; durationMs?: number }
  | { type: 'artifact.updated'; artifact: ArtifactChange }
  | { type: 'error.occurred'; error: TraceError };

export type TraceEvent = TraceEventBody & {
  schemaVersion: 1;
  eventId: string;
  runId: string;
  occurredAt: string;
  producerSequence: number;
  agent: AgentIdentity;
};

export interface AgentStatusDocument {
  success: boolean;
  status: 'processing' | 'completed' | 'failed';
  error?: string;
  data?: unknown;
  model?: string;
  effort?: AgentEffort;
  expiresAt: string;
  creditsUsed?: number;
}

export interface AgentListItem {
  id: string;
  createdAt: string;
  targetHint: string;
  origin: string;
  settings: { hidden: boolean; starred: boolean };
  status: 'processing' | 'completed' | 'failed';
  options?: { urls?: string[]; prompt: string; schema?: unknown; model: string; effort?: AgentEffort };
}

export interface AgentTraceDocument {
  success: boolean;
  id?: string;
  events?: TraceEvent[];
  creditsUsed?: number;
}
