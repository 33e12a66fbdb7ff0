/**
 * webwatch's configuration: the user's file ($XDG_CONFIG_HOME/webwatch/config.yaml) under the
 * project's (found by cosmiconfig from the working directory up to the home directory; the names
 * are in PROJECT_FILES). Checked with zod; errors name the file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { createRequire } from 'node:module';
import { basename, extname, join } from 'node:path';
import type { CosmiconfigResult, LoaderSync } from 'cosmiconfig';
import { z } from 'zod';
import { UsageError } from '../errors/webwatch-error.js';
import { closedObject, domainName, topLevelDomain } from '../spec/fields.js';
import { describeIssue, formatPath, SECRET_NAME } from '../spec/issues.js';
import { RISK_SCORE_MAX, RISK_SCORE_MIN, THREAT_LIST_MAX } from '../spec/limits.js';
import type { Env } from '../lib/env.js';

const MODULE = 'webwatch';

// Built on first use: most commands find no configuration file, and building it costs more
// than the rest of loading the configuration.
const configSchema = () => (builtConfigSchema ??= buildConfigSchema());
let builtConfigSchema: ReturnType<typeof buildConfigSchema> | undefined;

/** The top-level keys of a configuration file (docs/configuration.md lists each). */
export const configKeys = (): string[] => Object.keys(configSchema().shape);

