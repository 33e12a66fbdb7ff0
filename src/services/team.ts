/**
 * What every service of one team shares: its database (opened on first use), its usage ledger,
 * the model settings of each kind of work, and the context of its scrapes (cache, network rule,
 * browser, proxies). serve keeps one per team and key; the command line's backend uses the
 * `local` team's. The services beside this module take one and do the work of their resource.
 */
import type { BrowserSettings, ProxySettings, SearchSettings } from '../config/config.js';
import { join } from 'node:path';
import { artifactsDir } from '../engine/browser/artifacts.js';
import { profilesDir } from '../engine/browser/profiles.js';
import type { OrganizationThreatPolicy } from '../engine/threat/threat-protection.js';
import type { PageConverter } from '../engine/scrape/convert-pool.js';
import type { ScrapeContext } from '../engine/scrape/scrape.js';
import { searchProvider } from '../engine/search/providers.js';
import { databasePath, engineHome, openDatabase, type Db } from '../engine/store/database.js';
import { scrapeStore } from '../engine/store/scrape-cache.js';
import { usageStore, type UsageKind } from '../engine/usage/usage-store.js';
import { UsageError } from '../errors/webwatch-error.js';
import type { Env } from '../lib/env.js';
import { zeroDataRetentionSurcharge } from '../spec/credits.js';
import type { CodePolicy } from '../engine/interact/interact.js';
import type { InteractOrigin } from '../contract/interact.js';
import type { InteractSessions } from '../engine/interact/sessions.js';

/** The embedded engine has one team; `serve` gives each key's team its own. */
export const LOCAL_TEAM = 'local';

/**
 * How long `monitor run` waits for retries of its notifications: none by default. Each delivery
 * due is attempted once (within its 10 s); one that fails stays in the outbox, which the
 * scheduler or the next `monitor run --due` retries, so the command is not held for them.
 */
export const DELIVERY_WAIT_DEFAULT_SECONDS = 0;

/** The settings of the model that judges changes, writes the model formats and runs agents. */
export interface ModelSettings {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
}

export interface TeamOptions {
  version: string;
  threatPolicy?: OrganizationThreatPolicy;
  env: Env;
  now(): Date;
  /** Whose monitors these are: `serve` gives each key's team its own. */
  team?: string;
  /** The key of serve these services work for: what they spend is counted under it in the usage ledger. */
  keyId?: string;
  /** An open database to share (serve); otherwise opened on first use and closed with the services. */
  db?: Db;
  /** Judges every URL fetched, redirects included; throws to refuse one (serve's private-network rule). */
  checkUrl?: (url: URL) => void | Promise<void>;
  /** Sockets connect only to public addresses, whatever a name resolves to later (serve). */
  publicAddressesOnly?: boolean;
  /** Signing key of webhooks, and how long `run` keeps delivering before leaving the rest in the outbox. */
  notifications?: { secret?: string; waitSeconds: number; smtp?: { url: string; from: string }; onlyMeaningful?: boolean };
  /** The model that judges changes (the lexical judge without one) and writes the model formats. */
  llm?: ModelSettings;
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
  /** How interact runs (serve's sessions, its code policy, its live view); the command line's saved states without it. */
  interact?: InteractHost;
}

/** How a team's interact runs (services/interact.ts). */
export interface InteractHost {
  policy: CodePolicy;
  /** serve: the process's sessions, kept open between calls. Without them, the command line's saved states. */
  sessions?: InteractSessions;
  /** Where the team's scrape was (serve's stored documents); the command line gives it with each call. */
  origin?(scrapeId: string): Promise<InteractOrigin | undefined>;
  /** Where the command line keeps its sessions' states (the engine's home, per team). */
  statesDir?: string;
}

/** Where the command line keeps its interact sessions' states, per team. */
export const interactStatesDir = (env: Env, team: string) => join(engineHome(env), 'interact', team);

/** What a scrape or crawl request says of keeping its pages: `zeroDataRetention`, the hosted API's field beside the scrape options. */
export interface Retention {
  zeroDataRetention?: boolean | undefined;
}

