/**
 * webwatch's configuration: the user's file ($XDG_CONFIG_HOME/webwatch/config.yaml) under the
 * project's (found by cosmiconfig from the working directory up: .webwatchrc[.yaml|.json],
 * webwatch.config.*, package.json#webwatch). Checked with zod; errors name the file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { cosmiconfig } from 'cosmiconfig';
import { z } from 'zod';
import { UsageError } from '../errors/webwatch-error.js';
import { closedObject, domainName, topLevelDomain } from '../spec/fields.js';
import { describeIssue, formatPath } from '../spec/issues.js';
import { RISK_SCORE_MAX, RISK_SCORE_MIN, THREAT_LIST_MAX } from '../spec/limits.js';
import { NO_THREAT_POLICY, type OrganizationThreatPolicy } from '../engine/threat/threat-protection.js';

const MODULE = 'webwatch';

// Built on first use: most commands find no configuration file, and building it costs more
// than the rest of loading the configuration.
const configSchema = () => (builtConfigSchema ??= buildConfigSchema());
let builtConfigSchema: ReturnType<typeof buildConfigSchema> | undefined;

const buildConfigSchema = () => closedObject({
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
    concurrencyPerKey: z.number().int().min(1).optional(),
    /** Queued crawls, batches, agent jobs and manual checks one serve process runs at once. */
    jobConcurrency: z.number().int().min(1).optional(),
    drainTimeoutSeconds: z.number().min(0).optional(),
    monthlyCredits: z.number().int().min(1).optional(),
    monthlyTokens: z.number().int().min(1).optional(),
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
  search: z.discriminatedUnion('provider', [
    closedObject({ provider: z.literal('searxng'), baseUrl: z.url({ protocol: /^https?$/ }) }),
    closedObject({ provider: z.literal('v2'), apiUrl: z.url({ protocol: /^https?$/ }) }),
  ]).optional(),
  /** Page notifications only for changes judged meaningful. */
  onlyMeaningfulChanges: z.boolean().optional(),
  /** The browser of pages that need one: which Chromium, and whether script-drawn pages get it unasked. */
  browser: closedObject({
    executablePath: z.string().min(1).optional(),
    autoRender: z.boolean().optional(),
  }).optional(),
  /** How long `monitor run` keeps retrying notifications before leaving them in the outbox. */
  deliveryWaitSeconds: z.number().min(0).max(3600).optional(),
  /**
   * The database of serve, keys and db commands: a postgres:// address shared by several serve
   * processes (also WEBWATCH_DATABASE_URL, serve --database); the embedded SQLite file without it.
   */
  database: closedObject({
    url: z.string().regex(/^(postgres(ql)?:\/\/|sqlite:)/i, 'must be a postgres:// address or sqlite:PATH').optional(),
  }).optional(),
  /** The scheduler of `webwatch serve`. */
  scheduler: closedObject({
    maxConcurrent: z.number().int().min(1).optional(),
    jitterSeconds: z.number().min(0).max(3600).optional(),
  }).optional(),
});

export type ConfigFile = z.infer<ReturnType<typeof buildConfigSchema>>;

export interface Config {
  threatPolicy: OrganizationThreatPolicy;
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
  /** The files read, user's first. */
  files: string[];
}

export function userConfigPath(env: Readonly<Record<string, string | undefined>>): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME ?? homedir(), '.config');
  return join(base, MODULE, 'config.yaml');
}

/** Fields whose values are secrets (webhookSecret, a password, an API key or token). */
const SECRET_FIELD = /key|secret|passw|token|credential/i;
/** An address with a user name or password in it, like smtps://user:password@host. */
const ADDRESS_WITH_CREDENTIALS = /:\/\/[^/\s]*@/;

/** Whether an issue's value may be a secret, and so must not be quoted in the error. */
function mayBeSecret(issue: z.core.$ZodIssue): boolean {
  if (issue.path.some((segment) => typeof segment === 'string' && SECRET_FIELD.test(segment))) return true;
  return typeof issue.input === 'string' && ADDRESS_WITH_CREDENTIALS.test(issue.input);
}

function checked(file: string, value: unknown): ConfigFile {
  const result = configSchema().safeParse(value ?? {}, { reportInput: true });
  if (result.success) return result.data;
  const lines = result.error.issues
    .flatMap((issue) => describeIssue(issue, { concealInput: mayBeSecret(issue) }))
    .map((p) => `${file}: ${formatPath(p.path)}: ${p.message}`);
  throw new UsageError(`invalid configuration:\n${lines.join('\n')}`, { details: lines });
}

/** `line:column` of a character offset in a file, if the file can be read. */
function lineAndColumn(file: string, offset: number): string | undefined {
  try {
    const before = readFileSync(file, 'utf8').slice(0, offset).split('\n');
    return `${before.length}:${before[before.length - 1]!.length + 1}`;
  } catch {
    return undefined;
  }
}

/**
 * Why a configuration file could not be read, in one line. The YAML and JSON parsers quote the
 * lines around a syntax error, and such a line may hold a secret: only the position is kept.
 */
function unreadable(error: unknown): string {
  const failure = error as { name?: string; filepath?: string; reason?: string; mark?: { line: number; column: number }; message?: string };
  const file = failure.filepath ?? 'the configuration';
  if (failure.name === 'YAMLException') {
    const at = failure.mark ? `:${failure.mark.line + 1}:${failure.mark.column + 1}` : '';
    return `${file}${at}: invalid YAML${failure.reason ? `: ${failure.reason}` : ''}`;
  }
  if (failure.name === 'JSONError') {
    const offset = /at position (\d+)/.exec(failure.message ?? '')?.[1];
    const at = offset === undefined ? undefined : lineAndColumn(file, Number(offset));
    return `${file}${at ? `:${at}` : ''}: invalid JSON`;
  }
  const reason = (failure.message ?? String(error)).split('\n')[0] ?? '';
  return failure.filepath ? `${failure.filepath}: ${reason}` : reason;
}

