/** The map request (POST /v2/map, `webwatch map`), as the hosted SDK sends it. */
import { z } from 'zod';
import { httpUrl } from './fields.js';
import { describeIssue, type Problem } from './issues.js';
import { MAP_LIMIT_DEFAULT, MAP_LIMIT_MAX, MAP_SEARCH_MAX_LENGTH } from './limits.js';
import type { Validation } from './schemas.js';

const mapRequest = z.looseObject({
  url: httpUrl(),
  search: z.string().max(MAP_SEARCH_MAX_LENGTH).optional(),
  sitemap: z.enum(['include', 'skip', 'only']).optional(),
  includeSubdomains: z.boolean().optional(),
  ignoreQueryParameters: z.boolean().optional(),
  limit: z.number().int().min(1).max(MAP_LIMIT_MAX).default(MAP_LIMIT_DEFAULT),
  // Any positive number of milliseconds, as the hosted API takes it (§8 bounds the scrape's
  // timeout, not the map's); past it the map answers 408 `Map timed out`.
  timeout: z.number().positive().finite().optional(),
  // Accepted and not used: the embedded engine has one location, and audit data is the caller's.
  location: z.unknown().optional(),
  integration: z.string().optional(),
  origin: z.string().optional(),
});

export type MapRequest = z.infer<typeof mapRequest>;

export function validateMapRequest(input: unknown): Validation<MapRequest> {
  const result = mapRequest.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problems: result.error.issues.flatMap((issue) => describeIssue(issue)) as Problem[] };
}
