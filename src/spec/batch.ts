/**
 * The batch scrape request (POST /v2/batch/scrape), as the hosted SDK sends it: `urls`, the
 * job's own fields, and the scrape options of every page beside them.
 */
import { z } from 'zod';
import { describeIssue, type Problem } from './issues.js';
import { jobWebhookSchema } from './job-webhook.js';
import { BATCH_URLS_MAX } from './limits.js';
import type { Validation } from './schemas.js';

const NOT_OFFERED = 'is not offered by webwatch serve';

const batchFields = z.looseObject({
  urls: z.array(z.string()).min(1).max(BATCH_URLS_MAX),
  ignoreInvalidURLs: z.boolean().optional(),
  maxConcurrency: z.number().int().min(1).optional(),
  webhook: jobWebhookSchema().nullable().optional(),
  appendToId: z.undefined({ message: `appendToId ${NOT_OFFERED}: start another batch scrape` }).optional(),
  zeroDataRetention: z.boolean().optional(),
  integration: z.string().optional(),
  origin: z.string().optional(),
});

export type BatchFields = z.infer<typeof batchFields>;

/** The batch's own fields; the rest of the body is the pages' scrape options. */
export function validateBatchRequest(input: Record<string, unknown>): Validation<{ fields: BatchFields; scrapeOptions: Record<string, unknown> }> {
  const { urls, ignoreInvalidURLs, maxConcurrency, webhook, appendToId, zeroDataRetention, integration, origin, ...scrapeOptions } = input;
  const result = batchFields.safeParse(
    { urls, ignoreInvalidURLs, maxConcurrency, webhook, appendToId, zeroDataRetention, integration, origin },
    { reportInput: true },
  );
  if (!result.success) return { ok: false, problems: result.error.issues.flatMap((issue) => describeIssue(issue)) as Problem[] };
  return { ok: true, value: { fields: result.data, scrapeOptions } };
}

/** Each URL judged: the absolute http(s) ones kept, in order; the others with their position. */
export function sortBatchUrls(urls: readonly string[]): { valid: string[]; invalid: { index: number; url: string }[] } {
  const valid: string[] = [];
  const invalid: { index: number; url: string }[] = [];
  urls.forEach((url, index) => {
    try {
      const parsed = new URL(url);
      if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return void valid.push(parsed.href);
    } catch {
      // Falls through: not a URL.
    }
    invalid.push({ index, url });
  });
  return { valid, invalid };
}
