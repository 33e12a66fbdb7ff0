/**
 * What each resource offers, wherever it runs: a team's services on the embedded engine (the
 * modules beside this one, named for their resource), or a remote v2 API (src/backend/remote).
 * Commands, serve's routes and worker, and the MCP server call these; this file imports only the
 * shapes of src/contract and src/spec, so a client of an API loads nothing of the engine.
 */
import type { AgentListItem, AgentStatusDocument, TraceEvent } from '../contract/agent.js';
import type { CheckRecord, DeliveryState, PageResult, PageStatus } from '../contract/checks.js';
import type { CrawlPage, CrawlSummary } from '../contract/crawl.js';
import type { ExtractStatusDocument } from '../contract/extract.js';
import type { InteractAnswer, InteractOrigin, InteractRequest, InteractStopped } from '../contract/interact.js';
import type { MapLink } from '../contract/map.js';
import type { MonitorResource } from '../contract/monitor.js';
import type { ParsedDocument, ScrapeDocument } from '../contract/scrape.js';
import type { SearchAnswer } from '../contract/search.js';
import type { AgentRequestInput } from '../spec/agent.js';
import type { ExtractRequestInput } from '../spec/extract.js';
import type { MapRequest } from '../spec/map.js';
import type { NormalizedMonitor } from '../spec/monitor.js';
import type { CrawlOptions } from '../spec/schemas.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';
import type { SearchRequest } from '../spec/search.js';

/** One URL of several scraped: its document, or why there is none. */
export type ScrapeResult = { url: string; document: ScrapeDocument } | { url: string; error: unknown };

export interface ScrapeService {
  one(url: string, options: ScrapeOptions, signal?: AbortSignal): Promise<ScrapeDocument>;
  /**
   * Many pages with the same options, results in the order of `urls`: on an API, one batch
   * scrape job (cancelled when `signal` aborts); on the engine, a few scrapes at a time.
   */
  many(urls: readonly string[], options: ScrapeOptions, onResult?: (done: number) => void, signal?: AbortSignal): Promise<ScrapeResult[]>;
}

export interface ParseService {
  /** A file read as a scrape of it would read it: by its bytes, nothing fetched or cached. */
  parse(file: { body: Buffer; filename: string; contentType: string }, options: ScrapeOptions, signal?: AbortSignal): Promise<ParsedDocument>;
}

export interface InteractService {
  /**
   * A prompt or code in the page of scrape `scrapeId`, opening its session if none is open.
   * `origin` says where the scrape was, for an engine that does not keep its scrapes (the
   * command line's); an API knows its own.
   */
  run(scrapeId: string, request: InteractRequest, origin?: InteractOrigin): Promise<InteractAnswer>;
  /** Ends the scrape's session: how long it was open and what it cost. */
  stop(scrapeId: string): Promise<InteractStopped>;
}

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

export interface CrawlErrors {
  errors: { id: string; timestamp?: string; url: string; code?: string; error: string }[];
  robotsBlocked: string[];
}

export interface CrawlService {
  /** Crawls from `url` to the end, calling `onPage` for each page as it is done. */
  run(
    url: string,
    crawlOptions: CrawlOptions,
    scrapeOptions: ScrapeOptions,
    onPage: (page: CrawlPage) => void | Promise<void>,
    signal?: AbortSignal,
  ): Promise<CrawlSummary>;
  /** Crawl jobs of an API (serve, or a remote one): start without waiting, read, cancel, list. */
  start(url: string, crawlOptions: CrawlOptions, scrapeOptions: ScrapeOptions): Promise<{ id: string; url: string }>;
  /** A crawl job's status with documents from `skip` (an answer holds at most 10 MB; `next` says more). */
  status(id: string, skip?: number): Promise<CrawlJobStatus>;
  cancel(id: string): Promise<void>;
  errors(id: string): Promise<CrawlErrors>;
  active(): Promise<{ id: string; url: string }[]>;
}

export interface MapService {
  /** The URLs of a site, from its sitemaps and start page, without scraping each page. */
  links(request: MapRequest, signal?: AbortSignal): Promise<{ links: MapLink[] }>;
}

export interface SearchService {
  /** A web search over the configured provider; with `scrapeOptions`, each result scraped. */
  query(request: SearchRequest, scrapeOptions?: ScrapeOptions, signal?: AbortSignal): Promise<SearchAnswer>;
}

