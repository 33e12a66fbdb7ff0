/**
 * One team's engine: scrapes, crawls, maps and searches on its cache and network rule, its
 * monitors and checks, its agent jobs and its usage ledger, on one database. serve keeps one per
 * team (and key); the command line's backend (local-backend.ts) is a thin adapter over the
 * `local` team's.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ScrapeContext } from '../../engine/scrape/scrape.js';
import type { PageConverter } from '../../engine/scrape/convert-pool.js';
import { databasePath, openDatabase, type Db } from '../../engine/store/database.js';
import { scrapeStore } from '../../engine/store/scrape-cache.js';
import type { RunContext } from '../../engine/store/work-queue.js';
import type { ClaimedCheck } from '../../engine/scheduler/scheduler.js';
import type { OrganizationThreatPolicy } from '../../engine/threat/threat-protection.js';
import { checkStore, type CheckRecord } from '../../engine/monitors/check-store.js';
import { outboxStore } from '../../engine/notify/outbox.js';
import { MAP_CREDITS, searchCredits, zeroDataRetentionSurcharge } from '../../spec/credits.js';
import type { CrawlPage, CrawlSummary } from '../../contract/crawl.js';
import type { ScrapeDocument } from '../../contract/scrape.js';
import type { CrawlOptions } from '../../spec/schemas.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import type { NormalizedMonitor } from '../../spec/monitor.js';
import { monthOf, usageStore, type UsageKind } from '../../engine/usage/usage-store.js';
import type { CheckContext } from '../../engine/monitors/run-check.js';
import type { Judge } from '../../engine/judge/judge.js';
import { monitorStore, nameConflict, type SavedUnder, type StoredMonitor } from '../../engine/monitors/monitor-store.js';
import { refusePrivateHosts, targetUrls } from '../../engine/fetch/target-hosts.js';
import { monitorResource } from '../../engine/monitors/resource.js';
import { resolveCheckRef, resolveMonitorRef } from '../../core/monitor-ref.js';
import { UsageError, WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import type { Backend } from '../backend.js';
import type { BrowserSettings, ProxySettings, SearchSettings } from '../../config/config.js';
import { artifactsDir, KEPT_DIR } from '../../engine/browser/artifacts.js';
import { profilesDir } from '../../engine/browser/profiles.js';
import { searchProvider } from '../../engine/search/providers.js';
import type { AgentJobs } from '../../engine/agent/agent-jobs.js';
import type { CrawlPacing } from '../../engine/crawl/crawl.js';
import type { Env } from '../../lib/env.js';

/** The embedded engine has one team; `serve` gives each key's team its own. */
export const LOCAL_TEAM = 'local';

// The fetching and content pipeline loads on first use: listing monitors does not need it.
// Each import is asked for once: asking again costs the loader's look-up on every request.
const once = <T>(load: () => Promise<T>) => {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
};
const scrapeModule = once(() => import('../../engine/scrape/scrape.js'));
const crawlModule = once(() => import('../../engine/crawl/crawl.js'));
const checkRunner = once(() => import('../../engine/monitors/run-check.js'));

