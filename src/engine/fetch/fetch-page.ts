/**
 * One HTTP(S) fetch of a page with Node's http and https: redirects followed by hand (each hop
 * is checked by the caller's URL policy, so a redirect cannot reach what the first URL could
 * not), bounded size after decompression, one deadline for the whole exchange, and errors that
 * say what happened in the spec's terms. Not undici: its 110 modules were a fifth of the start-up
 * of a one-off scrape and of a first check, for one GET at a time per page. Through an operator's
 * proxy (proxy.ts), undici's ProxyAgent, loaded then: a plain `http://` target is sent to the
 * proxy as it is, an `https://` one through a CONNECT tunnel.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { publicOnlyLookup, refusePrivateTargets } from './network-policy.js';
import { PROXY_GATEWAY_FAILURES, proxyAnswered, shownProxy, withoutSecrets, type ProxyLevel } from './proxy.js';

export const MAX_REDIRECTS = 10;
export const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;

export interface FetchRequest {
  url: string;
  timeoutMs: number;
  headers: Record<string, string>;
  skipTlsVerification: boolean;
  maxBytes?: number;
  /** Called for the first URL and every redirect target; throws to refuse it. */
  checkUrl?: (url: URL) => void | Promise<void>;
  /**
   * Connect only to public addresses, checked on the resolved address itself (serve). Through a
   * proxy, which connects in our place, each URL's host is checked before its request instead.
   */
  publicAddressesOnly?: boolean;
  /** The operator's proxy to go through (its level names it in errors); a direct fetch without one. */
  proxy?: { url: string; level: ProxyLevel };
  signal?: AbortSignal;
}

export interface FetchedPage {
  requestedUrl: string;
  finalUrl: string;
  statusCode: number;
  headers: Record<string, string>;
  contentType: string | undefined;
  body: Buffer;
  redirects: string[];
}

/** 400 `Invalid URL` unless `value` is an absolute http(s) URL. */
export function parseTargetUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new WebwatchError(ERROR_MESSAGES.invalidUrl, { status: 400, details: { url: value, reason: 'not an absolute URL' } });
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new WebwatchError(ERROR_MESSAGES.invalidUrl, { status: 400, details: { url: value, reason: 'only http and https URLs can be scraped' } });
  }
  return url;
}

