/** Secrets never reach output: header values (cookies, tokens, webhook secrets) are masked. */

export const REDACTED = '<redacted>';

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
