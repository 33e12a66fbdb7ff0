/**
 * Entry point to the interface schemas, built once per mode on first use so that commands
 * which never validate do not pay for constructing them.
 */
import type { z } from 'zod';
import type { SchemaMode } from './fields.js';
import { formatPath, describeIssue, type Problem } from './issues.js';
import { withPlacement } from './placement.js';
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

/** The schema's problems with `input`, a misplaced field saying where it belongs. */
function problemsOf(error: z.ZodError, schema: z.ZodType, input: unknown): Problem[] {
  return withPlacement(
    schema,
    input,
    error.issues.flatMap((issue) => describeIssue(issue)),
  );
}

/** Validates a monitor create request: schema, limits and the cross-field rules, all at once. */
export function validateMonitorRequest(input: unknown, mode: SchemaMode): Validation<MonitorCreateRequest> {
  const schema = monitorSchemas(mode).createRequest;
  const result = schema.safeParse(input, { reportInput: true });
  const problems = [...(result.success ? [] : problemsOf(result.error, schema, input)), ...checkGoalRules(input), ...checkUrlCount(input)];
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: result.data as MonitorCreateRequest };
}

/** Validates a monitor PATCH body on its own: each field as given, so an error names that field. */
export function validateMonitorUpdate(input: unknown, mode: SchemaMode): Validation<Partial<MonitorCreateRequest> & { status?: 'active' | 'paused' }> {
  const schema = monitorSchemas(mode).updateRequest;
  const result = schema.safeParse(input, { reportInput: true });
  return result.success ? { ok: true, value: result.data as Partial<MonitorCreateRequest> } : { ok: false, problems: problemsOf(result.error, schema, input) };
}

/** Validates scrape options (the body of POST /scrape without `url`, or `--options`). */
export function validateScrapeOptions(input: unknown, mode: SchemaMode): Validation<ScrapeOptions> {
  const schema = monitorSchemas(mode).scrapeOptions;
  const result = schema.safeParse(input, { reportInput: true });
  return result.success ? { ok: true, value: result.data as ScrapeOptions } : { ok: false, problems: problemsOf(result.error, schema, input) };
}

/** Validates crawl options (a crawl target's crawlOptions, or the crawl command's flags). */
export function validateCrawlOptions(input: unknown, mode: SchemaMode): Validation<CrawlOptions> {
  const schema = monitorSchemas(mode).crawlOptions;
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) return { ok: false, problems: problemsOf(result.error, schema, input) };
  const value = result.data as CrawlOptions;
  // The hosted v2 API's depth (wire requests): link hops from the start page or a sitemap entry, as maxDepth counts them.
  const { maxDiscoveryDepth } = result.data as { maxDiscoveryDepth?: number | null };
  if (value.maxDepth === undefined && typeof maxDiscoveryDepth === 'number') return { ok: true, value: { ...value, maxDepth: maxDiscoveryDepth } };
  return { ok: true, value };
}

export type CrawlOptions = z.infer<MonitorSchemas['crawlOptions']>;

export { formatPath, type Problem };
