/**
 * Trace errors as the engine records them. The events' types are the contract's
 * (src/contract/agent.ts); the store assigns `producerSequence`, gapless per run.
 */
export type { AgentRole, AgentIdentity, TraceErrorCode, TraceError, RunOutcome, ArtifactChange, TraceEventBody, TraceEvent } from '../../contract/agent.js';
import type { TraceError, TraceErrorCode } from '../../contract/agent.js';

/** Whether a trace error is worth retrying (spec §6.2: read like the retryable column of §7). */
export const RETRYABLE_TRACE_CODES: ReadonlySet<TraceErrorCode> = new Set(['internal']);

export function traceError(code: TraceErrorCode, message: string, source: TraceError['source'] = 'system'): TraceError {
  return { code, source, retryable: RETRYABLE_TRACE_CODES.has(code), message };
}
