/**
 * What an agent job and an extract job are, as the store reads them (agent-store.ts) and the
 * wire shows them (wire.ts): what the caller asked for, and how the run went.
 */
import type { AgentEffort } from '../../contract/agent.js';
import type { ExtractRequestInput } from '../../spec/extract.js';
import type { RunOutcome } from './trace.js';

export type { AgentEffort } from '../../contract/agent.js';

/** What the caller asked for (POST /v2/agent). */
export interface AgentRequest {
  prompt: string;
  urls?: string[];
  schema?: Record<string, unknown>;
  maxCredits?: number;
  effort?: AgentEffort;
  strictConstrainToURLs?: boolean;
  origin?: string;
  integration?: string;
}

/** What the caller asked for (POST /v2/extract). */
export type ExtractRequest = ExtractRequestInput;

export type JobKind = 'agent' | 'extract';

export interface JobFields {
  id: string;
  team: string;
  status: 'processing' | 'completed' | 'failed';
  outcome: RunOutcome | null;
  error: string | null;
  data: unknown;
  creditsUsed: number;
  model: string | null;
  cancelRequestedAt: string | null;
  createdAt: string;
  finishedAt: string | null;
  expiresAt: string;
}

export interface AgentJob extends JobFields {
  kind: 'agent';
  request: AgentRequest;
}

export interface ExtractJob extends JobFields {
  kind: 'extract';
  request: ExtractRequest;
}

export type StoredJob = AgentJob | ExtractJob;
