/**
 * Results sized for a model's context: text up to a budget, then cut with a note that says how
 * to read on (webwatch_more, with the result's id and the offset to start at). What was cut is
 * kept in memory, the most recent results only, for as long as the server runs.
 */
import { withoutControls } from '../engine/content/control-characters.js';
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { asWebwatchError, errorCodeOf } from '../errors/error-code.js';

/** Characters of one answer: some 6,000 tokens, a part of any model's context. */
export const RESULT_CHARS_DEFAULT = 24_000;
/** Long results kept for webwatch_more, oldest dropped first. */
const KEPT_RESULTS = 50;

export class ResultPages {
  private readonly kept = new Map<string, string>();

  constructor(readonly budget: number = RESULT_CHARS_DEFAULT) {}

  /** `text` whole when it fits, else its part from `offset` with a note on how to read on. */
  page(text: string, offset = 0, id?: string): string {
    if (offset === 0 && text.length <= this.budget) return text;
    const key = id ?? this.keep(text);
    const end = Math.min(text.length, offset + this.budget);
    const part = text.slice(offset, end);
    const rest =
      end < text.length
        ? `\n\n[cut at character ${end} of ${text.length}: call webwatch_more with {"id": "${key}", "offset": ${end}} for the rest]`
        : `\n\n[end of result ${key}: characters ${offset} to ${end} of ${text.length}]`;
    return part + rest;
  }

  /** The rest of a result cut before, or undefined when it is no longer kept. */
  more(id: string, offset: number): string | undefined {
    const text = this.kept.get(id);
    return text === undefined ? undefined : this.page(text, offset, id);
  }

  private keep(text: string): string {
    const id = randomUUID();
    this.kept.set(id, text);
    if (this.kept.size > KEPT_RESULTS) this.kept.delete(this.kept.keys().next().value!);
    return id;
  }
}

/** A tool's answer. Page text in it never carries control characters to the assistant (or its terminal). */
export const textResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text: withoutControls(text) }] });

/**
 * A failure in the model's terms: what and why (the §7 message), its code, and what to do, never
 * a stack. `isError` lets the model see it and try again differently.
 */
export function errorResult(error: unknown): CallToolResult {
  const failure = asWebwatchError(error);
  const lines = [`error (${errorCodeOf(failure)}): ${failure.message}`];
  if (Array.isArray(failure.details)) {
    for (const problem of failure.details.slice(0, 20)) {
      const { path, message } = (problem ?? {}) as { path?: unknown; message?: unknown };
      if (typeof message === 'string') lines.push(`- ${typeof path === 'string' && path ? `${path}: ` : ''}${message}`);
      else if (typeof problem === 'string') lines.push(`- ${problem}`);
    }
  } else if (typeof failure.details === 'object' && failure.details !== null) {
    // What the §7 message leaves out: which resource, and why.
    for (const [key, value] of Object.entries(failure.details)) {
      if (typeof value === 'string' || typeof value === 'number') lines.push(`${key}: ${value}`);
    }
  }
  if (failure.suggestion) lines.push(`hint: ${failure.suggestion}`);
  return { isError: true, content: [{ type: 'text', text: lines.join('\n') }] };
}

export const json = (value: unknown) => JSON.stringify(value, null, 2);