export interface UsageReport {
  periodStart: string;
  periodEnd: string;
  credits: { used: number | null; remaining: number | null; plan: number | null };
  tokens: { used: number | null; remaining: number | null; plan: number | null };
  months: { startDate: string | null; endDate: string | null; creditsUsed: number; tokensUsed: number }[];
}

export interface UsageService {
  /** Credits and model tokens used this month and by month (the team's, on an API). */
  report(): Promise<UsageReport>;
}

export interface MonitorService {
  list(options?: { includeDeleted?: boolean }): Promise<MonitorResource[]>;
  /** By id or name (on the command line also by id prefix); 404 Not Found when there is none. */
  get(idOrName: string): Promise<MonitorResource>;
  create(definition: NormalizedMonitor): Promise<MonitorResource>;
  /** PATCH: a new definition, or a status change. A deleted monitor is 409 Conflict. */
  update(id: string, change: { definition?: NormalizedMonitor; status?: 'active' | 'paused' }): Promise<MonitorResource>;
  delete(id: string): Promise<MonitorResource>;
}

/** A check with its page results and, where the engine knows them, its deliveries. */
export type CheckWithPages = CheckRecord & { pages: PageResult[]; deliveries?: DeliveryState[] };

export interface CheckService {
  /**
   * Runs a check now; 409 when the monitor is paused, deleted or already checking. With `wait`
   * (the default) it returns the finished check; a remote API may otherwise return it running.
   * The local engine always finishes the check, as it runs in this process. `onSaved`: the check
   * has ended and is stored; what may follow is the delivery of its notifications.
   */
  run(idOrName: string, run?: { wait: boolean; onSaved?: (check: CheckRecord) => void }): Promise<CheckRecord>;
  /** Runs, once, a scheduled check of every active monitor whose next run time has come. */
  runDue(): Promise<CheckRecord[]>;
  list(idOrName: string): Promise<CheckRecord[]>;
  /** A check (by id, id prefix or `latest` on the command line), optionally only the pages of one status. */
  get(idOrName: string, checkId: string, status?: PageStatus): Promise<CheckWithPages>;
  /**
   * A check as one self-contained HTML page: its changes side by side, words marked, screenshots
   * compared, JSON fields old and new, recent history. `checkId` as for get. The HTML comes in
   * pieces to write one after another: a report with screenshots runs to tens of megabytes.
   */
  report(idOrName: string, checkId: string): Promise<{ check: CheckRecord; html: readonly string[] }>;
}

export interface AgentService {
  /** Starts an agent job; it runs on the API, or in this process on the local engine. */
  start(request: AgentRequestInput): Promise<{ id: string }>;
  get(id: string): Promise<AgentStatusDocument>;
  /** Newest first; `before` (ms) pages back. */
  list(options?: { before?: number }): Promise<{ agents: AgentListItem[]; next?: string }>;
  /**
   * The job's trace events after `since` (a producerSequence), in order. With `waitMs`, an API
   * that can (webwatch serve, the local engine) answers as soon as the next event is recorded.
   */
  trace(id: string, since?: number, wait?: { waitMs?: number; signal?: AbortSignal }): Promise<{ events: TraceEvent[]; creditsUsed?: number }>;
  snapshot(id: string, snapshotId: string): Promise<string>;
  cancel(id: string): Promise<void>;
}

export interface ExtractService {
  /** Starts an extract job; it runs on the API, or in this process on the local engine. `warning`: what the API said of the request. */
  start(request: ExtractRequestInput): Promise<{ id: string; warning?: string }>;
  get(id: string): Promise<ExtractStatusDocument>;
}

/** Every resource of one place that does the work: what a command is given (cli/backend.ts). */
export interface Backend {
  /** Which engine this is, for the one-line notice on a terminal. */
  readonly description: string;
  /** Whether the work runs in this process (the embedded engine) rather than on an API. */
  readonly inProcess: boolean;
  readonly scrape: ScrapeService;
  readonly parse: ParseService;
  readonly interact: InteractService;
  readonly crawl: CrawlService;
  readonly map: MapService;
  readonly search: SearchService;
  readonly usage: UsageService;
  readonly monitors: MonitorService;
  readonly checks: CheckService;
  readonly agents: AgentService;
  readonly extract: ExtractService;
  close(): Promise<void>;
}
