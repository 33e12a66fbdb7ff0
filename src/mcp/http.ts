/**
 * The MCP server over streamable HTTP, for several clients: one MCP session (a transport and a
 * server of its own) per client, all on one backend. Only POST, GET and DELETE of /mcp are
 * answered; the Host header must name this server (DNS rebinding protection); every request has
 * a time limit, and the sessions open at once are bounded: a session that made no call since its
 * initialize is ended after a minute, or sooner for a newcomer when the server is full. Connections
 * are capped as serve's are (lib/connection-caps.ts), so that one client cannot shut the others out.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { capConnections } from '../lib/connection-caps.js';

export interface McpHttpOptions {
  host: string;
  port: number;
  /** A server for a new session. */
  session: () => McpServer;
  /** Sessions open at once; a new one past them is refused with 503. */
  maxSessions?: number;
  /** A session unused this long is closed (a client that went away without ending it). */
  sessionIdleMs?: number;
  /** A session that has made no call since its initialize is closed after this (a client that left at once). */
  freshSessionIdleMs?: number;
  /** Connections open at once (MCP_CONNECTION_DEFAULTS). */
  maxConnections?: number;
  /** Connections of one client address at once; 0 for no cap (behind a reverse proxy). */
  maxConnectionsPerAddress?: number;
}

export const MCP_CONNECTION_DEFAULTS = { maxConnections: 1000, maxConnectionsPerAddress: 100 } as const;

export interface McpHttpServer {
  url: string;
  close(): Promise<void>;
}

const BODY_LIMIT = 4 * 1024 * 1024;
const SESSIONS_DEFAULT = 100;
const SESSION_IDLE_DEFAULT_MS = 30 * 60_000;
const FRESH_SESSION_IDLE_DEFAULT_MS = 60_000;

/** A POST that calls a method (a JSON-RPC request with an id): the client is at work. Notifications and the client's stream are not calls. */
const isCall = (body: unknown) =>
  (Array.isArray(body) ? body : [body]).some((message) => !!message && typeof message === 'object' && 'method' in message && 'id' in message);

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
  /** `calls`: requests the session made after its initialize; a session without any is fresh. */
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer; usedAt: number; calls: number }>();
  const idleMs = options.sessionIdleMs ?? SESSION_IDLE_DEFAULT_MS;
  const freshIdleMs = Math.min(options.freshSessionIdleMs ?? FRESH_SESSION_IDLE_DEFAULT_MS, idleMs);
  const end = (id: string) => {
    const session = sessions.get(id);
    sessions.delete(id);
    void session?.transport.close().catch(() => undefined);
  };
  // Clients that went away without ending their session must not fill the server up for good;
  // one that never called anything after its initialize (an SDK client's close() sends no
  // DELETE) goes soonest.
  const sweep = setInterval(
    () => {
      for (const [id, session] of sessions) {
        if (Date.now() - session.usedAt > (session.calls === 0 ? freshIdleMs : idleMs)) end(id);
      }
    },
    Math.max(50, Math.min(freshIdleMs / 2, 60_000)),
  );
  sweep.unref();
  /** At the limit, room is made by ending the fresh session unused longest; working sessions are never ended for a newcomer. */
  const roomForOneMore = (): boolean => {
    if (sessions.size < (options.maxSessions ?? SESSIONS_DEFAULT)) return true;
    let oldest: [string, number] | undefined;
    for (const [id, session] of sessions) if (session.calls === 0 && (!oldest || session.usedAt < oldest[1])) oldest = [id, session.usedAt];
    if (!oldest) return false;
    end(oldest[0]);
    return true;
  };
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
        if (isCall(body)) known.calls++;
        // The stream of a client that made no call closing is that client going (the SDK's close() sends no DELETE).
        if (request.method === 'GET')
          response.once('close', () => void (known.calls === 0 && sessions.get(sessionId as string) === known && end(sessionId as string)));
        return await known.transport.handleRequest(request, response, body);
      }
      if (sessionId !== undefined) return rpcError(response, 404, 'Not Found: no such session (it ended, or the server restarted): initialize again');
      if (request.method !== 'POST' || !isInitializeRequest(body)) return rpcError(response, 400, 'Bad Request: start a session with an initialize request');
      if (!roomForOneMore()) return rpcError(response, 503, 'Service Unavailable: too many sessions open');
      const server = options.session();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableDnsRebindingProtection: true,
        allowedHosts,
        onsessioninitialized: (id) => void sessions.set(id, { transport, server, usedAt: Date.now(), calls: 0 }),
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
  capConnections(http, {
    total: options.maxConnections ?? MCP_CONNECTION_DEFAULTS.maxConnections,
    perAddress: options.maxConnectionsPerAddress ?? MCP_CONNECTION_DEFAULTS.maxConnectionsPerAddress,
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
