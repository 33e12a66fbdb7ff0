/**
 * POST /v2/crawl/params-preview: `{url, prompt}` in, the crawl options a model derived from the
 * prompt out. What the model proposes is held to the crawl request's own schema, field by field:
 * a field that would not pass POST /v2/crawl is dropped and named in a warning, so that the
 * options returned can be sent as they are.
 */
import { z } from 'zod';
import { closedObject, httpUrl, requestTags } from './fields.js';
import { describeIssue, formatPath, type Problem } from './issues.js';
import { QUESTION_MAX_LENGTH } from './limits.js';
import { validateCrawlOptions, type Validation } from './schemas.js';

const previewRequest = closedObject({
  url: httpUrl(),
  prompt: z.string().trim().min(1).max(QUESTION_MAX_LENGTH),
  ...requestTags(),
});

export type CrawlPreviewRequest = z.infer<typeof previewRequest>;

export function validateCrawlPreviewRequest(input: unknown): Validation<CrawlPreviewRequest> {
  const result = previewRequest.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problems: result.error.issues.flatMap((issue) => describeIssue(issue)) as Problem[] };
}

/** The crawl options a preview may propose: those the crawler reads, and the hosted preview's. */
export const PREVIEW_CRAWL_FIELDS = [
  'includePaths',
  'excludePaths',
  'limit',
  'maxDepth',
  'maxDiscoveryDepth',
  'crawlEntireDomain',
  'allowExternalLinks',
  'allowSubdomains',
  'sitemap',
  'ignoreQueryParameters',
  'deduplicateSimilarURLs',
  'delay',
] as const;

/**
 * The model's proposal, kept where it passes the crawl schema: each field alone, so that one
 * bad pattern drops `includePaths` and nothing else. The warnings say what was dropped and why.
 */
export function checkProposedCrawlOptions(proposed: unknown): { options: Record<string, unknown>; warnings: string[] } {
  const options: Record<string, unknown> = {};
  const warnings: string[] = [];
  if (typeof proposed !== 'object' || proposed === null || Array.isArray(proposed)) {
    return { options, warnings: ['the model proposed no crawl options'] };
  }
  for (const [field, value] of Object.entries(proposed)) {
    // Left out is left out: a null is the model's way of saying it has no value.
    if (value === null || value === undefined) continue;
    if (!(PREVIEW_CRAWL_FIELDS as readonly string[]).includes(field)) {
      warnings.push(`${field} was dropped: it is not a crawl option a preview sets`);
      continue;
    }
    const checked = validateCrawlOptions({ [field]: value }, 'wire');
    if (checked.ok) options[field] = (checked.value as Record<string, unknown>)[field];
    else warnings.push(`${field} was dropped: ${checked.problems.map((problem) => `${formatPath(problem.path)} ${problem.message}`).join('; ')}`);
  }
  return { options, warnings };
}
