/** The error body (spec §7.1), retry rules (§7.5) and the error catalog (error-catalog.ts). */
import { z } from 'zod';

export { ERROR_MESSAGES, errorCode } from './error-catalog.js';

export const errorBodySchema = z.looseObject({
  success: z.literal(false).optional(),
  error: z.string(),
  code: z.string().optional(),
  details: z.unknown().optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Statuses a client retries with backoff (spec §7.2, §7.5). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** A PDF that is encrypted, broken or beyond the reader's bounds: the same file fails the same way again. */
const PDF_FAILURE_CODES = ['SCRAPE_PDF_ENCRYPTED', 'SCRAPE_PDF_UNREADABLE', 'SCRAPE_PDF_TOO_COMPLEX'];

/**
 * Failures of the target site rather than of the server (webwatch serve answers them 502 with
 * the code). Those of `TARGET_FAILURES_NOT_RETRIED` will not change by asking again.
 */
export const TARGET_FAILURE_CODES: ReadonlySet<string> = new Set([
  'SCRAPE_DNS_RESOLUTION_ERROR', 'SCRAPE_CONNECTION_FAILED', 'SCRAPE_TLS_ERROR', 'SCRAPE_FETCH_FAILED', 'SCRAPE_REDIRECT_LOOP',
  'SCRAPE_TOO_MANY_REDIRECTS', 'SCRAPE_RESPONSE_TOO_LARGE', 'SCRAPE_DECODING_ERROR',
  ...PDF_FAILURE_CODES,
]);
export const TARGET_FAILURES_NOT_RETRIED: ReadonlySet<string> = new Set([
  'SCRAPE_DNS_RESOLUTION_ERROR', 'SCRAPE_TLS_ERROR', 'SCRAPE_REDIRECT_LOOP', 'SCRAPE_TOO_MANY_REDIRECTS', 'SCRAPE_RESPONSE_TOO_LARGE', 'SCRAPE_DECODING_ERROR',
  ...PDF_FAILURE_CODES,
]);

/** Code of a server without a model for agent jobs (its 500 is configuration, not a fault). */
export const AGENT_MODEL_NOT_CONFIGURED = 'AGENT_MODEL_NOT_CONFIGURED';

/** Code of a server whose database has a damaged page: its 500 stays until the file is restored. */
export const DATABASE_CORRUPT = 'DATABASE_CORRUPT';

/** Error codes that asking again will not change, whatever the status: a client does not retry them. */
export const CODES_NOT_RETRIED: ReadonlySet<string> = new Set([...TARGET_FAILURES_NOT_RETRIED, AGENT_MODEL_NOT_CONFIGURED, DATABASE_CORRUPT]);

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), if it has a usable value. */
export function retryAfterSeconds(header: string | string[] | undefined, now: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}
