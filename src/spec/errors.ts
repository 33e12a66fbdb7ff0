/** The error body (spec §7.1) and the error catalog (§7.2, §7.3): the messages and codes scripts match on. */
import { z } from 'zod';
import { codeOfStatus } from '../errors/status-codes.js';

export const errorBodySchema = z.looseObject({
  success: z.literal(false).optional(),
  error: z.string(),
  code: z.string().optional(),
  details: z.unknown().optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

export const ERROR_MESSAGES = {
  badRequest: 'Bad Request',
  invalidUrl: 'Invalid URL',
  unauthorized: 'Unauthorized: Invalid token',
  paymentRequired: 'Payment Required: Insufficient credits',
  forbidden: 'Forbidden',
  promptInjection: 'SCRAPE_PROMPT_INJECTION_DETECTED',
  notFound: 'Not Found',
  lockdownCacheMiss: 'SCRAPE_LOCKDOWN_CACHE_MISS',
  noCachedData: 'SCRAPE_NO_CACHED_DATA',
  requestTimeout: 'Request Timeout',
  conflict: 'Conflict',
  /** A job start whose x-idempotency-key the team used before (409, the hosted API's words). */
  idempotencyKeyUsed: 'Idempotency key already used',
  payloadTooLarge: 'Payload Too Large',
  unprocessable: 'Unprocessable Entity',
  rateLimited: 'Rate limit exceeded',
  concurrencyLimited: 'Concurrency limit reached',
  internal: 'Internal Server Error',
  badGateway: 'Bad Gateway',
  unavailable: 'Service Unavailable',
  gatewayTimeout: 'Gateway Timeout',
  /** A map that ran out of its `timeout` (408, the hosted API's words). */
  mapTimeout: 'Map timed out',
  agentInvalidJobId: 'Invalid job ID format. Job ID must be a valid UUID.',
  agentInvalidSnapshotId: 'Invalid snapshot ID',
  agentNotFound: 'Agent job not found',
  agentSnapshotNotFound: 'Snapshot not found',
  agentAlreadyFinished: 'Agent already finished',
  agentAlreadyCancelled: 'Agent is already cancelled',
  agentPassthroughFailed: 'Failed to passthrough agent request.',
  /** An extract job id unknown to the key's team (webwatch's words: the spec names none). */
  extractNotFound: 'Extract job not found',
} as const;

/**
 * The `code` of every error body webwatch serve sends, so that a script can match on it
 * whatever the message says: the code of the catalog's message where it has its own, else the
 * status's. Failures of the target site, the cache rules and the engine carry codes of their
 * own (`SCRAPE_TIMEOUT`, `SCRAPE_LOCKDOWN_CACHE_MISS`...).
 */
const CODES_OF_MESSAGES: ReadonlyMap<string, string> = new Map([
  [ERROR_MESSAGES.invalidUrl, 'INVALID_URL'],
  [ERROR_MESSAGES.concurrencyLimited, 'CONCURRENCY_LIMIT_REACHED'],
  [ERROR_MESSAGES.promptInjection, ERROR_MESSAGES.promptInjection],
  [ERROR_MESSAGES.lockdownCacheMiss, ERROR_MESSAGES.lockdownCacheMiss],
  [ERROR_MESSAGES.noCachedData, ERROR_MESSAGES.noCachedData],
  [ERROR_MESSAGES.mapTimeout, 'MAP_TIMEOUT'],
  [ERROR_MESSAGES.agentInvalidJobId, 'INVALID_JOB_ID'],
  [ERROR_MESSAGES.agentInvalidSnapshotId, 'INVALID_SNAPSHOT_ID'],
  [ERROR_MESSAGES.agentNotFound, 'AGENT_NOT_FOUND'],
  [ERROR_MESSAGES.agentSnapshotNotFound, 'SNAPSHOT_NOT_FOUND'],
  [ERROR_MESSAGES.agentAlreadyFinished, 'AGENT_ALREADY_FINISHED'],
  [ERROR_MESSAGES.agentAlreadyCancelled, 'AGENT_ALREADY_CANCELLED'],
  [ERROR_MESSAGES.agentPassthroughFailed, 'AGENT_PASSTHROUGH_FAILED'],
  [ERROR_MESSAGES.extractNotFound, 'EXTRACT_NOT_FOUND'],
]);

/** The code of an error answer: its own when it has one, else its message's, else its status's. */
export function errorCode(status: number, message: string, own?: string): string {
  return own ?? CODES_OF_MESSAGES.get(message) ?? codeOfStatus(status);
}

/** Statuses a client retries with backoff (spec §7.2, §7.5). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** A PDF that is encrypted, broken or beyond the reader's bounds: the same file fails the same way again. */
const PDF_FAILURE_CODES = ['SCRAPE_PDF_ENCRYPTED', 'SCRAPE_PDF_UNREADABLE', 'SCRAPE_PDF_TOO_COMPLEX'];

/**
 * Failures of the target site rather than of the server (webwatch serve answers them 502 with
 * the code, or the status of TARGET_FAILURE_STATUS). Those of `TARGET_FAILURES_NOT_RETRIED` will
 * not change by asking again.
 */
export const TARGET_FAILURE_CODES: ReadonlySet<string> = new Set([
  'SCRAPE_DNS_RESOLUTION_ERROR',
  'SCRAPE_CONNECTION_FAILED',
  'SCRAPE_TLS_ERROR',
  'SCRAPE_FETCH_FAILED',
  'SCRAPE_REDIRECT_LOOP',
  'SCRAPE_TOO_MANY_REDIRECTS',
  'SCRAPE_RESPONSE_TOO_LARGE',
  'SCRAPE_DECODING_ERROR',
  ...PDF_FAILURE_CODES,
]);
/** Target failures answered with another status than 502, as the hosted API answers them: a certificate that fails verification is 500. */
export const TARGET_FAILURE_STATUS: ReadonlyMap<string, number> = new Map([['SCRAPE_TLS_ERROR', 500]]);
export const TARGET_FAILURES_NOT_RETRIED: ReadonlySet<string> = new Set([
  'SCRAPE_DNS_RESOLUTION_ERROR',
  'SCRAPE_TLS_ERROR',
  'SCRAPE_REDIRECT_LOOP',
  'SCRAPE_TOO_MANY_REDIRECTS',
  'SCRAPE_RESPONSE_TOO_LARGE',
  'SCRAPE_DECODING_ERROR',
  ...PDF_FAILURE_CODES,
]);

/**
 * A PDF with more pages than its scrape's timeout can read (engine/pdf/time-estimate.ts):
 * refused at once, its message starting with the hosted API's words `Insufficient time to process
 * PDF`. Asking again with the same timeout fails the same way, whatever its 408 says.
 */
export const PDF_INSUFFICIENT_TIME = 'SCRAPE_PDF_INSUFFICIENT_TIME_ERROR';
export const PDF_INSUFFICIENT_TIME_MESSAGE = 'Insufficient time to process PDF';

/** Code of a server without a model for agent jobs (its 500 is configuration, not a fault). */
export const AGENT_MODEL_NOT_CONFIGURED = 'AGENT_MODEL_NOT_CONFIGURED';

/** Code of a server whose database has a damaged page: its 500 stays until the file is restored. */
export const DATABASE_CORRUPT = 'DATABASE_CORRUPT';

/** Error codes that asking again will not change, whatever the status: a client does not retry them. */
export const CODES_NOT_RETRIED: ReadonlySet<string> = new Set([
  ...TARGET_FAILURES_NOT_RETRIED,
  AGENT_MODEL_NOT_CONFIGURED,
  DATABASE_CORRUPT,
  PDF_INSUFFICIENT_TIME,
  // A team's or server's interact sessions are all open: one closes when stopped or idle, not in a retry's seconds.
  'INTERACT_SESSION_LIMIT',
]);

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), if it has a usable value. */
export function retryAfterSeconds(header: string | string[] | undefined, now: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}