const agents = new Map<string, HttpAgent>();
/** Kept-alive connections per scheme, TLS rule and address rule. */
function agentFor(https: boolean, skipTlsVerification: boolean, publicAddressesOnly: boolean): HttpAgent {
  const key = `${https}/${skipTlsVerification}/${publicAddressesOnly}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, timeout: 4_000, ...(publicAddressesOnly && { lookup: publicOnlyLookup }) };
    agent = https ? new HttpsAgent({ ...options, rejectUnauthorized: !skipTlsVerification }) : new HttpAgent(options);
    agents.set(key, agent);
  }
  return agent;
}

interface Response {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: IncomingMessage | Readable;
}

const proxyAgents = new Map<string, Dispatcher>();
/** Kept-alive connections per proxy and TLS rule (of the target's certificate; the proxy's own is always checked). */
async function proxyAgentFor(address: string, skipTlsVerification: boolean): Promise<Dispatcher> {
  const key = `${skipTlsVerification}\n${address}`;
  let agent = proxyAgents.get(key);
  if (!agent) {
    const { ProxyAgent } = await import('undici');
    agent = new ProxyAgent({ uri: address, proxyTunnel: false, requestTls: { rejectUnauthorized: !skipTlsVerification }, keepAliveTimeout: 4_000 });
    proxyAgents.set(key, agent);
  }
  return agent;
}

async function getThrough(agent: Dispatcher, url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
  const response = await agent.request({ origin: url.origin, path: `${url.pathname}${url.search}`, method: 'GET', headers, signal });
  return { statusCode: response.statusCode, headers: response.headers as IncomingHttpHeaders, body: response.body };
}

/**
 * What stops a fetch (its deadline, the caller's signal): the request under way is destroyed,
 * with its response. Not an AbortSignal given to each request: Node then creates one more
 * signal and hooks its listeners into the request's stream, which cost a crawl more than the
 * request's own headers.
 */
class Stopper {
  stopped = false;
  /** The request under way (direct fetches), destroyed when the fetch is stopped. */
  request: ClientRequest | undefined;
  private controller: AbortController | undefined;

  /** A signal for the proxy's client, which takes one. */
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.stopped) this.controller.abort();
    return this.controller.signal;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.request?.destroy(new Error('the fetch was stopped'));
    this.controller?.abort();
  }
}

function get(url: URL, headers: Record<string, string>, agent: HttpAgent, stopper: Stopper): Promise<Response> {
  return new Promise((resolve, reject) => {
    if (stopper.stopped) return reject(new Error('the fetch was stopped'));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(url, { method: 'GET', headers, agent }, (response) =>
      resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body: response }),
    );
    stopper.request = request;
    request.on('error', reject);
    request.end();
  });
}

const NETWORK_ERRORS: Record<string, [code: string, message: (host: string) => string]> = {
  ENOTFOUND: ['SCRAPE_DNS_RESOLUTION_ERROR', (host) => `could not resolve host ${host}`],
  EAI_AGAIN: ['SCRAPE_DNS_RESOLUTION_ERROR', (host) => `could not resolve host ${host} (temporary DNS failure)`],
  ECONNREFUSED: ['SCRAPE_CONNECTION_FAILED', (host) => `connection refused by ${host}`],
  ECONNRESET: ['SCRAPE_CONNECTION_FAILED', (host) => `connection reset by ${host}`],
  EHOSTUNREACH: ['SCRAPE_CONNECTION_FAILED', (host) => `host ${host} is unreachable`],
  UND_ERR_SOCKET: ['SCRAPE_CONNECTION_FAILED', (host) => `connection to ${host} closed unexpectedly`],
  EPIPE: ['SCRAPE_CONNECTION_FAILED', (host) => `connection to ${host} closed unexpectedly`],
};

function networkError(error: unknown, url: URL): WebwatchError {
  const cause = error as { code?: string; cause?: { code?: string }; message?: string };
  const code = cause.code ?? cause.cause?.code ?? '';
  const known = NETWORK_ERRORS[code];
  if (known) return new WebwatchError(known[1](url.hostname), { code: known[0], cause: error });
  if (/CERT|SSL|TLS|SELF_SIGNED|LEAF_SIGNATURE|ISSUER/i.test(code)) {
    return new WebwatchError(`TLS certificate of ${url.hostname} was rejected (${code}); set skipTlsVerification to scrape it anyway`, {
      code: 'SCRAPE_TLS_ERROR',
      cause: error,
    });
  }
  return new WebwatchError(`fetching ${url.href} failed: ${cause.message ?? String(error)}`, { code: 'SCRAPE_FETCH_FAILED', cause: error });
}

/**
 * A proxied request that failed before any answer: the proxy could not be reached, refused the
 * credentials, or could not open the tunnel. Said with the proxy's level and address, never its
 * credentials, and without the library's error as the cause, which could carry them.
 */
function proxyError(error: unknown, url: URL, proxy: { url: string; level: ProxyLevel }): WebwatchError {
  const cause = error as { code?: string; cause?: { code?: string }; message?: string };
  const code = cause.code ?? cause.cause?.code ?? '';
  if (/CERT|SSL|TLS|SELF_SIGNED|LEAF_SIGNATURE|ISSUER/i.test(code)) {
    return new WebwatchError(`TLS certificate of ${url.hostname} or of the ${proxy.level} proxy ${shownProxy(proxy.url)} was rejected (${code})`, {
      code: 'SCRAPE_TLS_ERROR',
    });
  }
  // undici's words for a CONNECT the proxy did not answer 200: `Proxy response (502) !== 200 when HTTP Tunneling`.
  const tunnelStatus = /^Proxy response \((\d{3})\)/.exec(cause.message ?? '')?.[1];
  const reason =
    code === 'ECONNREFUSED' ? 'connection refused by the proxy' : tunnelStatus ? proxyAnswered(Number(tunnelStatus), true) : (cause.message ?? String(error));
  return proxyFailed(url, proxy, reason);
}

const proxyFailed = (url: URL, proxy: { url: string; level: ProxyLevel }, reason: string) =>
  new WebwatchError(withoutSecrets(`fetching ${url.href} through the ${proxy.level} proxy ${shownProxy(proxy.url)} failed: ${reason}`, [proxy.url]), {
    code: 'SCRAPE_CONNECTION_FAILED',
  });

function isStaleSocket(error: unknown, socketReused: boolean): boolean {
  const code = (error as { code?: string }).code;
  return socketReused && (code === 'ECONNRESET' || code === 'EPIPE');
}

function decompressed(body: Readable, encoding: string | undefined): Readable {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return body.pipe(createGunzip());
    case 'deflate':
      return body.pipe(createInflate());
    case 'br':
      return body.pipe(createBrotliDecompress());
    default:
      return body;
  }
}

function readBounded(stream: Readable, maxBytes: number, url: URL): Promise<Buffer> {
  // Events rather than an async iterator: a check reads hundreds of bodies, and the iterator's
  // promise per chunk was a tenth of fetching.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stream.destroy();
        reject(
          new WebwatchError(`the response of ${url.href} is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB`, { code: 'SCRAPE_RESPONSE_TOO_LARGE' }),
        );
        return;
      }
      chunks.push(chunk);
    });
    stream.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    stream.on('error', reject);
    // Destroyed without an error (an abort): the caller's signal says why.
    stream.on('close', () => {
      if (!stream.readableEnded) reject(new Error('the response ended early'));
    });
  });
}

function headerRecord(headers: IncomingHttpHeaders): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) record[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return record;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export async function fetchPage(options: FetchRequest): Promise<FetchedPage> {
  // One stopper for the deadline and the caller's signal: AbortSignal.timeout and .any cost
  // more than the request itself when a check fetches hundreds of pages.
  const stopper = new Stopper();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stopper.stop();
  }, options.timeoutMs);
  const cancel = () => stopper.stop();
  if (options.signal?.aborted) stopper.stop();
  else options.signal?.addEventListener('abort', cancel, { once: true });
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const redirects: string[] = [];
  const { proxy } = options;
  let url = parseTargetUrl(options.url);
  try {
    for (;;) {
      await options.checkUrl?.(url);
      // The proxy connects, not us: the address rule judges the host of each URL before it is asked for.
      if (proxy && options.publicAddressesOnly) await refusePrivateTargets(url);
      let response: Response;
      const sent = { 'accept-encoding': 'gzip, deflate, br', ...options.headers };
      try {
        if (proxy) {
          response = await getThrough(await proxyAgentFor(proxy.url, options.skipTlsVerification), url, sent, stopper.signal);
        } else {
          const agent = agentFor(url.protocol === 'https:', options.skipTlsVerification, options.publicAddressesOnly ?? false);
          const send = () => get(url, sent, agent, stopper);
          // A kept-alive socket the server has just closed: a GET is safe to send again, once.
          const reusable = Object.values(agent.freeSockets).some((sockets) => (sockets?.length ?? 0) > 0);
          try {
            response = await send();
          } catch (error) {
            if (stopper.stopped || !isStaleSocket(error, reusable)) throw error;
            response = await send();
          }
        }
      } catch (error) {
        if (stopper.stopped) throw error;
        // The connect-time address rule refused the socket: that is the answer, not a network fault.
        const refused = [error, (error as { cause?: unknown }).cause].find((e) => e instanceof WebwatchError);
        if (refused) throw refused;
        throw proxy ? proxyError(error, url, proxy) : networkError(error, url);
      }
      // The proxy could not get a plain-HTTP page (an HTTPS one fails its CONNECT instead).
      if (proxy && url.protocol === 'http:' && PROXY_GATEWAY_FAILURES.has(response.statusCode)) {
        response.body.resume();
        throw proxyFailed(url, proxy, proxyAnswered(response.statusCode, false));
      }
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(response.statusCode) && typeof location === 'string') {
        response.body.resume();
        const next = new URL(location, url);
        if (redirects.includes(next.href) || next.href === options.url) {
          throw new WebwatchError(`redirect loop: ${[options.url, ...redirects, next.href].join(' -> ')}`, { code: 'SCRAPE_REDIRECT_LOOP' });
        }
        if (redirects.length >= MAX_REDIRECTS) {
          throw new WebwatchError(`more than ${MAX_REDIRECTS} redirects from ${options.url}`, { code: 'SCRAPE_TOO_MANY_REDIRECTS' });
        }
        redirects.push(next.href);
        url = parseTargetUrl(next.href);
        continue;
      }
      const headers = headerRecord(response.headers);
      const body = await readBounded(decompressed(response.body, headers['content-encoding']), maxBytes, url);
      return {
        requestedUrl: options.url,
        finalUrl: url.href,
        statusCode: response.statusCode,
        headers,
        contentType: headers['content-type'],
        body,
        redirects,
      };
    }
  } catch (error) {
    if (timedOut) {
      throw new WebwatchError(ERROR_MESSAGES.requestTimeout, { status: 408, details: { url: options.url, timeoutMs: options.timeoutMs } });
    }
    if (options.signal?.aborted) throw new WebwatchError('the scrape was cancelled', { code: 'SCRAPE_CANCELLED' });
    if (error instanceof WebwatchError) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('Z_') || code.startsWith('ERR__ERROR_FORMAT')) {
      throw new WebwatchError(`the response of ${url.href} is not valid compressed data`, { code: 'SCRAPE_DECODING_ERROR', cause: error });
    }
    throw proxy ? proxyError(error, url, proxy) : networkError(error, url);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', cancel);
  }
}