export interface TeamEngineOptions {
  version: string;
  threatPolicy?: OrganizationThreatPolicy;
  env: Env;
  now(): Date;
  /** Whose monitors these are: `serve` gives each key's team its own. */
  team?: string;
  /** The key of serve this engine works for: what it spends is counted under it in the usage ledger. */
  keyId?: string;
  /** An open database to share (serve); otherwise opened on first use and closed with the backend. */
  db?: Db;
  /** Judges every URL fetched, redirects included; throws to refuse one (serve's private-network rule). */
  checkUrl?: (url: URL) => void | Promise<void>;
  /** Sockets connect only to public addresses, whatever a name resolves to later (serve). */
  publicAddressesOnly?: boolean;
  /** Signing key of webhooks, and how long `run` keeps delivering before leaving the rest in the outbox. */
  notifications?: { secret?: string; waitSeconds: number; smtp?: { url: string; from: string }; onlyMeaningful?: boolean };
  /** The model that judges changes (the lexical judge without one) and writes the model formats. */
  llm?: { baseUrl: string; model: string; apiKey?: string; timeoutMs?: number };
  /** The provider of search targets. */
  search?: SearchSettings;
  /**
   * Monitors by id or exact name only (serve: an API takes ids), rather than also by unique id
   * prefix and case-insensitive name, with suggestions (the command line).
   */
  exactMonitorRefs?: boolean;
  /** Which Chromium, and whether script-drawn pages are rendered unasked. */
  browser?: BrowserSettings;
  /** The operator's proxies of the scrape option `proxy`. */
  proxies?: ProxySettings;
  /** The team pays no surcharge for zero data retention (serve's `zeroDataRetentionSurchargeWaived`). */
  zeroDataRetentionSurchargeWaived?: boolean;
  /**
   * Pages slow to convert are converted in child processes (engine/scrape/off-loop.ts), so that
   * one page holds up no other request: for a process that serves several clients (serve, mcp --http).
   */
  convertOffLoop?: boolean;
}

/** What a scrape or crawl request says of keeping its pages: `zeroDataRetention`, the hosted API's field beside the scrape options. */
export interface Retention {
  zeroDataRetention?: boolean | undefined;
}

/**
 * How long `monitor run` waits for retries of its notifications: none by default. Each delivery
 * due is attempted once (within its 10 s); one that fails stays in the outbox, which the
 * scheduler or the next `monitor run --due` retries, so the command is not held for them.
 */
export const DELIVERY_WAIT_DEFAULT_SECONDS = 0;

/** What a team's engine offers: the work itself, and the team's monitors, checks and agent jobs. */
export interface TeamEngine extends Pick<Backend, 'map' | 'search' | 'usage' | 'listMonitors' | 'getMonitor' | 'createMonitor' | 'updateMonitor' | 'deleteMonitor' | 'listChecks' | 'getCheck' | 'checkReport'> {
  readonly team: string;
  /** A scrape; under zero data retention nothing of the page is kept, and the page costs the surcharge. */
  scrape(url: string, options: ScrapeOptions, signal?: AbortSignal, retention?: Retention): Promise<ScrapeDocument>;
  /**
   * The command line's crawl; serve paces its pages (`pacing`: politeness per host, the team's
   * page slots) and says what is kept of them (`retention`).
   */
  crawl(url: string, crawlOptions: CrawlOptions, scrapeOptions: ScrapeOptions, onPage: (page: CrawlPage) => void | Promise<void>, signal?: AbortSignal, run?: { pacing?: CrawlPacing; retention?: Retention }): Promise<CrawlSummary>;
  /** The team's agent jobs on this engine, and its extract jobs. */
  agents(): Promise<AgentJobs>;
  /** Crawl options the model derives from `prompt` for a crawl of `url` (POST /v2/crawl/params-preview). */
  crawlParamsPreview(url: string, prompt: string, signal?: AbortSignal): Promise<{ data: Record<string, unknown> & { url: string }; warning?: string }>;
  /** Ends the agent runs of this process (serve stopping): they finish failed, `internal`. */
  stopAgents(): Promise<void>;
  /** Starts a check and returns at once with the running check; `done` settles when it ends. */
  startRun(idOrName: string): Promise<{ check: CheckRecord; done: Promise<CheckRecord> }>;
  /** Runs the scheduled check of a slot the scheduler claimed. */
  startScheduled(claim: ClaimedCheck): Promise<CheckRecord>;
  /** Claims and runs the team's checks that are due now (`monitor run --due`). */
  runDue(): Promise<CheckRecord[]>;
  /** Queues a manual check for whichever worker claims it (serve); the check as queued. */
  queueRun(idOrName: string, context: RunContext): Promise<CheckRecord>;
  /** Runs a queued check this worker claimed; undefined when it had ended meanwhile. */
  runQueuedCheck(checkId: string, monitorId: string): Promise<CheckRecord | undefined>;
  /** Delivers what the outbox holds (the checks' just run, and older ones), for a bounded time. */
  deliverNotifications(): Promise<void>;
  /** The check as stored now (its notificationStatus moves on as deliveries are made). */
  reread(check: CheckRecord): Promise<CheckRecord>;
  /** Waits for this process's agent runs, and closes the database unless it was given. */
  close(): Promise<void>;
}

