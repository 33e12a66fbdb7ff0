/**
 * The search request (POST /v2/search, `webwatch search`), as the hosted SDK sends it. Fields
 * webwatch cannot honour are refused by name, or accepted with a warning where the hosted API
 * itself treats them as hints (location, country). `sources` are `web` (the default), `news` and
 * `images`, each a string or `{type}`; with `images` the answer has all three lists. Any other
 * field is refused by name.
 */
import { z } from 'zod';
import { closedObject, requestTags, stringKeyed } from './fields.js';
import { describeIssue, type Problem } from './issues.js';
import { threatProtectionSchema } from './scrape-options.js';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, SEARCH_REQUEST_QUERY_MAX_LENGTH } from './limits.js';
import type { Validation } from './schemas.js';

import { SEARCH_SOURCES } from './names.js';

export { SEARCH_SOURCES };
export type SearchSource = (typeof SEARCH_SOURCES)[number];

/** `tbs` values the engine understands: the past hour, day, week, month or year. */
export const SEARCH_TBS = { 'qdr:h': 'hour', 'qdr:d': 'day', 'qdr:w': 'week', 'qdr:m': 'month', 'qdr:y': 'year' } as const;
export type SearchTimeRange = (typeof SEARCH_TBS)[keyof typeof SEARCH_TBS];

const source = z.union([z.string(), closedObject({ type: z.string() })]).transform((value, context) => {
  const type = typeof value === 'string' ? value : value.type;
  if ((SEARCH_SOURCES as readonly string[]).includes(type)) return type as SearchSource;
  context.addIssue({
    code: 'custom',
    message:
      type === 'alexandria'
        ? `"${type}" results are not offered by webwatch (sources: ${SEARCH_SOURCES.join(', ')})`
        : `must be one of ${SEARCH_SOURCES.join(', ')}`,
  });
  return z.NEVER;
});

const searchRequest = closedObject({
  query: z.string().trim().min(1).max(SEARCH_REQUEST_QUERY_MAX_LENGTH),
  limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).default(SEARCH_LIMIT_DEFAULT),
  sources: z.array(source).min(1).optional(),
  categories: z.array(z.unknown()).max(0, 'categories (github, research, pdf) are not offered by webwatch: use includeDomains').optional(),
  includeDomains: z.array(z.string().min(1)).optional(),
  excludeDomains: z.array(z.string().min(1)).optional(),
  tbs: z
    .enum(Object.keys(SEARCH_TBS) as [keyof typeof SEARCH_TBS], {
      message: `webwatch understands ${Object.keys(SEARCH_TBS).join(', ')} (the past hour, day, week, month, year)`,
    })
    .optional(),
  location: z.string().optional(),
  country: z.string().optional(),
  timeout: z.number().int().min(1000).max(300_000).optional(),
  ignoreInvalidURLs: z.boolean().optional(),
  scrapeOptions: stringKeyed(z.unknown()).optional(),
  // The hosted SDK's other fields, accepted and not used: Alexandria tools (webwatch has none, so
  // no `tools` come back), the hosted service's highlights of results, its enterprise search
  // modes, a threat-protection override for the whole search (the server's policy applies to
  // the results' scrapes; scrapeOptions.threatProtection overrides it), and who sent the request.
  domainTools: z.boolean().optional(),
  toolDetail: z.enum(['compact', 'summary', 'full']).optional(),
  highlights: z.boolean().optional(),
  enterprise: z.array(z.enum(['default', 'anon', 'zdr'])).optional(),
  threatProtection: threatProtectionSchema().optional(),
  ...requestTags(),
});

export type SearchRequest = z.infer<typeof searchRequest>;

/** The request's schema, for clients that describe it (the MCP tool). */
export const searchRequestSchema = () => searchRequest;

export function validateSearchRequest(input: unknown): Validation<SearchRequest> {
  const result = searchRequest.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problems: result.error.issues.flatMap((issue) => describeIssue(issue)) as Problem[] };
}