const buildConfigSchema = () =>
  closedObject({
    /** The organisation policy of threat protection, for the local engine and `serve`. */
    threatProtection: closedObject({
      enabled: z.boolean().optional(),
      allowOverrides: z.boolean().optional(),
      enforced: z.boolean().optional(),
      mode: z.enum(['off', 'normal']).optional(),
      blacklist: z.array(domainName(true)).max(THREAT_LIST_MAX).optional(),
      whitelist: z.array(domainName(true)).max(THREAT_LIST_MAX).optional(),
      blockedTlds: z.array(topLevelDomain()).max(THREAT_LIST_MAX).optional(),
      failurePolicy: z.enum(['open', 'closed']).optional(),
      riskScoreThreshold: z.number().int().min(RISK_SCORE_MIN).max(RISK_SCORE_MAX).optional(),
    }).optional(),
    /** The remote v2 API to act on instead of the local engine (ends in /v2). */
    apiUrl: z.url({ protocol: /^https?$/ }).optional(),
    /** Settings of `webwatch serve`; flags override them. */
    serve: closedObject({
      host: z.string().min(1).optional(),
      port: z.number().int().min(0).max(65535).optional(),
      allowPrivateTargets: z.boolean().optional(),
      bodyLimit: z.number().int().min(1024).optional(),
      rateLimitPerMinute: z.number().int().min(1).optional(),
      /** Page scrapes each team runs at once; the pages of its crawls and batches queue for them. */
      concurrencyPerTeam: z.number().int().min(1).optional(),
      /** Pages of one host a crawl fetches at once (politeness); by default as many as the team's slots. */
      perHostConcurrency: z.number().int().min(1).optional(),
      /** Queued crawls, batches, agent jobs and manual checks one serve process runs at once. */
      jobConcurrency: z.number().int().min(1).optional(),
      drainTimeoutSeconds: z.number().min(0).optional(),
      maxConnections: z.number().int().min(1).optional(),
      /** Connections of one client address at once; 0 for no cap (behind a reverse proxy). */
      maxConnectionsPerAddress: z.number().int().min(0).optional(),
      requestTimeoutSeconds: z.number().min(1).optional(),
      keepAliveTimeoutSeconds: z.number().min(1).optional(),
      monthlyCredits: z.number().int().min(1).optional(),
      monthlyTokens: z.number().int().min(1).optional(),
      /** Teams whose zeroDataRetention requests pay no surcharge (otherwise +1 credit a page). */
      zeroDataRetentionSurchargeWaived: z.array(z.string().min(1)).optional(),
    }).optional(),
    /** The HMAC key that signs webhook deliveries (X-Webwatch-Signature); also WEBWATCH_WEBHOOK_SECRET. */
    webhookSecret: z.string().min(1).optional(),
    /** The SMTP server of e-mail summaries (also WEBWATCH_SMTP_URL, WEBWATCH_SMTP_FROM). */
    smtp: closedObject({
      url: z.url({ protocol: /^smtps?$/ }).optional(),
      from: z.string().min(3).optional(),
    }).optional(),
    /** The model that judges changes against goals: an OpenAI-compatible server (key: WEBWATCH_LLM_API_KEY). */
    llm: closedObject({
      baseUrl: z.url({ protocol: /^https?$/ }),
      model: z.string().min(1),
    }).optional(),
    /** Where search targets' queries go: a SearXNG server, or a v2 API (key: WEBWATCH_SEARCH_API_KEY). */
    search: z
      .discriminatedUnion('provider', [
        closedObject({ provider: z.literal('searxng'), baseUrl: z.url({ protocol: /^https?$/ }) }),
        closedObject({ provider: z.literal('v2'), apiUrl: z.url({ protocol: /^https?$/ }) }),
      ])
      .optional(),
    /** Page notifications only for changes judged meaningful. */
    onlyMeaningfulChanges: z.boolean().optional(),
    /** The browser of pages that need one: which Chromium, and whether script-drawn pages get it unasked. */
    browser: closedObject({
      executablePath: z.string().min(1).optional(),
      autoRender: z.boolean().optional(),
    }).optional(),
    /**
     * The proxies of the scrape option `proxy` (http:// or https://, with user:password@ when the
     * proxy asks for them): `basic` for basic and auto's first try, `enhanced` for enhanced and
     * auto's second; also WEBWATCH_PROXY_BASIC and WEBWATCH_PROXY_ENHANCED. Without them pages are
     * fetched directly.
     */
    proxy: closedObject({
      basic: z.url({ protocol: /^https?$/ }).optional(),
      enhanced: z.url({ protocol: /^https?$/ }).optional(),
    }).optional(),
    /** How long `monitor run` keeps retrying notifications before leaving them in the outbox. */
    deliveryWaitSeconds: z.number().min(0).max(3600).optional(),
    /**
     * The database of serve, keys and db commands: a postgres:// address shared by several serve
     * processes (also WEBWATCH_DATABASE_URL, serve --database); the embedded SQLite file without it.
     */
    database: closedObject({
      url: z
        .string()
        .regex(/^(postgres(ql)?:\/\/|sqlite:)/i, 'must be a postgres:// address or sqlite:PATH')
        .optional(),
    }).optional(),
    /** The scheduler of `webwatch serve`. */
    scheduler: closedObject({
      maxConcurrent: z.number().int().min(1).optional(),
      jitterSeconds: z.number().min(0).max(3600).optional(),
    }).optional(),
  });

export type ConfigFile = z.infer<ReturnType<typeof buildConfigSchema>>;

// The settings below are what the files say, in the files' terms: the engine defines what it is
// given (its ProxySettings, SearchSettings, OrganizationThreatPolicy), and where the two meet
// (the services, serve) the compiler checks that one fits the other.

/** The organisation's threat-protection policy, each switch the files leave unset at its default. */
export type ThreatPolicySettings = NonNullable<ConfigFile['threatProtection']> & { enabled: boolean; allowOverrides: boolean; enforced: boolean };

/** A file without `threatProtection`: off, requests may override it, not enforced. */
const THREAT_POLICY_DEFAULTS = { enabled: false, allowOverrides: true, enforced: false } as const;

/** Which search provider the files name, with the key from the environment. */
export type SearchSettings = NonNullable<ConfigFile['search']> & { apiKey?: string };

/** The proxy address of each level of the scrape option `proxy`. */
export type ProxySettings = NonNullable<ConfigFile['proxy']>;

