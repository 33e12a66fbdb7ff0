/**
 * What a command can ask of webwatch's engine, wherever it runs: the embedded engine in this
 * process, or a remote v2 API. Core functions take a Backend and return data.
 */
import type { CrawlPage, CrawlSummary } from '../contract/crawl.js';
import type { ScrapeDocument } from '../contract/scrape.js';
import type { CheckRecord, DeliveryState, PageResult, PageStatus } from '../contract/checks.js';
import type { MonitorResource } from '../contract/monitor.js';
import type { NormalizedMonitor } from '../spec/monitor.js';
import type { CrawlOptions } from '../spec/schemas.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';
import type { MapRequest } from '../spec/map.js';
import type { SearchRequest } from '../spec/search.js';
import type { SearchAnswer } from '../contract/search.js';
import type { MapLink } from '../contract/map.js';
import type { AgentRequestInput } from '../spec/agent.js';
import type { AgentListItem, AgentStatusDocument, TraceEvent } from '../contract/agent.js';
import type { ExtractStatusDocument } from '../contract/extract.js';
import type { ExtractRequestInput } from '../spec/extract.js';

/** One URL of several scraped: its document, or why there is none. */
export type ScrapeResult = { url: string; document: ScrapeDocument } | { url: string; error: unknown };

export interface CrawlJobStatus {
  id: string;
  status: 'scraping' | 'completed' | 'failed' | 'cancelled';
  total: number;
  completed: number;
  creditsUsed?: number;
  expiresAt?: string;
  next?: string | null;
  data: ScrapeDocument[];
  error?: string;
}

export interface UsageReport {
  periodStart: string;
  periodEnd: string;
  credits: { used: number | null; remaining: number | null; plan: number | null };
  tokens: { used: number | null; remaining: number | null; plan: number | null };
  months: { startDate: string | null; endDate: string | null; creditsUsed: number; tokensUsed: number }[];
}

export interface Backend {
  /** Which engine this is, for the one-line notice on a terminal. */
  readonly description: string;
  scrape(url: string, options: ScrapeOptions, signal?: AbortSignal): Promise<ScrapeDocument>;
  /** Crawls from `url`, calling `onPage` for each page as it is done. */
  crawl(url: string, crawlOptions: CrawlOptions, scrapeOptions: ScrapeOptions, onPage: (page: CrawlPage) => void | Promise<void>, signal?: AbortSignal): Promise<CrawlSummary>;
  /**
   * Many pages with the same options, results in the order of `urls`: on an API, one batch
   * scrape job (cancelled when `signal` aborts); on the engine, a few scrapes at a time.
   */
  scrapeMany(urls: readonly string[], options: ScrapeOptions, onResult?: (done: number) => void, signal?: AbortSignal): Promise<ScrapeResult[]>;
  /** The URLs of a site, from its sitemaps and start page, without scraping each page. */
  map(request: MapRequest, signal?: AbortSignal): Promise<{ links: MapLink[] }>;
  /** A web search over the configured provider; with `scrapeOptions`, each result scraped. */
  search(request: SearchRequest, scrapeOptions?: ScrapeOptions, signal?: AbortSignal): Promise<SearchAnswer>;
  /** Credits and model tokens used this month and by month (the team's, on an API). */
  usage(): Promise<UsageReport>;
  /** Crawl jobs of an API (serve, or a remote one): start without waiting, read, cancel, list. */
  startCrawl(url: string, crawlOptions: CrawlOptions, scrapeOptions: ScrapeOptions): Promise<{ id: string; url: string }>;
  /** A crawl job's status with documents from `skip` (an answer holds at most 10 MB; `next` says more). */
  crawlStatus(id: string, skip?: number): Promise<CrawlJobStatus>;
  cancelCrawl(id: string): Promise<void>;
  crawlErrors(id: string): Promise<{ errors: { id: string; timestamp?: string; url: string; code?: string; error: string }[]; robotsBlocked: string[] }>;
  activeCrawls(): Promise<{ id: string; url: string }[]>;
  listMonitors(options?: { includeDeleted?: boolean }): Promise<MonitorResource[]>;
  /** By id or name; 404 Not Found when there is none. */
  getMonitor(idOrName: string): Promise<MonitorResource>;
  createMonitor(definition: NormalizedMonitor): Promise<MonitorResource>;
  /** PATCH: a new definition, or a status change. A deleted monitor is 409 Conflict. */
  updateMonitor(id: string, change: { definition?: NormalizedMonitor; status?: 'active' | 'paused' }): Promise<MonitorResource>;
  deleteMonitor(id: string): Promise<MonitorResource>;
  /**
   * Runs a check now; 409 when the monitor is paused, deleted or already checking. With `wait`
   * (the default) it returns the finished check; a remote API may otherwise return it running.
   * The local engine always finishes the check, as it runs in this process.
   */
  /** `onSaved`: the check has ended and is stored; what may follow is the delivery of its notifications. */
  runMonitor(idOrName: string, run?: { wait: boolean; onSaved?: (check: CheckRecord) => void }): Promise<CheckRecord>;
  /** Runs, once, a scheduled check of every active monitor whose next run time has come. */
  runDue(): Promise<CheckRecord[]>;
  listChecks(idOrName: string): Promise<CheckRecord[]>;
  /**
   * A check (by id, id prefix or `latest` on the command line) with its page results, optionally
   * only those of one status, and, where the engine knows them, its deliveries.
   */
  getCheck(idOrName: string, checkId: string, status?: PageStatus): Promise<CheckRecord & { pages: PageResult[]; deliveries?: DeliveryState[] }>;
  /**
   * A check as one self-contained HTML page: its changes side by side, words marked, screenshots
   * compared, JSON fields old and new, recent history. `checkId` as for getCheck. The HTML comes
   * in pieces to write one after another: a report with screenshots runs to tens of megabytes.
   */
  checkReport(idOrName: string, checkId: string): Promise<{ check: CheckRecord; html: readonly string[] }>;
  /** Starts an agent job; it runs on the API, or in this process on the local engine. */
  startAgent(request: AgentRequestInput): Promise<{ id: string }>;
  getAgent(id: string): Promise<AgentStatusDocument>;
  /** Newest first; `before` (ms) pages back. */
  listAgents(options?: { before?: number }): Promise<{ agents: AgentListItem[]; next?: string }>;
  /**
   * The job's trace events after `since` (a producerSequence), in order. With `waitMs`, an API
   * that can (webwatch serve, the local engine) answers as soon as the next event is recorded.
   */
  agentTrace(id: string, since?: number, wait?: { waitMs?: number; signal?: AbortSignal }): Promise<{ events: TraceEvent[]; creditsUsed?: number }>;
  agentSnapshot(id: string, snapshotId: string): Promise<string>;
  cancelAgent(id: string): Promise<void>;
  /** Starts an extract job; it runs on the API, or in this process on the local engine. `warning`: what the API said of the request. */
  startExtract(request: ExtractRequestInput): Promise<{ id: string; warning?: string }>;
  getExtract(id: string): Promise<ExtractStatusDocument>;
  close(): Promise<void>;
}