export function teamEngine(options: TeamEngineOptions): TeamEngine {
  const team = options.team ?? LOCAL_TEAM;
  let db: Promise<Db> | undefined = options.db && Promise.resolve(options.db);
  // The database opens on first use: a command that fails validation never creates it. The
  // command line's engine is always the embedded SQLite file.
  const openDb = () => (db ??= openDatabase(databasePath(options.env)));
  const openMonitors = async () => monitorStore(await openDb());
  const checksOf = async () => checkStore(await openDb());
  const resource = (monitor: StoredMonitor) => monitorResource(monitor, options.now());
  /**
   * A definition saved under the rule that refuses private addresses is judged by it now (each
   * host once), and the monitor keeps the rule: a later run by a process that allows them (the
   * command line, serve's scheduler of the command line's monitors) still refuses them.
   */
  const savedUnder: SavedUnder = { privateTargetsAllowed: !options.publicAddressesOnly };
  const admitted = async (definition: NormalizedMonitor) => {
    if (options.checkUrl) await refusePrivateHosts(targetUrls(definition), options.checkUrl);
    return definition;
  };
  /** A check of the monitor by id; on the command line also by id prefix or `latest`. */
  const checkOf = async (checks: ReturnType<typeof checkStore>, monitor: StoredMonitor, checkId: string): Promise<CheckRecord> => {
    const check = await checks.get(monitor.id, checkId);
    if (check) return check;
    if (options.exactMonitorRefs) throw new WebwatchError(ERROR_MESSAGES.notFound, { status: 404, details: { check: checkId } });
    return resolveCheckRef(checkId, await checks.list(monitor.id), monitor.definition.name);
  };
  const existing = async (idOrName: string): Promise<StoredMonitor> => {
    const monitors = await openMonitors();
    const monitor = await monitors.find(team, idOrName);
    if (monitor) return monitor;
    if (options.exactMonitorRefs) throw new WebwatchError(ERROR_MESSAGES.notFound, { status: 404, details: { monitor: idOrName, reason: "no monitor of this key's team has this id or name" } });
    const all = (await monitors.list(team, { includeDeleted: true })).map((stored) => ({ ...stored, name: stored.definition.name }));
    return resolveMonitorRef(idOrName, all);
  };
  const alive = async (id: string) => {
    const monitor = await existing(id);
    if (monitor.status === 'deleted') throw new WebwatchError(ERROR_MESSAGES.conflict, { status: 409, details: { monitor: id, reason: `monitor "${monitor.definition.name}" is deleted` } });
    return monitor;
  };
  // The same for every scrape of this team: worked out once, not per request.
  const browser = { env: options.env, ...options.browser, artifactsDir: artifactsDir(options.env, team), profilesDir: profilesDir(options.env, team) };
  const surcharge = zeroDataRetentionSurcharge(options.zeroDataRetentionSurchargeWaived === true);
  const convert = options.convertOffLoop ? offLoopConverter(options.env) : undefined;
  const contextFor = async (signal?: AbortSignal, retention?: Retention): Promise<ScrapeContext> => ({
    version: options.version,
    ...(extractLlm && { llm: extractLlm }),
    now: options.now,
    store: scrapeStore(await openDb(), team),
    ...(options.threatPolicy && { threatPolicy: options.threatPolicy }),
    ...(signal && { signal }),
    ...(options.checkUrl && { checkUrl: options.checkUrl }),
    ...(options.publicAddressesOnly && { publicAddressesOnly: true }),
    ...(options.proxies && { proxies: options.proxies }),
    ...(retention?.zeroDataRetention && { zeroDataRetention: { surcharge } }),
    ...(convert && { convert }),
    browser,
  });
  /** The usage ledger of this team: credits of each piece of work, tokens of each model reply. */
  const usage = async () => usageStore(await openDb());
  const spent = async (kind: UsageKind, credits: number, tokens = 0) => (await usage()).record(team, { kind, credits, tokens, keyId: options.keyId }, options.now());
  const llm = options.llm && { ...options.llm, onTokens: (tokens: number) => void spent('judge', 0, tokens).catch(() => undefined) };
  const agentLlm = options.llm && { ...options.llm, onTokens: (tokens: number) => void spent('agent', 0, tokens).catch(() => undefined) };
  const previewLlm = options.llm && { ...options.llm, onTokens: (tokens: number) => void spent('crawl', 0, tokens).catch(() => undefined) };
  let previewModel: Promise<import('../../engine/llm/chat.js').ChatModel> | undefined;
  // One settings object for the backend's life: the model formats keep one client per settings.
  const extractLlm = options.llm && { ...options.llm, onTokens: (tokens: number) => void spent('extract', 0, tokens).catch(() => undefined) };
  /** A check's pages fetched are its credits, counted once it has finished. */
  const countCheck = async (check: CheckRecord) => {
    await spent('check', check.actualCredits ?? 0);
    return check;
  };
  // One judge for the backend's life, so its model client is made once, not per page.
  let modelJudge: Promise<Judge> | undefined;
  const search = options.search && searchProvider(options.search);
  // Read when a check starts, so that a bad value fails the checks it concerns and no other command.
  const checkContext = async (): Promise<CheckContext> => ({
    ...withConversionThreads(options.env),
    checks: await checksOf(),
    scrape: await contextFor(),
    now: options.now,
    ...(llm && { judge: async (input) => (await (modelJudge ??= import('../../engine/judge/llm-judge.js').then(({ llmJudge }) => llmJudge(llm))))(input) }),
    ...(options.notifications?.onlyMeaningful && { onlyMeaningful: true }),
    ...(search && { search }),
  });
  /** Delivers what the outbox holds (this check's and older ones), for a bounded time. */
  async function deliverNotifications() {
    const { deliverUntil } = await import('../../engine/notify/deliver.js');
    const waitSeconds = options.notifications?.waitSeconds ?? DELIVERY_WAIT_DEFAULT_SECONDS;
    await deliverUntil({
      outbox: outboxStore(await openDb()),
      now: options.now,
      version: options.version,
      waitMs: waitSeconds * 1000,
      ...(options.notifications?.secret && { secret: options.notifications.secret }),
      ...(options.notifications?.smtp && { smtp: options.notifications.smtp }),
    });
  }

  let agentJobs: AgentJobs | undefined;
  const agents = async () => {
    if (!agentJobs) {
      const { agentJobs: jobsOf } = await import('../../engine/agent/agent-jobs.js');
      agentJobs = jobsOf({ db: await openDb(), team, now: options.now, scrape: await contextFor(), ...(agentLlm && { llm: agentLlm }), ...(search && { search }) });
    }
    return agentJobs;
  };

  async function startRun(idOrName: string) {
    const monitor = await runnable(idOrName);
    const started = await (await checkRunner()).beginCheck(await checkContext(), monitor, 'manual');
    return { ...started, done: started.done.then(countCheck) };
  }

  /** A monitor that may be checked now: 409 when it is paused. */
  async function runnable(idOrName: string) {
    const monitor = await alive(idOrName);
    if (monitor.status === 'paused') {
      throw new WebwatchError(ERROR_MESSAGES.conflict, {
        status: 409,
        details: { monitor: monitor.id, reason: `monitor "${monitor.definition.name}" is paused` },
        suggestion: `resume it with: webwatch monitor resume "${monitor.definition.name}"`,
      });
    }
    return monitor;
  }

  return {
    team,
    scrape: async (url, scrapeOptions, signal, retention) => {
      const document = await (await scrapeModule()).scrape({ url, options: scrapeOptions }, await contextFor(signal, retention));
      await spent('scrape', document.metadata.creditsUsed);
      return document;
    },
    crawl: async (url, crawlOptions, scrapeOptions, onPage, signal, run) =>
      (await crawlModule()).crawl(url, crawlOptions, scrapeOptions, await contextFor(signal, run?.retention), async (page) => {
        await onPage(page);
        // Booked as each page is stored, as a batch's pages are: a crawl whose process dies
        // half-way has paid for the pages it stored, and for no other (the ledger groups its writes).
        if ('document' in page) await spent('crawl', page.document.metadata.creditsUsed);
      }, run?.pacing),
    map: async (request, signal) => {
      const links = await (await import('../../engine/map/map.js')).mapSite(request, await contextFor(signal));
      await spent('map', MAP_CREDITS);
      return { links };
    },
    search: async (request, scrapeOptions, signal) => {
      const [{ webSearch }, { scrape }] = await Promise.all([import('../../engine/search/web-search.js'), scrapeModule()]);
      let scraped = 0;
      const answer = await webSearch(request, {
        provider: search,
        now: options.now,
        ...(signal && { signal }),
        ...(scrapeOptions && {
          scrape: async (url: string, each: AbortSignal) => {
            const document = await scrape({ url, options: scrapeOptions }, await contextFor(each));
            scraped += document.metadata.creditsUsed;
            return document;
          },
        }),
      });
      const creditsUsed = searchCredits((answer.web?.length ?? 0) + (answer.news?.length ?? 0) + (answer.images?.length ?? 0)) + scraped;
      await spent('search', creditsUsed);
      return { ...answer, creditsUsed };
    },
    usage: async () => {
      const { start, end } = monthOf(options.now());
      const ledger = await usage();
      const used = await ledger.totals(team, start, end);
      return {
        periodStart: start.toISOString(),
        periodEnd: end.toISOString(),
        // The engine has no plan: nothing runs out.
        credits: { used: used.credits, remaining: null, plan: null },
        tokens: { used: used.tokens, remaining: null, plan: null },
        months: (await ledger.byMonth(team, false)).map(({ startDate, endDate, creditsUsed, tokensUsed }) => ({ startDate, endDate, creditsUsed, tokensUsed })),
      };
    },
    listMonitors: async (list = {}) => (await (await openMonitors()).list(team, list)).map(resource),
    getMonitor: async (idOrName) => resource(await existing(idOrName)),
    createMonitor: async (definition) => {
      const monitors = await openMonitors();
      // The insert refuses a name taken since this look-up (by another process) with the same 409.
      if (await monitors.find(team, definition.name)) throw nameConflict(definition.name);
      return resource(await monitors.insert(team, await admitted(definition), options.now(), savedUnder));
    },
    updateMonitor: async (id, change) => {
      const monitor = await alive(id);
      const monitors = await openMonitors();
      let updated = monitor;
      if (change.definition) updated = await monitors.update(team, monitor.id, await admitted(change.definition), options.now(), savedUnder);
      if (change.status) updated = await monitors.setStatus(team, monitor.id, change.status, options.now());
      return resource(updated);
    },
    startRun,
    runDue: async () => {
      const [{ runClaimedCheck }, { runDueOnce }] = await Promise.all([checkRunner(), import('../../engine/scheduler/scheduler.js')]);
      const context = await checkContext();
      return runDueOnce({ db: await openDb(), checks: context.checks, now: options.now, team, privateTargetsAllowed: () => !context.scrape.publicAddressesOnly, run: async (claim) => countCheck(await runClaimedCheck(context, claim)) });
    },
    deliverNotifications,
    reread: async (check) => (await (await checksOf()).get(check.monitorId, check.id)) ?? check,
    startScheduled: async (claim: ClaimedCheck) => countCheck(await (await checkRunner()).runClaimedCheck(await checkContext(), claim)),
    queueRun: async (idOrName, context) => (await checksOf()).enqueue(await runnable(idOrName), options.now(), context),
    runQueuedCheck: async (checkId, monitorId) => {
      const monitor = await (await openMonitors()).find(team, monitorId);
      if (!monitor || monitor.status === 'deleted') {
        await (await checksOf()).abandon(checkId, 'the monitor was deleted before its check ran', options.now());
        return undefined;
      }
      return countCheck(await (await checkRunner()).runClaimedCheck(await checkContext(), { monitor, checkId, slot: '' }));
    },
    listChecks: async (idOrName) => (await checksOf()).list((await existing(idOrName)).id),
    getCheck: async (idOrName, checkId, status) => {
      const monitor = await existing(idOrName);
      const checks = await checksOf();
      const check = await checkOf(checks, monitor, checkId);
      // A kept screenshot as the file URL of this machine (serve turns it into a URL of its own).
      const kept = join(artifactsDir(options.env, team), KEPT_DIR);
      const pages = (await checks.pages(check.id, status)).map((page) => (page.screenshot ? { ...page, screenshot: pathToFileURL(join(kept, page.screenshot)).href } : page));
      return { ...check, pages, deliveries: await outboxStore(await openDb()).deliveries(check.id) };
    },
    deleteMonitor: async (id) => resource(await (await openMonitors()).setStatus(team, (await alive(id)).id, 'deleted', options.now())),
    checkReport: async (idOrName, checkId) => {
      const monitor = await existing(idOrName);
      const checks = await checksOf();
      const check = await checkOf(checks, monitor, checkId);
      const { checkReportHtml } = await import('../../engine/report/check-report.js');
      const keptDir = join(artifactsDir(options.env, team), KEPT_DIR);
      return { check, html: await checkReportHtml({ checks, keptDir, version: options.version, now: options.now }, monitor, check) };
    },
    agents,
    crawlParamsPreview: async (url, prompt, signal) => {
      if (!previewLlm) {
        const { modelNotConfigured } = await import('../../engine/extract/needs.js');
        throw modelNotConfigured(['the crawl params preview']);
      }
      const [{ chatModel }, { previewCrawlParams }] = await Promise.all([import('../../engine/llm/chat.js'), import('../../engine/crawl/params-preview.js')]);
      return previewCrawlParams(await (previewModel ??= chatModel(previewLlm)), url, prompt, signal);
    },
    stopAgents: async () => {
      await agentJobs?.stopAll();
    },
    close: async () => {
      // Agent runs of this process end before the database closes.
      if (agentJobs) await Promise.allSettled(agentJobs.running());
      if (!options.db) await (await db?.catch(() => undefined))?.close();
      db = undefined;
    },
  };
}

