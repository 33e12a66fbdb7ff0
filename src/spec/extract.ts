/**
 * The extract request (POST /v2/extract), as the hosted SDK sends it (`prepareExtractPayload`):
 * URLs (a URL ending in `/*` stands for the site's pages under it), a prompt and/or a JSON Schema
 * for the result, and what to read besides. Closed: any field the SDK does not send is refused
 * by name. `agent` is accepted and not used (the configured model does the work); `webhook` is
 * a crawl's (spec/job-webhook.ts): it hears `started`, then `completed` or `failed` (an extract
 * job has no pages, so `page` is accepted and never sent).
 */
import { z } from 'zod';
import { closedObject, describeHttpUrlProblem, requestTags, stringKeyed } from './fields.js';
import { jobWebhookSchema, normalizeJobWebhook, type JobWebhook } from './job-webhook.js';
import { describeIssue, type Problem } from './issues.js';
import { QUESTION_MAX_LENGTH } from './limits.js';
import { threatProtectionSchema } from './scrape-options.js';
import { monitorSchemas, type Validation } from './schemas.js';
import type { ScrapeOptions } from './scrape-options.js';

/** URLs one extract request may name: webwatch's bound, as for agent jobs. */
export const EXTRACT_URLS_MAX = 100;

/** The suffix that makes a URL stand for the pages of its site under it (`https://example.com/blog/*`). */
export const SITE_WILDCARD = '/*';

const extractRequestSchema = () =>
  closedObject({
    urls: z.array(z.string()).max(EXTRACT_URLS_MAX).optional(),
    prompt: z.string().min(1).max(QUESTION_MAX_LENGTH).optional(),
    schema: stringKeyed(z.unknown()).optional(),
    systemPrompt: z.string().max(QUESTION_MAX_LENGTH).optional(),
    allowExternalLinks: z.boolean().optional(),
    enableWebSearch: z.boolean().optional(),
    showSources: z.boolean().optional(),
    scrapeOptions: monitorSchemas('wire').scrapeOptions.optional(),
    ignoreInvalidURLs: z.boolean().optional(),
    ...requestTags(),
    // Accepted and not used: the hosted service's choice of its own models.
    agent: closedObject({ model: z.string() }).optional(),
    webhook: jobWebhookSchema().nullable().optional(),
    threatProtection: threatProtectionSchema().optional(),
  });

let built: ReturnType<typeof extractRequestSchema> | undefined;

/** The request's schema, for clients that describe it (the MCP tool). */
export const extractRequest = () => (built ??= extractRequestSchema());

/** The request as the engine takes it: URLs sorted, the fields it does not use left out. */
export interface ExtractRequestInput {
  urls: string[];
  prompt?: string;
  schema?: Record<string, unknown>;
  systemPrompt?: string;
  allowExternalLinks?: boolean;
  enableWebSearch?: boolean;
  showSources?: boolean;
  scrapeOptions?: ScrapeOptions;
  origin?: string;
  integration?: string;
}

export interface ValidExtractRequest {
  request: ExtractRequestInput;
  /** What the caller should know at once: URLs dropped (ignoreInvalidURLs). */
  warnings: string[];
  /** Kept with the job apart from its request: its headers may hold secrets. */
  webhook?: JobWebhook;
}

/** Why a URL of `urls` cannot be read: an absolute http(s) URL, optionally ending in `/*`. */
export function extractUrlProblem(value: string): string | undefined {
  const base = value.endsWith(SITE_WILDCARD) ? value.slice(0, -1) : value;
  if (base.includes('*')) return 'may use a wildcard only as a final "/*" (the pages of the site under that path)';
  return describeHttpUrlProblem(base);
}

/**
 * Validates an extract request: the schema, then the rules across fields (a prompt or a schema;
 * URLs unless the web is searched), all problems at once.
 */
export function validateExtractRequest(input: unknown): Validation<ValidExtractRequest> {
  const result = (built ??= extractRequestSchema()).safeParse(input, { reportInput: true });
  if (!result.success) return { ok: false, problems: result.error.issues.flatMap((issue) => describeIssue(issue)) };
  const { urls = [], ignoreInvalidURLs, webhook, agent: _agent, threatProtection: _threat, ...rest } = result.data;
  const problems: Problem[] = [];
  const warnings: string[] = [];
  const kept: string[] = [];
  urls.forEach((url, index) => {
    const problem = extractUrlProblem(url);
    if (!problem) kept.push(url);
    else if (ignoreInvalidURLs) warnings.push(`urls[${index}] was left out: it ${problem}`);
    else problems.push({ path: ['urls', index], message: problem });
  });
  if (rest.prompt === undefined && rest.schema === undefined)
    problems.push({ path: ['prompt'], message: 'a prompt or a schema is required: say what to extract' });
  if (kept.length === 0 && !rest.enableWebSearch && problems.every((problem) => problem.path[0] !== 'urls')) {
    problems.push({
      path: ['urls'],
      message:
        urls.length > 0 ? 'no valid URL is left to read, and enableWebSearch is not set' : 'at least one URL is required, unless enableWebSearch is true',
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  const request: ExtractRequestInput = { ...(rest as Omit<ExtractRequestInput, 'urls'>), urls: kept };
  return { ok: true, value: { request, warnings, ...(webhook && { webhook: normalizeJobWebhook(webhook) }) } };
}
