/**
 * The MCP server over streamable HTTP, for several clients: one MCP session (a transport and a
 * server of its own) per client, all on one backend. Only POST, GET and DELETE of /mcp are
 * answered; the Host header must name this server (DNS rebinding protection); every request has
 * a time limit, and the sessions open at once are bounded.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

export interface McpHttpOptions {
  host: string;
  port: number;
  /** A server for a new session. */
  session: () => McpServer;
  /** Sessions open at once; a new one past them is refused with 503. */
  maxSessions?: number;
  /** A session unused this long is closed (a client that went away without ending it). */
  sessionIdleMs?: number;
}

export interface McpHttpServer {
  url: string;
  close(): Promise<void>;
}

const BODY_LIMIT = 4 * 1024 * 1024;
const SESSIONS_DEFAULT = 100;
const SESSION_IDLE_DEFAULT_MS = 30 * 60_000;

const rpcError = (response: ServerResponse, status: number, message: string) =>
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));

function readJson(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        reject(new Error(`the request body is over ${BODY_LIMIT} bytes`));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new Error('the request body is not JSON'));
      }
    });
    request.on('error', reject);
  });
}

export async function serveMcpHttp(options: McpHttpOptions): Promise<McpHttpServer> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer; usedAt: number }>();
  const idleMs = options.sessionIdleMs ?? SESSION_IDLE_DEFAULT_MS;
  // Clients that went away without ending their session must not fill the server up for good.
  const sweep = setInterval(() => {
    for (const [id, session] of sessions) {
      if (Date.now() - session.usedAt <= idleMs) continue;
      sessions.delete(id);
      void session.transport.close().catch(() => undefined);
    }
  }, Math.min(idleMs, 60_000));
  sweep.unref();
  let allowedHosts: string[] = [];
  const http = createServer(async (request, response) => {
    try {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      if (path !== '/mcp') return rpcError(response, 404, `Not Found: webwatch answers MCP at /mcp, not ${path}`);
      const sessionId = request.headers['mcp-session-id'];
      const body = request.method === 'POST' ? await readJson(request) : undefined;
      const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (known) {
        known.usedAt = Date.now();
        return await known.transport.handleRequest(request, response, body);
      }
      if (sessionId !== undefined) return rpcError(response, 404, 'Not Found: no such session (it ended, or the server restarted): initialize again');
      if (request.method !== 'POST' || !isInitializeRequest(body)) return rpcError(response, 400, 'Bad Request: start a session with an initialize request');
      if (sessions.size >= (options.maxSessions ?? SESSIONS_DEFAULT)) return rpcError(response, 503, 'Service Unavailable: too many sessions open');
      const server = options.session();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableDnsRebindingProtection: true,
        allowedHosts,
        onsessioninitialized: (id) => void sessions.set(id, { transport, server, usedAt: Date.now() }),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      await transport.handleRequest(request, response, body);
    } catch (error) {
      if (!response.headersSent) rpcError(response, 400, `Bad Request: ${(error as Error).message}`);
      else response.destroy();
    }
  });
  // A client has 30 s to send a request (10 for its headers); answers may stream for longer.
  http.requestTimeout = 30_000;
  http.headersTimeout = 10_000;
  http.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  const hostName = options.host.includes(':') ? `[${options.host}]` : options.host;
  allowedHosts = [`${hostName}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`];
  return {
    url: `http://${hostName}:${port}/mcp`,
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map(({ transport }) => transport.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
