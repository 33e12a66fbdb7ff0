/** Request and answer helpers of the routes of `webwatch serve`: §7.1 bodies, bodies, URLs, paging. */
import { WebwatchError } from '../errors/webwatch-error.js';
import { ERROR_MESSAGES, errorCode } from '../spec/errors.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';
import { formatPath, type Problem, validateScrapeOptions } from '../spec/schemas.js';
import { validateZeroDataRetention, zeroDataRetentionProblems } from '../spec/zero-data-retention.js';

/** The §7.1 body of an error answer of `status`, always with a code (errorCode). */
export const errorBody = (status: number, error: string, details?: unknown, code?: string) => ({
  success: false,
  error,
  code: errorCode(status, error, code),
  ...(details !== undefined && { details }),
});

export const problemDetails = (problems: readonly Problem[]) => problems.map((problem) => ({ path: formatPath(problem.path), message: problem.message }));

export function invalid(problems: readonly Problem[]): WebwatchError {
  return new WebwatchError(ERROR_MESSAGES.badRequest, { status: 400, details: problemDetails(problems) });
}

export const asObject = (body: unknown): Record<string, unknown> => {
  if (body === undefined || body === null)
    throw new WebwatchError(ERROR_MESSAGES.badRequest, { status: 400, details: [{ path: '', message: 'a JSON object body is required' }] });
  if (typeof body !== 'object' || Array.isArray(body))
    throw new WebwatchError(ERROR_MESSAGES.badRequest, { status: 400, details: [{ path: '', message: 'the body must be a JSON object' }] });
  return body as Record<string, unknown>;
};

export function targetUrl(value: unknown): URL {
  if (typeof value !== 'string') throw new WebwatchError(ERROR_MESSAGES.invalidUrl, { status: 400 });
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // Falls through to the error.
  }
  throw new WebwatchError(ERROR_MESSAGES.invalidUrl, { status: 400 });
}

export function whole(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new WebwatchError(ERROR_MESSAGES.badRequest, { status: 400, details: [{ path: name, message: 'must be a whole number, 0 or more' }] });
  return parsed;
}

/** `offset` and `limit` of a list route. */
export function page<T>(items: readonly T[], offset: string | undefined, limit: string | undefined): T[] {
  const from = whole(offset, 'offset', 0);
  return items.slice(from, from + whole(limit, 'limit', items.length));
}

/** A one-page request's scrape options and its zeroDataRetention, checked together (POST /v2/scrape, /v2/parse): 400 naming every problem. */
export function scrapeOptionsWithRetention(
  fields: Record<string, unknown>,
  zeroDataRetention: unknown,
): { options: ScrapeOptions; zeroDataRetention: boolean | undefined } {
  const validation = validateScrapeOptions(fields, 'wire');
  const retention = validateZeroDataRetention(zeroDataRetention);
  if (!validation.ok || !retention.ok) throw invalid([...(retention.ok ? [] : retention.problems), ...(validation.ok ? [] : validation.problems)]);
  const refused = zeroDataRetentionProblems(retention.value, validation.value);
  if (refused.length > 0) throw invalid(refused);
  return { options: validation.value, zeroDataRetention: retention.value };
}
