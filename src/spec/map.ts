/** The map request (POST /v2/map, `webwatch map`), as the hosted SDK sends it. */
import { z } from 'zod';
import { closedObject, httpUrl, requestTags } from './fields.js';
import { describeIssue, type Problem } from './issues.js';
import { MAP_LIMIT_DEFAULT, MAP_LIMIT_MAX, MAP_SEARCH_MAX_LENGTH } from './limits.js';
import { auditMetadataSchema, locationSchema, threatProtectionSchema } from './scrape-options.js';
import type { Validation } from './schemas.js';

/** Closed: any field the hosted SDK's MapOptions does not have is refused by name. */
const mapRequest = closedObject({
  url: httpUrl(),
  search: z.string().max(MAP_SEARCH_MAX_LENGTH).optional(),
  sitemap: z.enum(['include', 'skip', 'only']).optional(),
  includeSubdomains: z.boolean().optional(),
  ignoreQueryParameters: z.boolean().optional(),
  limit: z.number().int().min(1).max(MAP_LIMIT_MAX).default(MAP_LIMIT_DEFAULT),
  // Any positive number of milliseconds, as the hosted API takes it (§8 bounds the scrape's
  // timeout, not the map's); past it the map answers 408 `Map timed out`.
  timeout: z.number().positive().finite().optional(),
  // Accepted and not used: the embedded engine has one location, the server's threat policy
  // applies to every map, and audit data and who sent the request are the caller's.
  location: locationSchema().optional(),
  threatProtection: threatProtectionSchema().optional(),
  auditMetadata: auditMetadataSchema().optional(),
  ...requestTags(),
});

export type MapRequest = z.infer<typeof mapRequest>;

/** The request's schema, for clients that describe it (the MCP tool). */
export const mapRequestSchema = () => mapRequest;

export function validateMapRequest(input: unknown): Validation<MapRequest> {
  const result = mapRequest.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problems: result.error.issues.flatMap((issue) => describeIssue(issue)) as Problem[] };
}
