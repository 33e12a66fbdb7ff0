/**
 * A small HTTP forward proxy on 127.0.0.1 for tests of the `proxy` scrape option. It takes
 * requests in absolute form (`GET http://host/path`) and CONNECT tunnels (`CONNECT host:port`,
 * for https:// targets), records each one it handles, checks Proxy-Authorization when given
 * credentials (407 otherwise), and answers itself for what `answer` covers (a host no test may
 * reach, a block) or forwards to the target.
 */
import { createServer, request as httpRequest, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

export interface ForwardProxy {
  /** `http://127.0.0.1:<port>`, without credentials. */
  url: string;
  /** The proxy's address with `user:password@`. */
  withCredentials(user: string, password: string): string;
  /** The absolute URLs of the requests it handled (authorized ones), in order; a tunnel is `CONNECT host:port`. */
  forwarded: string[];
  /** How many requests it refused for their credentials (407). */
  refused: number;
  /** The requests it forwarded to this exact URL. */
  count(url: string): number;
  close(): Promise<void>;
}

export interface ForwardProxyOptions {
  credentials?: { user: string; password: string };
  /** An answer of the proxy's own for a URL (a page of a host it stands in for, a block); forwarded when undefined. */
  answer?: (url: URL) => { status: number; body: string; headers?: Record<string, string> } | undefined;
  /** A status of the proxy's own for a CONNECT to `host:port` (a proxy that cannot reach it); tunnelled when undefined. */
  tunnelAnswer?: (authority: string) => number | undefined;
}

export async function startForwardProxy(options: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const forwarded: string[] = [];
  let refused = 0;
  const expected = options.credentials && `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString('base64')}`;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(request.url ?? '');
    } catch {
      return void response.writeHead(400).end('absolute-form requests only');
    }
    if (expected && request.headers['proxy-authorization'] !== expected) {
      refused++;
      return void response.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-type': 'text/plain' }).end('proxy credentials required');
    }
    forwarded.push(url.href);
    const own = options.answer?.(url);
    if (own) return void response.writeHead(own.status, { 'content-type': 'text/html', ...own.headers }).end(own.body);
    const headers = { ...request.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = httpRequest(
      { host: url.hostname, port: url.port || 80, path: `${url.pathname}${url.search}`, method: request.method, headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.once('error', () => (response.headersSent ? response.destroy() : response.writeHead(502).end()));
    request.pipe(upstream);
  });
  server.on('connect', (request: IncomingMessage, client: Duplex, head: Buffer) => {
    if (expected && request.headers['proxy-authorization'] !== expected) {
      refused++;
      return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
    }
    forwarded.push(`CONNECT ${request.url}`);
    const own = options.tunnelAnswer?.(request.url ?? '');
    if (own !== undefined) return void client.end(`HTTP/1.1 ${own} ${STATUS_CODES[own] ?? ''}\r\nContent-Length: 0\r\n\r\n`);
    const target = /^\[?([^\]]+?)\]?:(\d+)$/.exec(request.url ?? '');
    if (!target) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    const upstream = connect({ host: target[1], port: Number(target[2]) }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('error', () => client.destroy());
    client.once('error', () => upstream.destroy());
    client.once('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    withCredentials: (user, password) => `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    forwarded,
    get refused() {
      return refused;
    },
    count: (url) => forwarded.filter((seen) => seen === url).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