export interface Team {
  readonly name: string;
  readonly options: TeamOptions;
  now(): Date;
  /** The database, opened on first use: a command that fails validation never creates it. */
  db(): Promise<Db>;
  /** Books credits and model tokens of one kind of work in the team's usage ledger, under its key. */
  spent(kind: UsageKind, credits: number, tokens?: number): Promise<void>;
  /**
   * The configured model, its tokens booked under `kind`; one settings object per kind for the
   * team's life, so that the model formats keep one client each. Undefined without a model.
   */
  model(kind: UsageKind): (ModelSettings & { onTokens(tokens: number): void }) | undefined;
  /** The search provider of search targets and the search route, if one is configured. */
  readonly searchProvider: ReturnType<typeof searchProvider> | undefined;
  /** What a scrape of this team runs with. */
  scrapeContext(signal?: AbortSignal, retention?: Retention): Promise<ScrapeContext>;
  /** Closes the database unless it was given. */
  close(): Promise<void>;
}

export function team(options: TeamOptions): Team {
  const name = options.team ?? LOCAL_TEAM;
  let db: Promise<Db> | undefined = options.db && Promise.resolve(options.db);
  // The command line's engine is always the embedded SQLite file.
  const openDb = () => (db ??= openDatabase(databasePath(options.env)));
  const spent = async (kind: UsageKind, credits: number, tokens = 0) =>
    usageStore(await openDb()).record(name, { kind, credits, tokens, keyId: options.keyId }, options.now());
  const models = new Map<UsageKind, ModelSettings & { onTokens(tokens: number): void }>();
  const model = (kind: UsageKind) => {
    if (!options.llm) return undefined;
    let settings = models.get(kind);
    if (!settings) {
      settings = { ...options.llm, onTokens: (tokens: number) => void spent(kind, 0, tokens).catch(() => undefined) };
      models.set(kind, settings);
    }
    return settings;
  };
  // The same for every scrape of this team: worked out once, not per request.
  const browser = { env: options.env, ...options.browser, artifactsDir: artifactsDir(options.env, name), profilesDir: profilesDir(options.env, name) };
  const surcharge = zeroDataRetentionSurcharge(options.zeroDataRetentionSurchargeWaived === true);
  const convert = options.convertOffLoop ? offLoopConverter(options.env) : undefined;
  const extractModel = model('extract');
  return {
    name,
    options,
    now: options.now,
    db: openDb,
    spent,
    model,
    searchProvider: options.search && searchProvider(options.search),
    scrapeContext: async (signal, retention) => ({
      version: options.version,
      ...(extractModel && { llm: extractModel }),
      now: options.now,
      store: scrapeStore(await openDb(), name),
      ...(options.threatPolicy && { threatPolicy: options.threatPolicy }),
      ...(signal && { signal }),
      ...(options.checkUrl && { checkUrl: options.checkUrl }),
      ...(options.publicAddressesOnly && { publicAddressesOnly: true }),
      ...(options.proxies && { proxies: options.proxies }),
      ...(retention?.zeroDataRetention && { zeroDataRetention: { surcharge } }),
      ...(convert && { convert }),
      browser,
    }),
    close: async () => {
      if (!options.db) await (await db?.catch(() => undefined))?.close();
      db = undefined;
    },
  };
}

/** Loads a module on first use, once: asking again costs the loader's look-up on every request. */
export const once = <T>(load: () => Promise<T>) => {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
};

/**
 * The off-loop converter, its module loaded with the first page (the process's one pool of
 * conversion processes). WEBWATCH_CONVERSION_MEMORY_MB sets each process's heap; a bad value
 * fails the pages it concerns, saying so.
 */
function offLoopConverter(env: Env): PageConverter {
  let converter: Promise<PageConverter> | undefined;
  const load = async () => {
    const { offLoopConversion, offLoopPool } = await import('../engine/scrape/off-loop.js');
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
