/** The Backend of a remote v2 API (DESIGN §5): the same commands, over HTTP. */
import type { CrawlPage, CrawlSummary } from '../../contract/crawl.js';
import type { CheckRecord, PageResult } from '../../contract/checks.js';
import type { MonitorResource } from '../../contract/monitor.js';
import type { ScrapeDocument } from '../../contract/scrape.js';
import type { MapLink } from '../../contract/map.js';
import type { SearchAnswer } from '../../contract/search.js';
import { EXIT } from '../../errors/exit-codes.js';
import type { ScrapeResult } from '../../core/scrape.js';
import { resolveCheckRef, resolveMonitorRef } from '../../core/monitor-ref.js';
import { UsageError, WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { createRequestOf } from '../../spec/monitor.js';
import type { Backend, CrawlJobStatus, UsageReport } from '../backend.js';
import type { AgentListItem, AgentStatusDocument, TraceEvent } from '../../contract/agent.js';
import type { ExtractStarted, ExtractStatusDocument } from '../../contract/extract.js';
import { ApiClient, type ApiClientOptions } from './api-client.js';
import { compareText } from '../../lib/compare-text.js';

/** How often a waiting command asks about a running check or crawl. */
export const POLL_INTERVAL_MS = 1000;
/** Monitors asked for per request when listing them all. */
const MONITOR_PAGE = 100;
const CHECK_PAGE_SIZE = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Envelope<T> {
  success?: boolean;
  data: T;
}

interface CrawlStatus {
  status: string;
  next?: string | null;
  total?: number;
  completed?: number;
  data?: ScrapeDocument[];
  error?: string;
}

interface AgentResponse {
  success?: boolean;
  id: string;
}

const agentPath = (id: string) => `/agent/${encodeURIComponent(id)}`;

const finished = (check: CheckRecord) => check.status !== 'queued' && check.status !== 'running';

/** A 409 for a paused monitor says how to resume it, as the local engine's does. */
function withPausedHint(error: unknown): unknown {
  if (!(error instanceof WebwatchError) || error.status !== 409 || error.suggestion) return error;
  const reason = (error.details as { reason?: unknown } | undefined)?.reason;
  const name = typeof reason === 'string' ? /^monitor "(.*)" is paused$/.exec(reason)?.[1] : undefined;
  if (name === undefined) return error;
  return new WebwatchError(error.message, { status: 409, ...(error.code && { code: error.code }), details: error.details, suggestion: `resume it with: webwatch monitor resume "${name}"` });
}

export function remoteBackend(options: ApiClientOptions & { sleep?: (ms: number) => Promise<void> }): Backend {
  const client = new ApiClient(options);
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  const data = async <T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, request?: { body?: unknown; query?: Record<string, string | number | boolean | undefined> }) =>
    (await client.request<Envelope<T>>(method, path, request)).data;

  /** The id of a monitor given by id or by name; names are looked up in the list. */
  const idOf = async (idOrName: string): Promise<string> => {
    if (UUID.test(idOrName)) return idOrName;
    return resolveMonitorRef(idOrName, await data<MonitorResource[]>('GET', '/monitor', { query: { includeDeleted: true } })).id;
  };
  const path = (id: string) => `/monitor/${encodeURIComponent(id)}`;

  // `latest` and id prefixes are the command line's: the API takes whole ids.
  const checkIdOf = async (id: string, ref: string, idOrName: string) =>
    UUID.test(ref) ? ref : resolveCheckRef(ref, await data<CheckRecord[]>('GET', `${path(id)}/checks`), idOrName).id;

  const getCheck: Backend['getCheck'] = async (idOrName, ref, status) => {
    const id = await idOf(idOrName);
    const checkId = await checkIdOf(id, ref, idOrName);
    const pages: PageResult[] = [];
    for (let skip = 0; ; skip += CHECK_PAGE_SIZE) {
      const check = await data<CheckRecord & { pages?: PageResult[] }>('GET', `${path(id)}/checks/${encodeURIComponent(checkId)}`, { query: { status, limit: CHECK_PAGE_SIZE, skip } });
      const batch = check.pages ?? [];
      pages.push(...batch);
      if (batch.length < CHECK_PAGE_SIZE) {
        const { pages: _, ...record } = check;
        return { ...(record as CheckRecord), pages };
      }
    }
  };

  const checkReport: Backend['checkReport'] = async (idOrName, ref) => {
    const id = await idOf(idOrName);
    const checkId = await checkIdOf(id, ref, idOrName);
    const { pages: _, ...check } = await data<CheckRecord & { pages?: PageResult[] }>('GET', `${path(id)}/checks/${encodeURIComponent(checkId)}`, { query: { limit: 0 } });
    try {
      const html = await client.request<string>('GET', `${path(id)}/checks/${encodeURIComponent(checkId)}/report`, { accept: 'text/html' });
      return { check: check as CheckRecord, html: [html] };
    } catch (error) {
      // The check was just read: a 404 now is an API without the route (the hosted one).
      if (!(error instanceof WebwatchError) || error.status !== 404) throw error;
      throw new WebwatchError(`the API at ${client.base} does not make check reports`, {
        status: 404,
        code: 'REPORT_NOT_OFFERED',
        details: { route: `GET /v2/monitor/{id}/checks/{checkId}/report`, reason: 'the route is webwatch serve\'s own' },
        suggestion: 'run the report on a webwatch serve, or read the check with: webwatch monitor check',
      });
    }
  };

  return {
    description: `the API at ${client.base}`,
    scrape: async (url, scrapeOptions) => data<ScrapeDocument>('POST', '/scrape', { body: { url, ...scrapeOptions } }),

    async crawl(url, crawlOptions, scrapeOptions, onPage: (page: CrawlPage) => void | Promise<void>, signal?: AbortSignal): Promise<CrawlSummary> {
      const started = await client.request<{ id: string }>('POST', '/crawl', { body: { url, ...crawlOptions, scrapeOptions } });
      let seen = 0;
      try {
        for (;;) {
          signal?.throwIfAborted();
          // Documents from the first one not yet seen: a large crawl's answers are paged (`next`).
          const status = await client.request<CrawlStatus>('GET', `/crawl/${encodeURIComponent(started.id)}`, { query: { skip: seen } });
          const documents = status.data ?? [];
          for (const document of documents) await onPage({ url: document.metadata?.url ?? document.metadata?.sourceURL ?? url, depth: 0, document });
          seen += documents.length;
          if (status.next) continue;
          if (status.status === 'failed') throw new WebwatchError(`the crawl failed: ${status.error ?? 'no reason given'}`);
          if (status.status === 'cancelled') throw new WebwatchError(`crawl ${started.id} was cancelled`, { code: 'CRAWL_CANCELLED' });
          if (status.status === 'completed') return { pages: seen, errors: Math.max(0, (status.total ?? seen) - seen), skippedByRobots: 0, robotsBlocked: [] };
          await sleep(POLL_INTERVAL_MS);
        }
      } catch (error) {
        // Interrupted: the API's crawl stops too, rather than run on for no one.
        if (signal?.aborted) {
          await client.request('DELETE', `/crawl/${encodeURIComponent(started.id)}`).catch(() => undefined);
          throw new WebwatchError(`interrupted: crawl ${started.id} was cancelled on the API`, { code: 'CRAWL_CANCELLED', exitCode: EXIT.interrupted });
        }
        throw error;
      }
    },
    async scrapeMany(urls, scrapeOptions, onResult, signal) {
      const started = await client.request<{ id: string; invalidURLs?: string[] }>('POST', '/batch/scrape', { body: { urls, ...scrapeOptions, ignoreInvalidURLs: true } });
      const path = `/batch/scrape/${encodeURIComponent(started.id)}`;
      const byUrl = new Map<string, ScrapeResult>();
      for (const url of started.invalidURLs ?? []) byUrl.set(url, { url, error: new WebwatchError(ERROR_MESSAGES.invalidUrl, { status: 400 }) });
      try {
        let seen = 0;
        for (;;) {
          signal?.throwIfAborted();
          const status = await client.request<CrawlStatus>('GET', path, { query: { skip: seen } });
          for (const document of status.data ?? []) {
            const url = document.metadata?.sourceURL ?? document.metadata?.url ?? '';
            byUrl.set(url, { url, document });
            onResult?.(byUrl.size);
          }
          seen += status.data?.length ?? 0;
          if (status.next) continue;
          if (status.status === 'failed' || status.status === 'cancelled') throw new WebwatchError(`the batch scrape ${status.status === 'failed' ? 'failed' : 'was cancelled'}: ${status.error ?? 'no reason given'}`);
          if (status.status === 'completed') break;
          await sleep(POLL_INTERVAL_MS);
        }
      } catch (error) {
        if (signal?.aborted) {
          await client.request('DELETE', path).catch(() => undefined);
          throw new WebwatchError(`interrupted: batch scrape ${started.id} was cancelled on the API`, { code: 'BATCH_CANCELLED', exitCode: EXIT.interrupted });
        }
        throw error;
      }
      const failed = await client.request<{ errors?: { url: string; error: string; code?: string }[] }>('GET', `${path}/errors`);
      for (const failure of failed.errors ?? []) byUrl.set(failure.url, { url: failure.url, error: new WebwatchError(failure.error, { ...(failure.code && { code: failure.code }) }) });
      // In the order asked; a URL the API normalised is found by its normal form.
      const normal = (url: string) => {
        try {
          return new URL(url).href;
        } catch {
          return url;
        }
      };
      return urls.map((url) => byUrl.get(url) ?? byUrl.get(normal(url)) ?? { url, error: new WebwatchError('the batch scrape did not return this URL') });
    },
    startCrawl: async (url, crawlOptions, scrapeOptions) => client.request<{ id: string; url: string }>('POST', '/crawl', { body: { url, ...crawlOptions, scrapeOptions } }),
    crawlStatus: async (id, skip) => {
      const status = await client.request<CrawlJobStatus>('GET', `/crawl/${encodeURIComponent(id)}`, { query: { skip } });
      return { ...status, id: status.id ?? id, data: status.data ?? [] };
    },
    cancelCrawl: async (id) => {
      await client.request('DELETE', `/crawl/${encodeURIComponent(id)}`);
    },
    crawlErrors: async (id) => {
      const answer = await client.request<{ errors?: []; robotsBlocked?: string[]; data?: { errors?: []; robotsBlocked?: string[] } }>('GET', `/crawl/${encodeURIComponent(id)}/errors`);
      const body = answer.data ?? answer;
      return { errors: body.errors ?? [], robotsBlocked: body.robotsBlocked ?? [] };
    },
    activeCrawls: async () => (await client.request<{ crawls?: { id: string; url: string }[] }>('GET', '/crawl/active')).crawls ?? [],

    // The hosted API has answered with bare URLs as well as objects.
    map: async (request) => ({ links: ((await client.request<{ links?: (MapLink | string)[] }>('POST', '/map', { body: request })).links ?? []).map((link) => (typeof link === 'string' ? { url: link } : link)) }),
    search: async (request, scrapeOptions) => {
      const answer = await client.request<{ data?: SearchAnswer; warning?: string }>('POST', '/search', { body: { ...request, ...(scrapeOptions && { scrapeOptions }) } });
      return { ...answer.data, ...(answer.warning && { warning: answer.warning }) };
    },
    usage: async () => {
      type Usage = { remainingCredits?: number; planCredits?: number; creditsUsed?: number; remainingTokens?: number; planTokens?: number; tokensUsed?: number; billingPeriodStart?: string | null; billingPeriodEnd?: string | null };
      type Periods = { periods?: { startDate: string | null; endDate: string | null; creditsUsed?: number; tokensUsed?: number }[] };
      const [credits, tokens, creditMonths, tokenMonths] = await Promise.all([
        data<Usage>('GET', '/team/credit-usage'),
        data<Usage>('GET', '/team/token-usage'),
        client.request<Periods>('GET', '/team/credit-usage/historical'),
        client.request<Periods>('GET', '/team/token-usage/historical'),
      ]);
      const months = new Map<string, UsageReport['months'][number]>();
      for (const period of [...(creditMonths.periods ?? []), ...(tokenMonths.periods ?? [])]) {
        const key = `${period.startDate}|${period.endDate}`;
        const month = months.get(key) ?? { startDate: period.startDate, endDate: period.endDate, creditsUsed: 0, tokensUsed: 0 };
        month.creditsUsed += period.creditsUsed ?? 0;
        month.tokensUsed += period.tokensUsed ?? 0;
        months.set(key, month);
      }
      return {
        periodStart: credits.billingPeriodStart ?? '',
        periodEnd: credits.billingPeriodEnd ?? '',
        credits: { used: credits.creditsUsed ?? null, remaining: credits.remainingCredits ?? null, plan: credits.planCredits ?? null },
        tokens: { used: tokens.tokensUsed ?? null, remaining: tokens.remainingTokens ?? null, plan: tokens.planTokens ?? null },
        months: [...months.values()].sort((a, b) => compareText(b.startDate ?? '', a.startDate ?? '')),
      };
    },
    async listMonitors(list = {}) {
      // The API answers a page at a time: read every page, or `apply` would take a monitor on a
      // later page for a new one. A server that ignores limit or offset answers with more than a
      // page, or with ids already seen; either ends the walk rather than looping.
      const monitors: MonitorResource[] = [];
      const seen = new Set<string>();
      for (let offset = 0; ; offset += MONITOR_PAGE) {
        const page = await data<MonitorResource[]>('GET', '/monitor', { query: { includeDeleted: list.includeDeleted || undefined, limit: MONITOR_PAGE, offset } });
        const fresh = page.filter((monitor) => !seen.has(monitor.id));
        for (const monitor of fresh) seen.add(monitor.id);
        monitors.push(...fresh);
        if (page.length !== MONITOR_PAGE || fresh.length < page.length) return monitors;
      }
    },
    getMonitor: async (idOrName) => data<MonitorResource>('GET', path(await idOf(idOrName))),
    createMonitor: async (definition) => data<MonitorResource>('POST', '/monitor', { body: createRequestOf(definition) }),
    updateMonitor: async (id, change) =>
      data<MonitorResource>('PATCH', path(id), { body: { ...(change.definition && createRequestOf(change.definition)), ...(change.status && { status: change.status }) } }),
    deleteMonitor: async (id) => data<MonitorResource>('DELETE', path(id)),

    async runMonitor(idOrName, run = { wait: true }) {
      const id = await idOf(idOrName);
      let check: CheckRecord;
      try {
        check = await data<CheckRecord>('POST', `${path(id)}/run`);
      } catch (error) {
        throw withPausedHint(error);
      }
      while (run.wait && !finished(check)) {
        await sleep(POLL_INTERVAL_MS);
        const { pages: _, ...record } = await data<CheckRecord & { pages?: unknown }>('GET', `${path(id)}/checks/${encodeURIComponent(check.id)}`, { query: { limit: 0 } });
        check = record as CheckRecord;
      }
      return check;
    },
    runDue: async () => {
      throw new UsageError('run --due runs the checks of the local engine; a remote API runs its monitors on their schedules itself', { suggestion: 'add --local, or unset --api-url / WEBWATCH_API_URL' });
    },
    listChecks: async (idOrName) => data<CheckRecord[]>('GET', `${path(await idOf(idOrName))}/checks`),
    getCheck,
    checkReport,

    startAgent: async (request) => {
      // Never sent twice: a POST that may have reached the API is not retried (api-client).
      const started = await client.request<AgentResponse>('POST', '/agent', { body: request });
      return { id: started.id };
    },
    getAgent: async (id) => client.request<AgentStatusDocument>('GET', agentPath(id)),
    listAgents: async (list = {}) => {
      const answer = await client.request<{ agents?: AgentListItem[]; next?: string }>('GET', '/agent', { query: { before: list.before } });
      return { agents: answer.agents ?? [], ...(answer.next && { next: answer.next }) };
    },
    agentTrace: async (id, since = 0, wait = {}) => {
      // The hosted API answers every event and ignores `since` and `waitMs` (spec §4.2 bodies may
      // lack `success`); webwatch serve answers only the new ones, as soon as there are some.
      const answer = await client.request<{ events?: TraceEvent[]; creditsUsed?: number }>('GET', `${agentPath(id)}/trace`, {
        query: { ...(since > 0 && { since }), ...(wait.waitMs && { waitMs: wait.waitMs }) },
        ...(wait.signal && { signal: wait.signal }),
      });
      const events = (answer.events ?? []).filter((event) => event.producerSequence > since).sort((a, b) => a.producerSequence - b.producerSequence);
      return { events, ...(answer.creditsUsed !== undefined && { creditsUsed: answer.creditsUsed }) };
    },
    agentSnapshot: async (id, snapshotId) => {
      const answer = await client.request<{ snapshot?: unknown }>('GET', `${agentPath(id)}/snapshots/${encodeURIComponent(snapshotId)}`);
      return typeof answer.snapshot === 'string' ? answer.snapshot : JSON.stringify(answer.snapshot ?? null);
    },
    cancelAgent: async (id) => {
      await client.request('DELETE', agentPath(id));
    },
    startExtract: async (request) => {
      // Never sent twice, as an agent job's start is not.
      const started = await client.request<ExtractStarted>('POST', '/extract', { body: request });
      return { id: started.id, ...(started.warning && { warning: started.warning }) };
    },
    getExtract: async (id) => client.request<ExtractStatusDocument>('GET', `/extract/${encodeURIComponent(id)}`),
    close: () => client.close(),
  };
}
