/**
 * HTTP client of a v2 API: bearer auth, JSON bodies, the retry pattern of spec §7.5 and the
 * error bodies of §7.1 turned into WebwatchErrors (and so into the exit codes of DESIGN §3).
 * Sleeping and randomness are injectable, so retry timing is tested without waiting.
 */
import { Agent, type FormData as UndiciFormData, errors as undiciErrors, request, type Dispatcher } from 'undici';
import { apiUrlOf } from '../../config/api-url.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { EXIT } from '../../errors/exit-codes.js';
import { errorBodySchema, retryAfterSeconds, RETRYABLE_STATUSES, CODES_NOT_RETRIED } from '../../spec/errors.js';

export const RETRY = { maxAttempts: 5, capSeconds: 30 } as const;
export const TIMEOUTS = { connectMs: 10_000, headersMs: 300_000, bodyMs: 300_000 } as const;
/**
 * An API this command has not reached yet and cannot connect to (refused, no such host, no
 * route) is most likely a wrong address or a server that is not running: one short retry, then
 * the error, rather than half a minute of §7.5 backoff. Once it has answered, a lost connection
 * (a restart while following a job) gets the full backoff.
 */
export const FIRST_CONTACT = { attempts: 2, waitMs: 500 } as const;
const UNREACHED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export interface ApiClientOptions {
  /** The API's base address; `/v2` is added when it does not end with it. */
  baseUrl: string;
  apiKey: string | undefined;
  version: string;
  /** One line per request, response and retry; never the key. */
  log?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Attempts per request, the first included (spec §7.5: 5). */
  maxAttempts?: number;
  /** One line for a person before each retry: what failed, how long until the next attempt. */
  onRetry?: (line: string) => void;
}

export interface RequestOptions {
  body?: unknown;
  /** A multipart body instead of JSON (POST /v2/parse): sent whole again on a retry. */
  form?: UndiciFormData;
  query?: Record<string, string | number | boolean | undefined>;
  /** Abandons the request and its retries (Ctrl-C while following): rejects with the signal's reason. */
  signal?: AbortSignal;
  /** A document that is not JSON (a check's HTML report): asked for by this type and returned as text. */
  accept?: string;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH']);

/** The base of every request, without user name or password: it appears in logs and messages. */
export function apiBase(url: string): string {
  const trimmed = apiUrlOf(url).url;
  return /\/v2$/.test(trimmed) ? trimmed : `${trimmed}/v2`;
}

/** The wait before the next attempt: Retry-After when given, else 2^attempt s (capped) plus jitter. */
export function retryDelayMs(attempt: number, retryAfter: number | undefined, random: () => number): number {
  if (retryAfter !== undefined) return retryAfter * 1000;
  return (Math.min(2 ** attempt, RETRY.capSeconds) + random()) * 1000;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Network failures: what went wrong in words, the exit code, and whether a resend may help. */
function networkFailure(error: unknown, url: string): WebwatchError {
  const code = (error as { code?: string }).code ?? '';
  if (error instanceof undiciErrors.ConnectTimeoutError || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new WebwatchError(`cannot connect to ${url}: timed out`, { exitCode: EXIT.timeout, code: 'CONNECT_TIMEOUT' });
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new WebwatchError(`the API at ${url} stopped answering: timed out`, { exitCode: EXIT.timeout, code: 'RESPONSE_TIMEOUT' });
  }
  const reason =
    code === 'ECONNREFUSED'
      ? 'connection refused'
      : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET'
        ? 'the connection was reset'
        : code === 'ENOTFOUND'
          ? 'no such host'
          : (error as Error).message;
  return new WebwatchError(`cannot reach the API at ${url}: ${reason}`, {
    code: code || 'NETWORK_ERROR',
    suggestion: 'check --api-url (or WEBWATCH_API_URL) and the network',
  });
}

function apiError(status: number, text: string): WebwatchError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new WebwatchError(`the API answered HTTP ${status} without a JSON error body`, { status, details: { body: text.slice(0, 200) } });
  }
  const body = errorBodySchema.safeParse(parsed);
  if (!body.success) return new WebwatchError(`the API answered HTTP ${status}`, { status, details: parsed });
  const suggestion = STATUS_HINTS[status];
  return new WebwatchError(body.data.error, {
    status,
    ...(body.data.code !== undefined && { code: body.data.code }),
    ...(body.data.details !== undefined && { details: body.data.details }),
    ...(suggestion && { suggestion }),
  });
}

