/**
 * Entry point to the interface schemas, built once per mode on first use so that commands
 * which never validate do not pay for constructing them.
 */
import type { z } from 'zod';
import type { SchemaMode } from './fields.js';
import { formatPath, describeIssue, type Problem } from './issues.js';
import type { ScrapeOptions } from './scrape-options.js';
import { buildMonitorSchemas, checkGoalRules, checkUrlCount, type MonitorCreateRequest, type MonitorSchemas } from './monitor.js';

const built = new Map<SchemaMode, MonitorSchemas>();

export function monitorSchemas(mode: SchemaMode): MonitorSchemas {
  let schemas = built.get(mode);
  if (!schemas) {
    schemas = buildMonitorSchemas(mode);
    built.set(mode, schemas);
  }
  return schemas;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

function problemsOf(error: z.ZodError): Problem[] {
  return error.issues.flatMap((issue) => describeIssue(issue));
}

/** Validates a monitor create request: schema, limits and the cross-field rules, all at once. */
export function validateMonitorRequest(input: unknown, mode: SchemaMode): Validation<MonitorCreateRequest> {
  const result = monitorSchemas(mode).createRequest.safeParse(input, { reportInput: true });
  const problems = [...(result.success ? [] : problemsOf(result.error)), ...checkGoalRules(input), ...checkUrlCount(input)];
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: result.data as MonitorCreateRequest };
}

/** Validates a monitor PATCH body on its own: each field as given, so an error names that field. */
export function validateMonitorUpdate(input: unknown, mode: SchemaMode): Validation<Partial<MonitorCreateRequest> & { status?: 'active' | 'paused' }> {
  const result = monitorSchemas(mode).updateRequest.safeParse(input, { reportInput: true });
  return result.success ? { ok: true, value: result.data as Partial<MonitorCreateRequest> } : { ok: false, problems: problemsOf(result.error) };
}

/** Validates scrape options (the body of POST /scrape without `url`, or `--options`). */
export function validateScrapeOptions(input: unknown, mode: SchemaMode): Validation<ScrapeOptions> {
  const result = monitorSchemas(mode).scrapeOptions.safeParse(input, { reportInput: true });
  return result.success ? { ok: true, value: result.data as ScrapeOptions } : { ok: false, problems: problemsOf(result.error) };
}

/** Validates crawl options (a crawl target's crawlOptions, or the crawl command's flags). */
export function validateCrawlOptions(input: unknown, mode: SchemaMode): Validation<CrawlOptions> {
  const result = monitorSchemas(mode).crawlOptions.safeParse(input, { reportInput: true });
  if (!result.success) return { ok: false, problems: problemsOf(result.error) };
  const value = result.data as CrawlOptions;
  // The hosted v2 API's depth (wire requests): link hops from the start page or a sitemap entry, as maxDepth counts them.
  const { maxDiscoveryDepth } = result.data as { maxDiscoveryDepth?: number | null };
  if (value.maxDepth === undefined && typeof maxDiscoveryDepth === 'number') return { ok: true, value: { ...value, maxDepth: maxDiscoveryDepth } };
  return { ok: true, value };
}

export type CrawlOptions = z.infer<MonitorSchemas['crawlOptions']>;

export { formatPath, type Problem };
