/**
 * The MCP server's HTTP transport on its own: sessions bounded in number, and closed when their
 * client has gone quiet, so that clients that leave without ending their session cannot fill
 * the server up for good.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { serveMcpHttp } from '../../src/mcp/http.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the MCP server over HTTP', () => {
  it('refuses a session past the limit, and closes a quiet one so that the next client gets in', async () => {
    const served = await serveMcpHttp({ host: '127.0.0.1', port: 0, session: () => new McpServer({ name: 'test', version: '1' }), maxSessions: 1, sessionIdleMs: 300 });
    const clients: Client[] = [];
    const connect = async () => {
      const client = new Client({ name: 'test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
      clients.push(client);
      return client;
    };
    try {
      const first = await connect();
      await first.ping();
      await assert.rejects(connect(), /503|too many sessions/i);
      // The first client goes quiet; its session is closed, and a new client gets one.
      await delay(900);
      const second = await connect();
      await second.ping();
      await assert.rejects(first.ping(), /404|no such session|Not Found/i);
    } finally {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
      await served.close();
    }
  });
});