/**
 * The off-loop converter, its module loaded with the first page (the process's one pool of
 * conversion processes). WEBWATCH_CONVERSION_MEMORY_MB sets each process's heap; a bad value
 * fails the pages it concerns, saying so.
 */
function offLoopConverter(env: Env): PageConverter {
  let converter: Promise<PageConverter> | undefined;
  const load = async () => {
    const { offLoopConversion, offLoopPool } = await import('../../engine/scrape/off-loop.js');
    const memoryMb = conversionMemoryMb(env);
    return offLoopConversion(() => offLoopPool(memoryMb));
  };
  return async (...page) => (await (converter ??= load()))(...page);
}

function conversionMemoryMb(env: Env): number | undefined {
  const value = env.WEBWATCH_CONVERSION_MEMORY_MB;
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 16 || Number(value) > 65_536) {
    throw new UsageError(`WEBWATCH_CONVERSION_MEMORY_MB must be a whole number of megabytes from 16 to 65536, not ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** WEBWATCH_CONVERSION_THREADS: the worker threads of large checks, where the cores the system reports are not the ones webwatch may use (a container's CPU quota). */
function withConversionThreads(env: Env): { conversionThreads?: number } {
  const value = env.WEBWATCH_CONVERSION_THREADS;
  if (value === undefined || value === '') return {};
  if (!/^\d+$/.test(value) || Number(value) > 16) {
    throw new UsageError(`WEBWATCH_CONVERSION_THREADS must be a whole number from 0 to 16, not ${JSON.stringify(value)}`);
  }
  return { conversionThreads: Number(value) };
}