/** What to do about an API's answer, where its status says enough (others name their reason). */
const STATUS_HINTS: Partial<Record<number, string>> = {
  401: 'the API refused the key: webwatch auth status shows which key is used and where it comes from; webwatch login saves another',
  402: "the team's credits for this period are used up: webwatch usage shows them",
  429: "the API's rate limit for this key, or its team's concurrency limit: try again later, or run fewer at once",
};

/**
 * Retry decisions follow the error, not the status alone (spec §7.2): an unknown host stays
 * unknown, a server without a model stays without one.
 */
function failedForGood(text: string): boolean {
  try {
    const code = (JSON.parse(text) as { code?: unknown }).code;
    return typeof code === 'string' && CODES_NOT_RETRIED.has(code);
  } catch {
    return false;
  }
}

export class ApiClient {
  readonly base: string;
  private readonly dispatcher: Dispatcher;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  /** Whether the API has answered this client once: see FIRST_CONTACT. */
  private reached = false;

  constructor(private readonly options: ApiClientOptions) {
    this.base = apiBase(options.baseUrl);
    this.dispatcher = new Agent({
      connectTimeout: options.connectTimeoutMs ?? TIMEOUTS.connectMs,
      headersTimeout: options.headersTimeoutMs ?? TIMEOUTS.headersMs,
      bodyTimeout: options.bodyTimeoutMs ?? TIMEOUTS.bodyMs,
    });
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
  }

  async request<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(`${this.base}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { accept: options.accept ?? 'application/json', 'user-agent': `webwatch/${this.options.version}` };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const body = options.form ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (typeof body === 'string') headers['content-type'] = 'application/json';
    const log = this.options.log;
    const maxAttempts = this.options.maxAttempts ?? RETRY.maxAttempts;
    const retrying = (what: string, wait: number, attempt: number, attempts = maxAttempts) =>
      this.options.onRetry?.(`${what}; retrying in ${seconds(wait)} (${attempt + 1} of ${attempts})`);

    for (let attempt = 1; ; attempt++) {
      const started = Date.now();
      log?.(
        `-> ${method} ${url.href}${attempt > 1 ? ` (attempt ${attempt} of ${maxAttempts})` : ''}${this.options.apiKey ? ' [authorization: Bearer <redacted>]' : ''}`,
      );
      let status: number;
      let text: string;
      let retryAfter: number | undefined;
      try {
        const response = await request(url, { method, headers, body, dispatcher: this.dispatcher, ...(options.signal && { signal: options.signal }) });
        status = response.statusCode;
        this.reached = true;
        retryAfter = retryAfterSeconds(response.headers['retry-after'], Date.now());
        text = await response.body.text();
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        const failure = networkFailure(error, this.base);
        log?.(`<- ${failure.message} after ${seconds(Date.now() - started)}`);
        // A request that may have reached the server is resent only when resending is harmless.
        const code = (error as { code?: string }).code ?? (error instanceof undiciErrors.ConnectTimeoutError ? 'UND_ERR_CONNECT_TIMEOUT' : '');
        const resendable = IDEMPOTENT.has(method) || code === 'ECONNREFUSED';
        const firstContact = !this.reached && UNREACHED.has(code);
        const attempts = firstContact ? Math.min(maxAttempts, FIRST_CONTACT.attempts) : maxAttempts;
        if (!resendable || attempt >= attempts) throw failure;
        const wait = firstContact ? FIRST_CONTACT.waitMs : retryDelayMs(attempt, undefined, this.random);
        log?.(`   retrying in ${seconds(wait)}`);
        retrying(failure.message, wait, attempt, attempts);
        await this.sleep(wait);
        continue;
      }
      log?.(`<- ${status} after ${seconds(Date.now() - started)}`);
      if (status >= 200 && status < 300) {
        if (options.accept) return text as T;
        if (text === '') return undefined as T;
        try {
          return JSON.parse(text) as T;
        } catch {
          throw new WebwatchError(`the API answered HTTP ${status} with malformed JSON`, { code: 'MALFORMED_RESPONSE', details: { body: text.slice(0, 200) } });
        }
      }
      if (!RETRYABLE_STATUSES.has(status) || attempt >= maxAttempts || failedForGood(text)) throw apiError(status, text);
      const wait = retryDelayMs(attempt, retryAfter, this.random);
      log?.(`   ${status} is retryable: waiting ${seconds(wait)}${retryAfter !== undefined ? ' (Retry-After)' : ''}`);
      retrying(`${url.origin} answered ${status}`, wait, attempt);
      await this.sleep(wait);
    }
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}