export interface Config {
  threatPolicy: ThreatPolicySettings;
  apiUrl?: string;
  serve: NonNullable<ConfigFile['serve']>;
  scheduler: NonNullable<ConfigFile['scheduler']>;
  database: NonNullable<ConfigFile['database']>;
  webhookSecret?: string;
  deliveryWaitSeconds?: number;
  smtp: NonNullable<ConfigFile['smtp']>;
  llm?: NonNullable<ConfigFile['llm']>;
  search?: NonNullable<ConfigFile['search']>;
  onlyMeaningfulChanges?: boolean;
  browser: NonNullable<ConfigFile['browser']>;
  proxy: NonNullable<ConfigFile['proxy']>;
  /** The files read, user's first. */
  files: string[];
}

export function userConfigPath(env: Env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME ?? homedir(), '.config');
  return join(base, MODULE, 'config.yaml');
}

/** An address with a user name or password in it, like smtps://user:password@host. */
const ADDRESS_WITH_CREDENTIALS = /:\/\/[^/\s]*@/;

/** Whether an issue's value may be a secret, and so must not be quoted in the error. */
function mayBeSecret(issue: z.core.$ZodIssue): boolean {
  // A proxy address may hold a user name and password, written any way.
  if (issue.path[0] === 'proxy') return true;
  if (issue.path.some((segment) => typeof segment === 'string' && SECRET_NAME.test(segment))) return true;
  return typeof issue.input === 'string' && ADDRESS_WITH_CREDENTIALS.test(issue.input);
}

/**
 * The file's settings, checked; each problem says where it is (`file:line:column`) when the file
 * is YAML or JSON, whose text `source` gives (with the path of the settings inside it).
 */
async function checked(file: string, value: unknown, source?: { text: string; under: string[] }): Promise<ConfigFile> {
  const result = configSchema().safeParse(value ?? {}, { reportInput: true });
  if (result.success) return result.data;
  // Loaded only for a file with problems: the YAML parser is not on most commands' path.
  const locateInText = source && (await import('../lib/yaml-paths.js')).locateInText;
  const lines = result.error.issues
    .flatMap((issue) => describeIssue(issue, { concealInput: mayBeSecret(issue) }))
    .map((p) => {
      const at = locateInText?.(source!.text, [...source!.under, ...p.path], p.message.startsWith('unknown field'));
      return `${file}${at ? `:${at.line}:${at.column}` : ''}: ${formatPath(p.path)}: ${p.message}`;
    });
  throw new UsageError(`invalid configuration:\n${lines.join('\n')}`, { details: lines });
}

/**
 * The project's configuration files, in the order looked for in each directory: the names
 * cosmiconfig made usual, but for TypeScript files, which would need a compiler at run time.
 */
const RC_EXTENSIONS = ['', '.json', '.yaml', '.yml', '.js', '.cjs', '.mjs'];
const PROJECT_FILES = [
  'package.json',
  ...RC_EXTENSIONS.map((ext) => `.${MODULE}rc${ext}`),
  ...RC_EXTENSIONS.map((ext) => `.config/${MODULE}rc${ext}`),
  ...['.js', '.cjs', '.mjs'].map((ext) => `${MODULE}.config${ext}`),
];

/** A configuration file that cannot be read, said in one line that never quotes the file. */
class UnreadableConfig extends Error {}

/** `line:column` of a character offset in a text. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `${before.length}:${before[before.length - 1]!.length + 1}`;
}

/**
 * The YAML and JSON loaders keep only the position of a syntax error and the parser's reason:
 * the parsers quote the text around it, and that may hold a secret.
 */
const loadYaml = async (file: string, text: string): Promise<unknown> => {
  // Loaded when a YAML file is found: most commands find none.
  const { parse, YAMLParseError } = await import('yaml');
  try {
    return parse(text, { prettyErrors: false }) as unknown;
  } catch (error) {
    if (!(error instanceof YAMLParseError)) throw error;
    const reason = error.code === 'MULTIPLE_DOCS' ? 'more than one document' : error.message.split('\n')[0];
    throw new UnreadableConfig(`${file}:${lineAndColumn(text, error.pos[0])}: invalid YAML: ${reason}`);
  }
};

