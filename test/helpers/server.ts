/** Real HTTP servers on 127.0.0.1 for tests: routes are plain handler functions. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './files.js';

export type Handler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

export interface TestServer {
  url: string;
  origin: string;
  /** Requests seen, in order: method, path and headers. */
  requests: { method: string; path: string; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

/** The whole body of a request, as text. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

/** Serves `routes` on 127.0.0.1, on a free port unless `port` is given (rejects when it is taken). */
export async function startServer(routes: Record<string, Handler>, fallback?: Handler, port = 0): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const server: Server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    requests.push({ method: request.method ?? 'GET', path, headers: request.headers });
    const handler = routes[path] ?? fallback;
    if (!handler) {
      response.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title><h1>Not found</h1>');
      return;
    }
    try {
      await handler(request, response);
    } catch (error) {
      response.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/`,
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const html =
  (body: string, headers: Record<string, string> = {}): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
  };

export const bytes =
  (body: Buffer, headers: Record<string, string>, status = 200): Handler =>
  (_request, response) => {
    response.writeHead(status, headers).end(body);
  };

export const redirect =
  (location: string, status = 302): Handler =>
  (_request, response) => {
    response.writeHead(status, { location }).end();
  };

/**
 * An HTTPS server on 127.0.0.1 with a self-signed certificate made by openssl for the test: one
 * that fails verification. `close` ends its connections too.
 */
export async function startSelfSignedServer(handler: Handler): Promise<{ origin: string; close(): void }> {
  const dir = tempDir();
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1'],
    { stdio: 'ignore' },
  );
  const server = createHttpsServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (request, response) => void handler(request, response),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
