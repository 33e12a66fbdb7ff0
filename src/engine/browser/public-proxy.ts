/**
 * The browser's connections under serve's private-address rule. Every request of a page is
 * checked before it is sent (render.ts), but Chromium would then resolve the host name again
 * itself, and a name that answers a public address to the check and a private one to the
 * browser (DNS rebinding) would get through. So the browser connects through this proxy, in
 * this process: it resolves each name once, with the same connect-time lookup as the plain
 * fetch (publicOnlyLookup), and connects to the address it checked. HTTPS passes through as a
 * CONNECT tunnel, end to end; the proxy sees host names and bytes, never the content.
 *
 * With an operator's proxy (`proxy.basic`, `proxy.enhanced`), the browser's connections go to it
 * through this one too: under the rule each host is still judged here first, redirects and
 * sub-resources included, before anything is sent on (the operator's proxy then resolves and
 * connects); and the operator's credentials stay in this process, never handed to Chromium.
 */
import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { publicOnlyLookup } from '../fetch/network-policy.js';
import { PROXY_FAILURE_HEADER, PROXY_GATEWAY_FAILURES, proxyAnswered, proxyAuthorization } from '../fetch/proxy.js';

type Lookup = typeof publicOnlyLookup;

/**
 * Hosts refused lately, with why: the browser only sees a failed tunnel or a 403, so the page
 * that was refused asks here for the reason (the address and the rule), as a plain fetch gives.
 */
const refusals = new Map<string, { error: Error; at: number }>();
const REFUSAL_MEMORY_MS = 60_000;
const REFUSALS_KEPT = 1000;

function remember(host: string, error: Error): void {
  if ((error as NodeJS.ErrnoException).code !== 'EPRIVATETARGET') return;
  refusals.delete(host);
  refusals.set(host, { error, at: Date.now() });
  if (refusals.size > REFUSALS_KEPT) refusals.delete(refusals.keys().next().value!);
}

/** Why the proxy refused `host` since `since` (ms), if it did. */
export function refusalOf(host: string, since: number): Error | undefined {
  const known = refusals.get(host.replace(/^\[|\]$/g, ''));
  return known && known.at >= since && Date.now() - known.at < REFUSAL_MEMORY_MS ? known.error : undefined;
}

/**
 * Why the operator's proxy failed a tunnel lately, by proxy and host: Chromium says only that the
 * tunnel failed, and the scrape says what the proxy answered, as the plain fetch does.
 */
const tunnelFailures = new Map<string, { reason: string; at: number }>();

function rememberTunnelFailure(upstream: Upstream, host: string, reason: string): void {
  const key = `${upstream.address}\n${host}`;
  tunnelFailures.delete(key);
  tunnelFailures.set(key, { reason, at: Date.now() });
  if (tunnelFailures.size > REFUSALS_KEPT) tunnelFailures.delete(tunnelFailures.keys().next().value!);
}

/** What the operator's proxy at `upstream` answered when it failed a tunnel to `host` since `since` (ms), if it did. */
export function tunnelFailureOf(upstream: string, host: string, since: number): string | undefined {
  const known = tunnelFailures.get(`${upstream}\n${host.replace(/^\[|\]$/g, '')}`);
  return known && known.at >= since && Date.now() - known.at < REFUSAL_MEMORY_MS ? known.reason : undefined;
}

let started: Promise<string> | undefined;

/** The proxy's address (`http://127.0.0.1:<port>`), started on first use and shared by every context. */
export function publicOnlyProxy(): Promise<string> {
  started ??= startConnectingProxy(publicOnlyLookup).catch((error: unknown) => {
    started = undefined;
    throw error;
  });
  return started;
}

const chained = new Map<string, Promise<string>>();

/**
 * The proxy (`http://127.0.0.1:<port>`) that sends the browser's connections on to the operator's
 * proxy at `upstream`, judging each host with publicOnlyLookup first when `publicOnly`.
 */
export function proxyThrough(upstream: string, publicOnly: boolean): Promise<string> {
  const key = `${publicOnly}\n${upstream}`;
  let proxy = chained.get(key);
  if (!proxy) {
    proxy = startConnectingProxy(publicOnly ? publicOnlyLookup : undefined, upstream).catch((error: unknown) => {
      chained.delete(key);
      throw error;
    });
    chained.set(key, proxy);
  }
  return proxy;
}

/** The operator's proxy as this one reaches it. */
interface Upstream {
  /** As configured: what tunnel failures are remembered by. */
  address: string;
  send: typeof httpRequest;
  host: string;
  port: number;
  authorization: string | undefined;
}

function upstreamOf(address: string): Upstream {
  const url = new URL(address);
  const https = url.protocol === 'https:';
  return {
    address,
    send: https ? httpsRequest : httpRequest,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port) || (https ? 443 : 80),
    authorization: proxyAuthorization(url),
  };
}

/**
 * A forward proxy on 127.0.0.1. With `lookup`, every connection resolves its host with it first
 * (and is refused when it fails); then connects to that address, or with `upstream` asks the
 * operator's proxy for the same thing.
 */
export function startConnectingProxy(lookup: Lookup | undefined, upstream?: string): Promise<string> {
  const via = upstream === undefined ? undefined : upstreamOf(upstream);
  return new Promise<string>((resolve, reject) => {
    const server: Server = createServer((request, response) => forward(request, response, lookup, via));
    server.on('connect', (request: IncomingMessage, client: Duplex, head: Buffer) => tunnel(request, client, head, lookup, via));
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      // The proxy never keeps a process alive by itself.
      server.unref();
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    });
  });
}

