/**
 * Monitor create request (spec §2.1), targets (§2.3), webhook (§2.4), notification (§2.5), the
 * monitor resource (§2.6), and the cross-field rules for goal and judgeEnabled.
 */
import { z } from 'zod';
import {
  closedObject,
  domainName,
  FRAMING_HEADERS,
  headerFields,
  httpUrl,
  pathPattern,
  refusedField,
  requestTags,
  type SchemaMode,
  stringKeyed,
} from './fields.js';
import { jobWebhookSchema } from './job-webhook.js';
import * as limits from './limits.js';
import { buildScheduleSchema, normalizeSchedule, type StoredSchedule } from './schedule.js';
import { buildScrapeOptionsSchemas } from './scrape-options.js';

export const WEBHOOK_EVENTS = ['monitor.page', 'monitor.check.completed'] as const;
export const MONITOR_STATUSES = ['active', 'paused', 'deleted'] as const;
export const TARGET_TYPES = ['scrape', 'crawl', 'search'] as const;

const uuid = () => z.uuid({ error: 'must be a UUID, like 0b7c6f7e-9f7a-4c1e-8d5a-2f0e4b6a9c31' });

export function buildMonitorSchemas(mode: SchemaMode) {
  const object = closedObject;
  const { scrapeOptions } = buildScrapeOptionsSchemas(mode);
  const schedule = buildScheduleSchema();

  const crawlOptionsShape = {
    limit: z.number().int().min(1).optional(),
    maxDepth: z.number().int().min(0).optional(),
    includePaths: z.array(pathPattern()).max(limits.PATH_PATTERNS_MAX).optional(),
    excludePaths: z.array(pathPattern()).max(limits.PATH_PATTERNS_MAX).optional(),
    allowExternalLinks: z.boolean().optional(),
    allowSubdomains: z.boolean().optional(),
    crawlEntireDomain: z.boolean().optional(),
    ignoreRobotsTxt: z.boolean().optional(),
    ignoreQueryParameters: z.boolean().optional(),
    sitemap: z.enum(['include', 'skip', 'only']).optional(),
    delay: z.number().min(0).optional(),
    maxConcurrency: z.number().int().min(1).optional(),
    // includePaths and excludePaths match the whole URL instead of its path and query.
    regexOnFullURL: z.boolean().optional(),
  };
  /**
   * The spec lists crawl options only by example; on the wire they are also those of the hosted
   * SDK's CrawlOptions (POST /v2/crawl sends them beside the URL, and a monitor's crawl target
   * may carry them). Accepted as they were before requests were closed; "Request rules" in
   * docs/serve.md says which ones the crawler uses.
   */
  const sdkCrawlFields = {
    ...requestTags(),
    prompt: z.string().nullable().optional(),
    maxDiscoveryDepth: z.number().int().min(0).nullable().optional(),
    deduplicateSimilarURLs: z.boolean().optional(),
    robotsUserAgent: z.string().nullable().optional(),
    // POST /v2/crawl delivers it (job-webhook.ts); a monitor's crawl target has the monitor's webhook.
    webhook: jobWebhookSchema().nullable().optional(),
    zeroDataRetention: z.boolean().optional(),
    scrapeOptions: refusedField('goes beside crawlOptions: a crawl target has its own scrapeOptions (spec §2.3)'),
  };
  const crawlOptions = mode === 'file' ? closedObject(crawlOptionsShape) : closedObject({ ...crawlOptionsShape, ...sdkCrawlFields });

  const domainList = () => z.array(domainName(false)).max(limits.SEARCH_DOMAINS_MAX);

  const target = z.discriminatedUnion('type', [
    object({
      type: z.literal('scrape'),
      id: uuid().optional(),
      urls: z.array(httpUrl()).min(1).max(limits.SCRAPE_URLS_PER_TARGET_MAX),
      scrapeOptions: scrapeOptions.optional(),
    }),
    object({
      type: z.literal('crawl'),
      id: uuid().optional(),
      url: httpUrl(),
      crawlOptions: crawlOptions.optional(),
      scrapeOptions: scrapeOptions.optional(),
    }),
    object({
      type: z.literal('search'),
      id: uuid().optional(),
      queries: z
        .array(z.string().min(limits.SEARCH_QUERY_MIN_LENGTH).max(limits.SEARCH_QUERY_MAX_LENGTH))
        .min(limits.SEARCH_QUERIES_MIN)
        .max(limits.SEARCH_QUERIES_MAX),
      maxResults: z.number().int().min(limits.SEARCH_MAX_RESULTS_MIN).max(limits.SEARCH_MAX_RESULTS_MAX).optional(),
      searchWindow: z.enum(limits.SEARCH_WINDOWS).optional(),
      includeDomains: domainList().optional(),
      excludeDomains: domainList().optional(),
    }),
  ]);

  const webhook = object({
    url: httpUrl(),
    events: z.array(z.enum(WEBHOOK_EVENTS)).optional(),
    headers: headerFields([...FRAMING_HEADERS, 'host']).optional(),
    metadata: stringKeyed(z.unknown()).optional(),
  });

  const notification = object({
    email: object({
      enabled: z.boolean().optional(),
      includeDiffs: z.boolean().optional(),
      recipients: z
        .array(z.email({ error: 'must be an e-mail address' }))
        .max(limits.EMAIL_RECIPIENTS_MAX)
        .optional(),
    }).optional(),
  });

  const createRequest = object({
    name: z.string().min(1).max(limits.MONITOR_NAME_MAX_LENGTH),
    schedule,
    targets: z.array(target).min(limits.TARGETS_MIN).max(limits.TARGETS_MAX),
    goal: z.string().max(limits.GOAL_MAX_LENGTH).nullable().optional(),
    judgeEnabled: z.boolean().optional(),
    // On the wire, null removes them (the hosted SDK's UpdateMonitorRequest), as it does the goal.
    notification: (mode === 'wire' ? notification.nullable() : notification).optional(),
    retentionDays: z.number().int().min(limits.RETENTION_DAYS_MIN).max(limits.RETENTION_DAYS_MAX).optional(),
    webhook: (mode === 'wire' ? webhook.nullable() : webhook).optional(),
    // The hosted SDK adds `origin` to every body it posts, monitors included.
    ...(mode === 'wire' ? requestTags() : {}),
  });

  /** PATCH /monitor/{id}: any create field, plus the status a client may set. */
  const updateRequest = createRequest.partial().extend({ status: z.enum(['active', 'paused']).optional() });

  const summary = z.object({
    changed: z.number().int(),
    error: z.number().int(),
    new: z.number().int(),
    removed: z.number().int(),
    same: z.number().int(),
    totalPages: z.number().int(),
  });

  const isoTime = () => z.iso.datetime({ offset: true });
  const resource = z.looseObject({
    id: uuid(),
    name: z.string(),
    status: z.enum(MONITOR_STATUSES),
    goal: z.string().nullable(),
    judgeEnabled: z.boolean(),
    schedule: z.looseObject({ cron: z.string(), timezone: z.string() }),
    targets: z.array(z.looseObject({ type: z.enum(TARGET_TYPES), id: uuid() })),
    notification: z.unknown().optional(),
    webhook: z.unknown().optional(),
    retentionDays: z.number().int(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
    lastRunAt: isoTime().nullable(),
    nextRunAt: isoTime().nullable(),
    currentCheckId: uuid().nullable(),
    lastCheckSummary: summary,
    estimatedCreditsPerMonth: z.number().int().nullable(),
  });

  return { createRequest, updateRequest, target, webhook, notification, schedule, scrapeOptions, crawlOptions, summary, resource };
}

export type MonitorSchemas = ReturnType<typeof buildMonitorSchemas>;
export type MonitorCreateRequest = z.infer<MonitorSchemas['createRequest']>;
export type Target = z.infer<MonitorSchemas['target']>;
export type MonitorSummary = z.infer<MonitorSchemas['summary']>;

export interface RuleViolation {
  path: (string | number)[];
  message: string;
}

const hasText = (value: unknown) => typeof value === 'string' && value.trim() !== '';

/**
 * Rules 2 and 3 of spec §2.1. They read the raw input defensively, so they are reported
 * together with every schema error rather than after the others are fixed.
 */
export function checkGoalRules(input: unknown): RuleViolation[] {
  if (typeof input !== 'object' || input === null) return [];
  const { goal, judgeEnabled, targets } = input as Record<string, unknown>;
  const violations: RuleViolation[] = [];
  if (judgeEnabled === true && !hasText(goal)) {
    violations.push({
      path: ['judgeEnabled'],
      message: 'judgeEnabled is true but goal is empty: judging needs a non-empty goal',
    });
  }
  const searchIndex = Array.isArray(targets)
    ? targets.findIndex((t) => typeof t === 'object' && t !== null && (t as { type?: unknown }).type === 'search')
    : -1;
  if (searchIndex >= 0 && !hasText(goal) && judgeEnabled !== false) {
    violations.push({
      path: ['goal'],
      message: `goal is required when a target has type search (targets[${searchIndex}]), unless judgeEnabled is false`,
    });
  }
  return violations;
}

/** The per-monitor bound on scrape URLs (the per-target one is in the schema). */
export function checkUrlCount(input: unknown): RuleViolation[] {
  if (typeof input !== 'object' || input === null) return [];
  const { targets } = input as Record<string, unknown>;
  if (!Array.isArray(targets)) return [];
  const count = targets.reduce<number>((sum, target) => {
    const urls = typeof target === 'object' && target !== null ? (target as { urls?: unknown }).urls : undefined;
    return sum + (Array.isArray(urls) ? urls.length : 0);
  }, 0);
  if (count <= limits.SCRAPE_URLS_PER_MONITOR_MAX) return [];
  return [
    {
      path: ['targets'],
      message: `the scrape targets list ${count} URLs in all: a monitor may have at most ${limits.SCRAPE_URLS_PER_MONITOR_MAX} (split it into several monitors)`,
    },
  ];
}

/** The create request as the service stores it: cron schedule, defaults filled. */
export interface NormalizedMonitor extends Omit<MonitorCreateRequest, 'schedule' | 'goal' | 'judgeEnabled' | 'retentionDays' | 'targets'> {
  schedule: StoredSchedule;
  goal: string | null;
  judgeEnabled: boolean;
  retentionDays: number;
  targets: Target[];
}

export function normalizeMonitor(request: MonitorCreateRequest): NormalizedMonitor {
  const goal = hasText(request.goal) ? (request.goal as string) : null;
  // Keys in the order of spec §2.1, so printed definitions read like the spec.
  return {
    name: request.name,
    schedule: normalizeSchedule(request.schedule),
    goal,
    // Rule 1: a goal with judgeEnabled omitted turns judging on.
    judgeEnabled: request.judgeEnabled ?? goal !== null,
    targets: request.targets.map((target) =>
      target.type === 'search'
        ? {
            ...target,
            maxResults: target.maxResults ?? limits.SEARCH_MAX_RESULTS_DEFAULT,
            searchWindow: target.searchWindow ?? limits.SEARCH_WINDOW_DEFAULT,
          }
        : target,
    ),
    ...(request.notification && { notification: request.notification }),
    retentionDays: request.retentionDays ?? limits.RETENTION_DAYS_DEFAULT,
    ...(request.webhook && { webhook: { ...request.webhook, events: request.webhook.events ?? [...WEBHOOK_EVENTS] } }),
  };
}

/**
 * The create request (spec §2.1) behind a definition or a monitor resource: its fields only,
 * `goal` left out when there is none. What POST and PATCH carry, and what a PATCH merges into.
 */
export function createRequestOf(
  monitor: Pick<NormalizedMonitor, 'name' | 'schedule' | 'goal' | 'judgeEnabled' | 'targets' | 'retentionDays'> & { notification?: unknown; webhook?: unknown },
): Record<string, unknown> {
  return {
    name: monitor.name,
    schedule: monitor.schedule,
    ...(monitor.goal !== null && { goal: monitor.goal }),
    judgeEnabled: monitor.judgeEnabled,
    targets: monitor.targets,
    ...(monitor.notification !== undefined && { notification: monitor.notification }),
    retentionDays: monitor.retentionDays,
    ...(monitor.webhook !== undefined && { webhook: monitor.webhook }),
  };
}