const loadJson: LoaderSync = (file, text) => {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  } catch (error) {
    // V8 quotes the text around the error: only the offset that ends some of its messages is kept.
    const offset = /at position (\d+)/.exec((error as Error).message)?.[1];
    throw new UnreadableConfig(`${file}${offset === undefined ? '' : `:${lineAndColumn(text, Number(offset))}`}: invalid JSON`);
  }
};

/**
 * A JavaScript file's default export (or module.exports), required: Node 22.12 and later require
 * ES modules too, which gives their namespace. (cosmiconfig's own loader goes through
 * import-fresh, which needs a require cache the bundled CLI does not have.)
 */
const loadScript = (file: string): unknown => {
  let loaded: unknown;
  try {
    loaded = createRequire(file)(file);
  } catch (error) {
    throw new UnreadableConfig(`${file}: ${String((error as Error).message ?? error).split('\n')[0]}`);
  }
  const namespace = loaded as { __esModule?: unknown; default?: unknown } | null;
  return typeof namespace === 'object' && namespace !== null && namespace.__esModule && 'default' in namespace ? namespace.default : loaded;
};

const LOADERS: Record<string, (file: string, text: string) => unknown> = {
  noExt: loadYaml,
  '.yaml': loadYaml,
  '.yml': loadYaml,
  '.json': loadJson,
  '.js': loadScript,
  '.cjs': loadScript,
  '.mjs': loadScript,
};

/** A file the search found, read after it by its loader. */
class Found {
  constructor(readonly text: string) {}
}

/**
 * The search's loaders: package.json is parsed there, to see whether it has settings; every other
 * file is only kept, and read after the search by LOADERS, which may load a parser or import a
 * module. The search is cosmiconfig's synchronous one: its asynchronous one probes each of
 * PROJECT_FILES with a promise of its own, 2 ms a directory against 0.1 ms.
 */
const SEARCH_LOADERS = Object.fromEntries(
  Object.keys(LOADERS).map((ext) => [ext, ext === '.json' ? loadJson : (_file: string, text: string) => new Found(text)]),
) as Record<string, LoaderSync>;

/** Why a configuration file could not be read, in one line. */
function unreadable(error: unknown, file?: string): string {
  if (error instanceof UnreadableConfig) return error.message;
  const reason = String((error as Error).message ?? error).split('\n')[0] ?? '';
  return file ? `${file}: ${reason}` : reason;
}

interface Layer {
  file: string;
  config: ConfigFile;
}

async function readLayer(find: () => CosmiconfigResult, file?: string): Promise<Layer | undefined> {
  let found: { config: unknown; filepath: string } | null = null;
  let source: { text: string; under: string[] } | undefined;
  try {
    found = find();
    if (found?.config instanceof Found) {
      const { text } = found.config;
      const extension = extname(found.filepath);
      if (!['.js', '.cjs', '.mjs'].includes(extension)) source = { text, under: [] };
      found = { ...found, config: await LOADERS[extension || 'noExt']!(found.filepath, text) };
    } else if (found && extname(found.filepath) === '.json') {
      // Parsed by the search already (package.json, to see whether it holds settings).
      source = { text: readFileSync(found.filepath, 'utf8'), under: basename(found.filepath) === 'package.json' ? [MODULE] : [] };
    }
  } catch (error) {
    throw new UsageError(`cannot read the configuration: ${unreadable(error, file ?? (error as { filepath?: string }).filepath ?? found?.filepath)}`);
  }
  return found ? { file: found.filepath, config: await checked(found.filepath, found.config, source) } : undefined;
}

