/**
 * The browser's connections under serve's private-address rule. Every request of a page is
 * checked before it is sent (render.ts), but Chromium would then resolve the host name again
 * itself, and a name that answers a public address to the check and a private one to the
 * browser (DNS rebinding) would get through. So the browser connects through this proxy, in
 * this process: it resolves each name once, with the same connect-time lookup as the plain
 * fetch (publicOnlyLookup), and connects to the address it checked. HTTPS passes through as a
 * CONNECT tunnel, end to end; the proxy sees host names and bytes, never the content.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { publicOnlyLookup } from '../fetch/network-policy.js';

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

let started: Promise<string> | undefined;

/** The proxy's address (`http://127.0.0.1:<port>`), started on first use and shared by every context. */
export function publicOnlyProxy(): Promise<string> {
  started ??= startConnectingProxy(publicOnlyLookup).catch((error: unknown) => {
    started = undefined;
    throw error;
  });
  return started;
}

/** A forward proxy on 127.0.0.1 whose every connection resolves its host with `lookup`. */
export function startConnectingProxy(lookup: Lookup): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const server: Server = createServer((request, response) => forward(request, response, lookup));
    server.on('connect', (request: IncomingMessage, client: Duplex, head: Buffer) => tunnel(request, client, head, lookup));
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      // The proxy never keeps a process alive by itself.
      server.unref();
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    });
  });
}

/** The one address a host is connected to, by `lookup` (an address literal is judged too). */
function resolveOnce(host: string, lookup: Lookup): Promise<string> {
  return new Promise((resolve, reject) => {
    lookup(host, {}, (error, address) => {
      if (!error) return resolve(address as string);
      remember(host, error);
      reject(error);
    });
  });
}

/** Why a connection was refused, as the browser's error page (never shown: the page fails first). */
const refusal = (error: Error) => (error as NodeJS.ErrnoException).code === 'EPRIVATETARGET' ? '403 Forbidden' : '502 Bad Gateway';

/** HTTPS (and WebSockets): `CONNECT host:port`, then the bytes both ways. */
function tunnel(request: IncomingMessage, client: Duplex, head: Buffer, lookup: Lookup): void {
  const target = /^\[?([^\]]+?)\]?:(\d+)$/.exec(request.url ?? '');
  if (!target) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  let upstream: Socket | undefined;
  resolveOnce(target[1]!, lookup).then((address) => {
    if (client.destroyed) return;
    upstream = connect({ host: address, port: Number(target[2]) });
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream!.write(head);
      upstream!.pipe(client);
      client.pipe(upstream!);
    });
    upstream.once('error', (error) => client.end(`HTTP/1.1 ${refusal(error)}\r\n\r\n`));
  }, (error: Error) => client.end(`HTTP/1.1 ${refusal(error)}\r\n\r\n`));
  client.once('error', () => upstream?.destroy());
  client.once('close', () => upstream?.destroy());
}

/** Plain HTTP: the browser sends the absolute URL; it is requested again from the checked address. */
function forward(request: IncomingMessage, response: ServerResponse, lookup: Lookup): void {
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
  resolveOnce(url.hostname.replace(/^\[|\]$/g, ''), lookup).then((address) => {
    const upstream = httpRequest({ host: address, port: url.port || 80, path: `${url.pathname}${url.search}`, method: request.method, headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(response);
    });
    upstream.once('error', refused);
    response.once('close', () => upstream.destroy());
    request.pipe(upstream);
  }, refused);
}
