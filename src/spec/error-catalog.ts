/**
 * The error catalog (spec §7.2, §7.3): the messages scripts match on, and the code of every
 * error answer. Without zod, so that the command line's error rendering loads nothing heavy.
 */

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
  payloadTooLarge: 'Payload Too Large',
  unprocessable: 'Unprocessable Entity',
  rateLimited: 'Rate limit exceeded',
  concurrencyLimited: 'Concurrency limit reached',
  internal: 'Internal Server Error',
  badGateway: 'Bad Gateway',
  unavailable: 'Service Unavailable',
  gatewayTimeout: 'Gateway Timeout',
  agentInvalidJobId: 'Invalid job ID format. Job ID must be a valid UUID.',
  agentInvalidSnapshotId: 'Invalid snapshot ID',
  agentNotFound: 'Agent job not found',
  agentSnapshotNotFound: 'Snapshot not found',
  agentAlreadyFinished: 'Agent already finished',
  agentAlreadyCancelled: 'Agent is already cancelled',
  agentPassthroughFailed: 'Failed to passthrough agent request.',
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
  [ERROR_MESSAGES.agentInvalidJobId, 'INVALID_JOB_ID'],
  [ERROR_MESSAGES.agentInvalidSnapshotId, 'INVALID_SNAPSHOT_ID'],
  [ERROR_MESSAGES.agentNotFound, 'AGENT_NOT_FOUND'],
  [ERROR_MESSAGES.agentSnapshotNotFound, 'SNAPSHOT_NOT_FOUND'],
  [ERROR_MESSAGES.agentAlreadyFinished, 'AGENT_ALREADY_FINISHED'],
  [ERROR_MESSAGES.agentAlreadyCancelled, 'AGENT_ALREADY_CANCELLED'],
  [ERROR_MESSAGES.agentPassthroughFailed, 'AGENT_PASSTHROUGH_FAILED'],
]);
const CODES_OF_STATUSES: ReadonlyMap<number, string> = new Map([
  [400, 'BAD_REQUEST'], [401, 'UNAUTHORIZED'], [402, 'PAYMENT_REQUIRED'], [403, 'FORBIDDEN'], [404, 'NOT_FOUND'],
  [405, 'METHOD_NOT_ALLOWED'], [408, 'REQUEST_TIMEOUT'], [409, 'CONFLICT'], [413, 'PAYLOAD_TOO_LARGE'], [414, 'URI_TOO_LONG'],
  [415, 'UNSUPPORTED_MEDIA_TYPE'], [422, 'UNPROCESSABLE_ENTITY'], [429, 'RATE_LIMIT_EXCEEDED'], [431, 'REQUEST_HEADER_FIELDS_TOO_LARGE'],
  [500, 'INTERNAL_SERVER_ERROR'], [502, 'BAD_GATEWAY'], [503, 'SERVICE_UNAVAILABLE'], [504, 'GATEWAY_TIMEOUT'],
]);

/** The code of an error answer: its own when it has one, else its message's, else its status's. */
export function errorCode(status: number, message: string, own?: string): string {
  return own ?? CODES_OF_MESSAGES.get(message) ?? CODES_OF_STATUSES.get(status) ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST');
}
