/**
 * An agent trace for people: one line per event — the time, which agent, the event, and a
 * one-line summary (tool calls with their parameters in short, artifacts with their snapshot,
 * errors with their code).
 */
import type { TraceEvent } from '../engine/agent/trace.js';
import type { Style } from './style.js';

const SUMMARY_MAX = 100;

const short = (value: unknown): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > SUMMARY_MAX ? `${line.slice(0, SUMMARY_MAX - 1)}…` : line;
};

/** `url=https://… query=…`: each parameter as name=value, in short. */
const parameters = (value: unknown) =>
  value && typeof value === 'object' ? short(Object.entries(value).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ')) : short(value);

export function eventSummary(event: TraceEvent): string {
  switch (event.type) {
    case 'run.finished':
      return `${event.outcome}${event.error ? ` [${event.error.code}] ${short(event.error.message)}` : ''}`;
    case 'agent.finished':
      return `${event.outcome} after ${(event.durationMs / 1000).toFixed(1)} s${event.error ? ` [${event.error.code}] ${short(event.error.message)}` : ''}`;
    case 'run.cancel_requested':
      return `cancel requested (${event.reason})`;
    case 'progress.reported':
      return `${event.phase}: ${short(event.message)}`;
    case 'reasoning.summary':
      return short(event.text);
    case 'tool_call.started':
      return `${event.toolName} ${parameters(event.parameters)}`;
    case 'tool_call.finished':
      return `${event.toolName} -> ${short(event.result)}`;
    case 'artifact.updated':
      return `${event.artifact.kind} ${event.artifact.path ?? event.artifact.artifactId} (snapshot ${event.artifact.snapshotId})`;
    case 'error.occurred':
      return `[${event.error.code}] ${short(event.error.message)}${event.error.retryable ? ' (retryable)' : ''}`;
    default:
      return '';
  }
}

const time = (iso: string) => new Date(iso).toTimeString().slice(0, 8);

export function timelineLine(event: TraceEvent, style: Style): string {
  const failed = event.type === 'error.occurred' || ((event.type === 'run.finished' || event.type === 'agent.finished') && event.outcome !== 'succeeded');
  const name = event.type.padEnd(18);
  return `${style.dim(time(event.occurredAt))}  ${event.agent.name.padEnd(12)}  ${failed ? style.red(name) : style.bold(name)}  ${eventSummary(event)}`.trimEnd();
}
