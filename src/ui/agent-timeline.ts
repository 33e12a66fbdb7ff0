/**
 * An agent trace for people: one line per event — the time, which agent, the event, and a
 * one-line summary (tool calls with their parameters in short and, when finished, how long they
 * took; artifacts with their snapshot; errors with their code). Everything in an event comes
 * from outside (a model, a web page, a server), so each piece is escaped where it is put in the
 * line, and the line is styled around them.
 */
import type { TraceEvent } from '../contract/agent.js';
import type { Style } from './style.js';
import { escapeControls, styled, type Styled } from './terminal-text.js';

const SUMMARY_MAX = 100;

const short = (value: unknown): string => {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > SUMMARY_MAX ? `${line.slice(0, SUMMARY_MAX - 1)}…` : line;
};

/** `url=https://… query=…`: each parameter as name=value, in short. */
const parameters = (value: unknown) =>
  value && typeof value === 'object'
    ? short(
        Object.entries(value)
          .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
          .join(' '),
      )
    : short(value);

/** 850 ms, 4.2 s, 2 min 5 s. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** The event's summary, unescaped (for tests and JSON-free logs). */
export function eventSummary(event: TraceEvent): string {
  switch (event.type) {
    case 'run.finished':
      return `${event.outcome}${event.error ? ` [${event.error.code}] ${short(event.error.message)}` : ''}`;
    case 'agent.finished':
      return `${event.outcome} after ${duration(event.durationMs)}${event.error ? ` [${event.error.code}] ${short(event.error.message)}` : ''}`;
    case 'run.cancel_requested':
      return `cancel requested (${event.reason})`;
    case 'progress.reported':
      return event.modelTurn !== undefined ? short(event.message) : `${event.phase}: ${short(event.message)}`;
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

const time = (iso: string) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '--:--:--' : date.toTimeString().slice(0, 8);
};

/** One timeline line; `durationMs` is shown after a finished tool call. */
export function timelineLine(event: TraceEvent, style: Style, durationMs?: number): Styled {
  const failed = event.type === 'error.occurred' || ((event.type === 'run.finished' || event.type === 'agent.finished') && event.outcome !== 'succeeded');
  const name = event.type.padEnd(18);
  const quiet = event.type === 'progress.reported' && event.modelTurn !== undefined;
  const summary = escapeControls(eventSummary(event));
  const took = durationMs === undefined ? '' : `  ${style.dim(duration(durationMs))}`;
  const kind = failed ? style.red(name) : quiet ? style.dim(name) : style.bold(name);
  return styled(
    `${style.dim(time(event.occurredAt))}  ${escapeControls(event.agent.name).padEnd(12)}  ${kind}  ${quiet ? style.dim(summary) : summary}${took}`.trimEnd(),
  );
}