/**
 * cosmiconfig first reads its own meta configuration in the process's working directory (the
 * `cosmiconfig` key of package.json, or .config/config.json, .yaml, .js...) with its own parsers,
 * whose errors quote the text around the error. Such a file is read again with webwatch's loader,
 * which says where the error is without quoting it.
 */
async function unreadableMetaConfiguration(error: unknown): Promise<string> {
  const file = (error as { filepath?: unknown }).filepath;
  if (typeof file !== 'string') return unreadable(error);
  const loader = LOADERS[extname(file) || 'noExt'];
  try {
    if (loader && loader !== loadScript) await loader(file, readFileSync(file, 'utf8'));
  } catch (reread) {
    return unreadable(reread, file);
  }
  // Read fine by webwatch's loader, or a script: only the parser's first line, naming the file.
  return `${file}: ${String((error as Error).message ?? error)
    .split('\n')[0]
    ?.replace(/^(JSON|YAML) Error in .*:$/, 'cannot be read')}`;
}

/**
 * After the directories up to the home directory, cosmiconfig's search looks in its global
 * directory ($XDG_CONFIG_HOME/webwatch, as it reads the process's environment) for `config` and
 * `config.*`. That file is the user's layer, read on its own under the project's (from the
 * environment webwatch was given), so the search's answer counts only when it is a project file,
 * none of which is named `config`.
 */
const isProjectFile = (result: CosmiconfigResult) => result !== null && !/^config(\.[a-z]+)?$/.test(basename(result.filepath));

export async function loadConfig(env: Env, cwd: string): Promise<Config> {
  // Loaded here, not with the module: only commands with a backend, serve and keys read settings.
  const { cosmiconfigSync } = await import('cosmiconfig');
  let explorer: ReturnType<typeof cosmiconfigSync>;
  try {
    explorer = cosmiconfigSync(MODULE, {
      searchPlaces: PROJECT_FILES,
      loaders: SEARCH_LOADERS,
      searchStrategy: 'global',
      stopDir: env.HOME ?? homedir(),
      cache: false,
    });
  } catch (error) {
    throw new UsageError(`cannot read the configuration: ${await unreadableMetaConfiguration(error)}`);
  }
  const userFile = userConfigPath(env);
  const user = existsSync(userFile) ? await readLayer(() => explorer.load(userFile), userFile) : undefined;
  const project = await readLayer(() => {
    const result = explorer.search(cwd);
    return isProjectFile(result) ? result : null;
  });
  const layers = [user, project].filter((layer): layer is Layer => layer !== undefined);
  return {
    threatPolicy: { ...THREAT_POLICY_DEFAULTS, ...Object.assign({}, ...layers.map((layer) => layer.config.threatProtection ?? {})) },
    ...Object.assign({}, ...layers.map((layer) => (layer.config.apiUrl ? { apiUrl: layer.config.apiUrl } : {}))),
    serve: Object.assign({}, ...layers.map((layer) => layer.config.serve ?? {})),
    scheduler: Object.assign({}, ...layers.map((layer) => layer.config.scheduler ?? {})),
    database: Object.assign({}, ...layers.map((layer) => layer.config.database ?? {})),
    smtp: Object.assign({}, ...layers.map((layer) => layer.config.smtp ?? {})),
    browser: Object.assign({}, ...layers.map((layer) => layer.config.browser ?? {})),
    proxy: Object.assign({}, ...layers.map((layer) => layer.config.proxy ?? {})),
    ...Object.assign(
      {},
      ...layers.map((layer) => ({
        ...(layer.config.webhookSecret !== undefined && { webhookSecret: layer.config.webhookSecret }),
        ...(layer.config.deliveryWaitSeconds !== undefined && { deliveryWaitSeconds: layer.config.deliveryWaitSeconds }),
        ...(layer.config.llm !== undefined && { llm: layer.config.llm }),
        ...(layer.config.search !== undefined && { search: layer.config.search }),
        ...(layer.config.onlyMeaningfulChanges !== undefined && { onlyMeaningfulChanges: layer.config.onlyMeaningfulChanges }),
      })),
    ),
    files: layers.map((layer) => layer.file),
  };
}