/** The one address a host is connected to, by `lookup` (an address literal is judged too); the host itself without one. */
function resolveOnce(host: string, lookup: Lookup | undefined): Promise<string> {
  if (!lookup) return Promise.resolve(host);
  return new Promise((resolve, reject) => {
    lookup(host, {}, (error, address) => {
      if (!error) return resolve(address as string);
      remember(host, error);
      reject(error);
    });
  });
}

/** Why a connection was refused, as the browser's error page (never shown: the page fails first). */
const refusal = (error: Error) => ((error as NodeJS.ErrnoException).code === 'EPRIVATETARGET' ? '403 Forbidden' : '502 Bad Gateway');

/** A socket to `address`:`port`, once connected. */
function connected(address: string, port: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** The proxy's answer to a CONNECT, other than 200, as the reason of a failed tunnel. */
class TunnelRefused extends Error {}

/** A tunnel to `authority` (host:port) through the operator's proxy, once it has answered 200. */
function tunnelThrough(upstream: Upstream, authority: string): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const headers: OutgoingHttpHeaders = { host: authority, ...(upstream.authorization && { 'proxy-authorization': upstream.authorization }) };
    const asked = upstream.send({ host: upstream.host, port: upstream.port, method: 'CONNECT', path: authority, headers, agent: false });
    asked.once('connect', (answer: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (answer.statusCode !== 200) {
        socket.destroy();
        const status = answer.statusCode ?? 0;
        return reject(new TunnelRefused(status === 407 ? 'the proxy refused its credentials (407)' : proxyAnswered(status, true)));
      }
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    asked.once('error', reject);
    asked.end();
  });
}

/** HTTPS (and WebSockets): `CONNECT host:port`, then the bytes both ways. */
function tunnel(request: IncomingMessage, client: Duplex, head: Buffer, lookup: Lookup | undefined, upstream: Upstream | undefined): void {
  const target = /^\[?([^\]]+?)\]?:(\d+)$/.exec(request.url ?? '');
  if (!target) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  const [host, port] = [target[1]!, Number(target[2])];
  let outgoing: Duplex | undefined;
  const failed = (error: Error) => void client.end(`HTTP/1.1 ${refusal(error)}\r\n\r\n`);
  resolveOnce(host, lookup).then((address) => {
    if (client.destroyed) return;
    const opened = upstream ? tunnelThrough(upstream, `${host.includes(':') ? `[${host}]` : host}:${port}`) : connected(address, port);
    if (upstream) {
      opened.catch((error: NodeJS.ErrnoException) =>
        rememberTunnelFailure(
          upstream,
          host,
          error instanceof TunnelRefused
            ? error.message
            : error.code === 'ECONNREFUSED'
              ? 'connection refused by the proxy'
              : `the proxy could not be reached (${error.code ?? 'error'})`,
        ),
      );
    }
    opened.then((socket) => {
      outgoing = socket;
      if (client.destroyed) return void socket.destroy();
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) socket.write(head);
      socket.pipe(client);
      client.pipe(socket);
      socket.once('error', () => client.destroy());
    }, failed);
  }, failed);
  client.once('error', () => outgoing?.destroy());
  client.once('close', () => outgoing?.destroy());
}

/** Plain HTTP: the browser sends the absolute URL; it is requested again from the checked address, or from the operator's proxy. */
function forward(request: IncomingMessage, response: ServerResponse, lookup: Lookup | undefined, upstream: Upstream | undefined): void {
  let url: URL;
  try {
    url = new URL(request.url ?? '');
    if (url.protocol !== 'http:') throw new Error('not http');
  } catch {
    return void response.writeHead(400).end();
  }
  const headers = { ...request.headers };
  delete headers['proxy-connection'];
  delete headers['proxy-authorization'];
  const refused = (error: Error) => {
    if (!response.headersSent) response.writeHead(Number(refusal(error).slice(0, 3))).end();
    else response.destroy();
  };
  const proxyFailed = (reason: string) => {
    if (!response.headersSent) response.writeHead(502, { [PROXY_FAILURE_HEADER]: reason }).end();
    else response.destroy();
  };
  resolveOnce(url.hostname.replace(/^\[|\]$/g, ''), lookup).then((address) => {
    const sent = upstream
      ? upstream.send({
          host: upstream.host,
          port: upstream.port,
          path: url.href,
          method: request.method,
          headers: { ...headers, ...(upstream.authorization && { 'proxy-authorization': upstream.authorization }) },
        })
      : httpRequest({ host: address, port: url.port || 80, path: `${url.pathname}${url.search}`, method: request.method, headers });
    sent.once('response', (answer) => {
      // The operator's proxy refused its credentials: the browser must not be asked for them.
      if (upstream && answer.statusCode === 407) {
        answer.resume();
        return proxyFailed('the proxy refused its credentials (407)');
      }
      // The operator's proxy could not get the page: its failure, not a page of the site.
      if (upstream && PROXY_GATEWAY_FAILURES.has(answer.statusCode ?? 0)) {
        answer.resume();
        return proxyFailed(proxyAnswered(answer.statusCode!, false));
      }
      response.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(response);
    });
    sent.once('error', (error: NodeJS.ErrnoException) => {
      if (!upstream) return refused(error);
      proxyFailed(error.code === 'ECONNREFUSED' ? 'connection refused by the proxy' : `the proxy could not be reached (${error.code ?? 'error'})`);
    });
    response.once('close', () => sent.destroy());
    request.pipe(sent);
  }, refused);
}
