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
    const served = await serveMcpHttp({
      host: '127.0.0.1',
      port: 0,
      session: () => new McpServer({ name: 'test', version: '1' }),
      maxSessions: 1,
      sessionIdleMs: 300,
    });
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

  it('ends the sessions of clients that left without a call, so that they never lock the others out; working sessions stay', async () => {
    const served = await serveMcpHttp({
      host: '127.0.0.1',
      port: 0,
      session: () => new McpServer({ name: 'test', version: '1' }),
      maxSessions: 3,
      freshSessionIdleMs: 60_000,
    });
    const open: Client[] = [];
    const connect = async () => {
      const client = new Client({ name: 'test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
      open.push(client);
      return client;
    };
    try {
      // Ten clients that initialize and close: the SDK's close() ends nothing on the server.
      for (let i = 0; i < 10; i++) await (await connect()).close();
      const working = await connect();
      await working.ping();
      // Two that stay connected without a call: at the limit, the one unused longest makes room.
      const quiet = await connect();
      await connect();
      const newcomer = await connect();
      await newcomer.ping();
      await assert.rejects(quiet.ping(), /404|no such session|Not Found/i);
      await working.ping();
      // The other quiet one calls too: three working sessions, and a fourth client is refused, no working one ended for it.
      await open.at(-2)!.ping();
      await assert.rejects(connect(), /503|too many sessions/i);
      await working.ping();
      await newcomer.ping();
    } finally {
      await Promise.all(open.map((client) => client.close().catch(() => undefined)));
      await served.close();
    }
  });

  it('ends a session that made no call after its initialize sooner than a working one', async () => {
    const served = await serveMcpHttp({
      host: '127.0.0.1',
      port: 0,
      session: () => new McpServer({ name: 'test', version: '1' }),
      sessionIdleMs: 60_000,
      freshSessionIdleMs: 200,
    });
    const clients: Client[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const client = new Client({ name: 'test', version: '1' });
        await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
        clients.push(client);
      }
      await clients[0]!.ping();
      await delay(700);
      await clients[0]!.ping();
      await assert.rejects(clients[1]!.ping(), /404|no such session|Not Found/i);
    } finally {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
      await served.close();
    }
  });
});