interface Layer {
  file: string;
  config: ConfigFile;
}

async function readLayer(load: () => Promise<{ config: unknown; filepath: string } | null>): Promise<Layer | undefined> {
  let found: { config: unknown; filepath: string } | null;
  try {
    found = await load();
  } catch (error) {
    throw new UsageError(`cannot read the configuration: ${unreadable(error)}`);
  }
  return found ? { file: found.filepath, config: checked(found.filepath, found.config) } : undefined;
}

export async function loadConfig(env: Readonly<Record<string, string | undefined>>, cwd: string): Promise<Config> {
  const explorer = cosmiconfig(MODULE, { searchStrategy: 'global', stopDir: env.HOME ?? homedir() });
  const userFile = userConfigPath(env);
  const user = existsSync(userFile) ? await readLayer(() => explorer.load(userFile)) : undefined;
  const found = await readLayer(() => explorer.search(cwd));
  // The search may end at the user's own file; it then counts once.
  const project = found && found.file !== user?.file ? found : undefined;
  const layers = [user, project].filter((layer): layer is Layer => layer !== undefined);
  return {
    threatPolicy: { ...NO_THREAT_POLICY, ...Object.assign({}, ...layers.map((layer) => layer.config.threatProtection ?? {})) },
    ...Object.assign({}, ...layers.map((layer) => (layer.config.apiUrl ? { apiUrl: layer.config.apiUrl } : {}))),
    serve: Object.assign({}, ...layers.map((layer) => layer.config.serve ?? {})),
    scheduler: Object.assign({}, ...layers.map((layer) => layer.config.scheduler ?? {})),
    database: Object.assign({}, ...layers.map((layer) => layer.config.database ?? {})),
    smtp: Object.assign({}, ...layers.map((layer) => layer.config.smtp ?? {})),
    browser: Object.assign({}, ...layers.map((layer) => layer.config.browser ?? {})),
    ...Object.assign({}, ...layers.map((layer) => ({
      ...(layer.config.webhookSecret !== undefined && { webhookSecret: layer.config.webhookSecret }),
      ...(layer.config.deliveryWaitSeconds !== undefined && { deliveryWaitSeconds: layer.config.deliveryWaitSeconds }),
      ...(layer.config.llm !== undefined && { llm: layer.config.llm }),
      ...(layer.config.search !== undefined && { search: layer.config.search }),
      ...(layer.config.onlyMeaningfulChanges !== undefined && { onlyMeaningfulChanges: layer.config.onlyMeaningfulChanges }),
    }))),
    files: layers.map((layer) => layer.file),
  };
}

/**
 * The SMTP server and sender, environment first; undefined without a server. Without a sender,
 * mail goes from webwatch@<this host's name>, as cron and most mailers do.
 */
function smtpSettings(config: Config, env: Readonly<Record<string, string | undefined>>): { url: string; from: string } | undefined {
  const url = env.WEBWATCH_SMTP_URL || config.smtp.url;
  const from = env.WEBWATCH_SMTP_FROM || config.smtp.from || `webwatch@${hostname()}`;
  return url ? { url, from } : undefined;
}

/** The judge's model, with its key from the environment; undefined without a configured model. */
function llmSettings(config: Config, env: Readonly<Record<string, string | undefined>>): { baseUrl: string; model: string; apiKey?: string } | undefined {
  if (!config.llm) return undefined;
  const apiKey = env.WEBWATCH_LLM_API_KEY;
  return { ...config.llm, ...(apiKey && { apiKey }) };
}

export type SearchSettings = ({ provider: 'searxng'; baseUrl: string } | { provider: 'v2'; apiUrl: string }) & { apiKey?: string };

/** The search provider's settings, with the v2 key from the environment. */
function searchSettings(config: Config, env: Readonly<Record<string, string | undefined>>): SearchSettings | undefined {
  if (!config.search) return undefined;
  const apiKey = env.WEBWATCH_SEARCH_API_KEY;
  return { ...config.search, ...(apiKey && { apiKey }) };
}

/** What checks use beyond fetching, each present only when configured: for the local engine and `serve`. */
export interface CheckServices {
  webhookSecret?: string;
  smtp?: { url: string; from: string };
  llm?: { baseUrl: string; model: string; apiKey?: string; timeoutMs?: number };
  search?: SearchSettings;
  onlyMeaningfulChanges?: boolean;
  browser?: BrowserSettings;
}

/** Which Chromium (else WEBWATCH_CHROMIUM, else the usual paths) and whether script-drawn pages get it unasked (default yes). */
export interface BrowserSettings {
  executablePath?: string;
  autoRender?: boolean;
}

export function checkServices(config: Config, env: Readonly<Record<string, string | undefined>>): CheckServices {
  const webhookSecret = env.WEBWATCH_WEBHOOK_SECRET || config.webhookSecret;
  const smtp = smtpSettings(config, env);
  const llm = llmSettings(config, env);
  const search = searchSettings(config, env);
  return {
    ...(webhookSecret && { webhookSecret }),
    ...(smtp && { smtp }),
    ...(llm && { llm }),
    ...(search && { search }),
    ...(config.onlyMeaningfulChanges && { onlyMeaningfulChanges: true }),
    ...(Object.keys(config.browser).length > 0 && { browser: config.browser }),
  };
}
