/** Secrets never reach output: header values (cookies, tokens, webhook secrets) are masked. */

import { MASKED_VALUE } from '../spec/header-masks.js';

/** The mask serve answers too, so that what the command line prints can be sent back to it. */
export const REDACTED = MASKED_VALUE;

function maskValues(headers: unknown): unknown {
  if (typeof headers !== 'object' || headers === null) return headers;
  return Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED]));
}

/**
 * A copy of a monitor definition with the values of every `headers` mapping masked
 * (webhook headers, and scrape options headers of each target).
 */
export function redactDefinition<T>(definition: T): T {
  const walk = (value: unknown, key?: string): unknown => {
    if (key === 'headers') return maskValues(value);
    if (Array.isArray(value)) return value.map((item) => walk(item));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    }
    return value;
  };
  return walk(definition) as T;
}

/** `webhook.headers`: the mapping itself. */
const HEADERS = /(^|\.)headers$/;
/** `webhook.headers.Authorization`, `...headers["X Y"]`: one header's value. */
const ONE_HEADER = /(^|\.)headers(\.|\[)/;

function redactAt(path: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (ONE_HEADER.test(path)) return REDACTED;
  if (HEADERS.test(path)) return maskValues(value);
  // A whole webhook or target that appears or goes carries its headers inside it.
  return redactDefinition(value);
}

/** A field change of a plan as it may be shown: header values masked wherever they sit. */
export function redactChange<T extends { path: string; from: unknown; to: unknown }>(change: T): T {
  return { ...change, from: redactAt(change.path, change.from), to: redactAt(change.path, change.to) };
}