/**
 * The SMTP server and sender, environment first; undefined without a server. Without a sender,
 * mail goes from webwatch@<this host's name>, as cron and most mailers do.
 */
function smtpSettings(config: Config, env: Env): { url: string; from: string } | undefined {
  const url = env.WEBWATCH_SMTP_URL || config.smtp.url;
  const from = env.WEBWATCH_SMTP_FROM || config.smtp.from || `webwatch@${hostname()}`;
  return url ? { url, from } : undefined;
}

/** The judge's model, with its key from the environment; undefined without a configured model. */
function llmSettings(config: Config, env: Env): { baseUrl: string; model: string; apiKey?: string } | undefined {
  if (!config.llm) return undefined;
  const apiKey = env.WEBWATCH_LLM_API_KEY;
  return { ...config.llm, ...(apiKey && { apiKey }) };
}

/** The search provider's settings, with the v2 key from the environment. */
function searchSettings(config: Config, env: Env): SearchSettings | undefined {
  if (!config.search) return undefined;
  const apiKey = env.WEBWATCH_SEARCH_API_KEY;
  return { ...config.search, ...(apiKey && { apiKey }) };
}

/** The variables of the proxies, by level: they win over the files' `proxy.basic` and `proxy.enhanced`. */
const PROXY_VARIABLES = { basic: 'WEBWATCH_PROXY_BASIC', enhanced: 'WEBWATCH_PROXY_ENHANCED' } as const;

/**
 * The proxies of each level, the environment first; undefined without any. A bad variable is an
 * error that names it, never quoting its value (it may hold a password).
 */
function proxySettings(config: Config, env: Env): ProxySettings | undefined {
  const proxies: ProxySettings = {};
  for (const level of ['basic', 'enhanced'] as const) {
    const variable = PROXY_VARIABLES[level];
    const value = env[variable] || config.proxy[level];
    if (!value) continue;
    if (value === env[variable]) {
      let url: URL | undefined;
      try {
        url = new URL(value);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
        throw new UsageError(
          `${variable} must be the address of an HTTP proxy, http://host:port or https://host:port (with user:password@ before the host when the proxy asks for them)`,
        );
      }
    }
    proxies[level] = value;
  }
  return Object.keys(proxies).length > 0 ? proxies : undefined;
}

/** What checks use beyond fetching, each present only when configured: for the local engine and `serve`. */
export interface CheckServices {
  webhookSecret?: string;
  smtp?: { url: string; from: string };
  llm?: { baseUrl: string; model: string; apiKey?: string; timeoutMs?: number };
  search?: SearchSettings;
  onlyMeaningfulChanges?: boolean;
  browser?: BrowserSettings;
  /** The proxies of the scrape option `proxy`. */
  proxies?: ProxySettings;
}

/** Which Chromium (else WEBWATCH_CHROMIUM, else the usual paths) and whether script-drawn pages get it unasked (default yes). */
export interface BrowserSettings {
  executablePath?: string;
  autoRender?: boolean;
}

export function checkServices(config: Config, env: Env): CheckServices {
  const webhookSecret = env.WEBWATCH_WEBHOOK_SECRET || config.webhookSecret;
  const smtp = smtpSettings(config, env);
  const llm = llmSettings(config, env);
  const search = searchSettings(config, env);
  const proxies = proxySettings(config, env);
  return {
    ...(webhookSecret && { webhookSecret }),
    ...(smtp && { smtp }),
    ...(llm && { llm }),
    ...(search && { search }),
    ...(config.onlyMeaningfulChanges && { onlyMeaningfulChanges: true }),
    ...(Object.keys(config.browser).length > 0 && { browser: config.browser }),
    ...(proxies && { proxies }),
  };
}
