/**
 * `webwatch serve`'s server in this process, on a fresh database and a free port of 127.0.0.1
 * (serveWebwatch), and call(), the one way tests ask its API, or that of a `webwatch serve`
 * process (serve-process.ts), anything over HTTP.
 */
import { keyStore } from '../../src/engine/keys/key-store.js';
import { databasePath, openDatabase, type Db } from '../../src/engine/store/database.js';
import { buildServer, SERVER_DEFAULTS, type ServerOptions, type WebwatchServer } from '../../src/server/app.js';
import { tempDir } from './files.js';

export interface ServingWebwatch {
  server: WebwatchServer;
  /** The server's address, without /v2. */
  origin: string;
  /** The API's base, ending in /v2. */
  url: string;
  db: Db;
  keys: ReturnType<typeof keyStore>;
  /** Drains the server and closes its database. */
  stop(): Promise<void>;
}

/** Serves a fresh engine home, or `home` to share one with the command line or an earlier server. */
export async function serveWebwatch(options: Partial<ServerOptions> & { home?: string } = {}): Promise<ServingWebwatch> {
  const { home = tempDir(), ...serverOptions } = options;
  const db = await openDatabase(databasePath({ WEBWATCH_HOME: home }), { readConnection: true });
  const server = buildServer({
    db,
    version: 'test',
    env: { WEBWATCH_HOME: home },
    now: () => new Date(),
    allowPrivateTargets: true,
    bodyLimit: SERVER_DEFAULTS.bodyLimit,
    rateLimitPerMinute: SERVER_DEFAULTS.rateLimitPerMinute,
    concurrencyPerTeam: SERVER_DEFAULTS.concurrencyPerTeam,
    ...serverOptions,
  });
  const origin = await server.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    server,
    origin,
    url: `${origin}/v2`,
    db,
    keys: keyStore(db),
    async stop() {
      await server.drain();
      await db.close();
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface Answer<T = any> {
  status: number;
  headers: Headers;
  /** The body as it came, for what is not text (a screenshot). */
  bytes: Buffer;
  text: string;
  /** The body parsed as JSON; reading it throws, naming the answer, when the body is not JSON. */
  body: T;
}

export interface CallOptions {
  /** The content-type sent; application/json by default when there is a payload, none without one. */
  type?: string;
  /** Aborts the request, and the reading of its answer, after this long. */
  timeoutMs?: number;
  /** More request headers. */
  headers?: Record<string, string>;
}

/**
 * `method` `path` of `to`'s API (ServingWebwatch, ServeProcess: their url ends in /v2) or of any
 * base URL, with `key` as the bearer token when there is one. A payload that is a string or bytes
 * is sent as it is (a body that is not JSON, or not UTF-8); any other is sent as JSON.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function call<T = any>(
  to: string | { url: string },
  key: string | undefined,
  method: string,
  path = '',
  payload?: unknown,
  options: CallOptions = {},
): Promise<Answer<T>> {
  const body = payload === undefined || typeof payload === 'string' || payload instanceof Uint8Array ? payload : JSON.stringify(payload);
  const type = options.type ?? (body !== undefined ? 'application/json' : undefined);
  const url = `${typeof to === 'string' ? to : to.url}${path}`;
  const response = await fetch(url, {
    method,
    headers: { ...options.headers, ...(key && { authorization: `Bearer ${key}` }), ...(type !== undefined && { 'content-type': type }) },
    ...(body !== undefined && { body }),
    ...(options.timeoutMs !== undefined && { signal: AbortSignal.timeout(options.timeoutMs) }),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  // Own enumerable properties: status and body, so that an answer deep-equals { status, body }.
  const answer = { status: response.status } as Answer<T>;
  try {
    answer.body = JSON.parse(text) as T;
  } catch (error) {
    Object.defineProperty(answer, 'body', {
      enumerable: true,
      get: () => {
        throw new Error(`${method} ${url} answered ${response.status}, not JSON (${(error as Error).message}): ${text.slice(0, 500)}`);
      },
    });
  }
  return Object.defineProperties(answer, { headers: { value: response.headers }, bytes: { value: bytes }, text: { value: text } });
}
