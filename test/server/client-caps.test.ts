/**
 * One client cannot shut the others out of serve or of `mcp --http`: the connections of one
 * address are capped well below the server's cap, a connection over its address's cap is
 * closed at once, and when the server is full, connections that have not sent a whole
 * request's headers make room for newcomers. All of 127.0.0.0/8 reaches loopback, so each
 * client here binds an address of its own (127.0.0.2, 127.0.0.3...) and the server tells them
 * apart as it would tell apart hosts.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { serveMcpHttp, type McpHttpServer } from '../../src/mcp/http.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Flood {
  /** Sockets of the flood open now. */
  open(): number;
  /** Sockets open for `ms` or more: a socket the server closes at once is not among them. */
  heldFor(ms: number): number;
  /** Closes every socket and stops reconnecting. */
  stop(): Promise<void>;
}

/**
 * `count` sockets from `localAddress`, each sending one byte and never the rest of a request;
 * with `reconnect`, each socket closed by the server is opened again 50 ms later, as the
 * review's flooder did.
 */
function flood(origin: string, localAddress: string, count: number, reconnect: boolean): Flood {
  const { hostname, port } = new URL(origin);
  const sockets = new Set<Socket>();
  const connectedAt = new WeakMap<Socket, number>();
  let stopped = false;
  const openOne = () => {
    if (stopped) return;
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    sockets.add(socket);
    socket.on('connect', () => {
      connectedAt.set(socket, Date.now());
      socket.write('G');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      if (reconnect && !stopped) setTimeout(openOne, 50);
    });
  };
  for (let i = 0; i < count; i++) openOne();
  return {
    open: () => [...sockets].filter((socket) => !socket.connecting && !socket.destroyed).length,
    heldFor: (ms) => [...sockets].filter((socket) => !socket.destroyed && Date.now() - (connectedAt.get(socket) ?? Infinity) >= ms).length,
    async stop() {
      stopped = true;
      const closing = [...sockets].map(
        (socket) =>
          new Promise((resolve) => {
            socket.once('close', resolve);
            socket.destroy();
          }),
      );
      await Promise.all(closing);
    },
  };
}

/**
 * `method` `path` of `origin` on a connection of its own from `localAddress`, closed after the
 * answer: the status and body, or the error's code as the status.
 */
function askFrom(
  origin: string,
  path: string,
  localAddress: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number | string; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const asked = request(
      { host: hostname, port: Number(port), path, localAddress, agent: false, timeout: 15_000, method: init.method ?? 'GET', headers: init.headers },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    asked.on('timeout', () => asked.destroy(new Error('timed out')));
    asked.on('error', (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? error.message, body: '' }));
    asked.end(init.body);
  });
}

const getFrom = async (origin: string, path: string, localAddress: string) => (await askFrom(origin, path, localAddress)).status;

/** A socket from `localAddress` that sends nothing; resolves once connected, with a promise of its close. */
function quietSocket(origin: string, localAddress: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

const within = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), ms).unref())]);

/** Waits until `count()` reaches `at least`, or `ms` pass; the last count. */
async function settle(count: () => number, atLeast: number, ms: number): Promise<number> {
  const until = Date.now() + ms;
  while (count() < atLeast && Date.now() < until) await delay(50);
  return count();
}

describe('serve: one client cannot take every connection', { timeout: 120_000 }, () => {
  let served: ServingWebwatch;
  before(async () => {
    served = await serveWebwatch({ maxConnections: 100, maxConnectionsPerAddress: 10 });
  });
  after(() => served.stop());

  it('a flood of sockets from one address, reconnecting as they are closed, does not stop /health from another', async () => {
    const flooder = flood(served.origin, '127.0.0.2', 300, true);
    try {
      await delay(1000);
      const statuses: (number | string)[] = [];
      for (let i = 0; i < 20; i++) statuses.push(await getFrom(served.origin, '/health', '127.0.0.3'));
      assert.deepEqual(statuses, Array(20).fill(200));
      assert.ok(flooder.heldFor(1000) <= 10, `the flooding address holds ${flooder.heldFor(1000)} connections, beyond its cap of 10`);
    } finally {
      await flooder.stop();
    }
  });

  it("closes a connection over its address's cap at once; the address's others stay open", async () => {
    const held = await Promise.all(Array.from({ length: 10 }, () => quietSocket(served.origin, '127.0.0.4')));
    try {
      // The server counts a connection once it has accepted it: give it the moment to.
      await delay(200);
      const over = await quietSocket(served.origin, '127.0.0.4').catch(() => undefined);
      if (over) assert.ok(await within(over.closed, 2000), 'the eleventh connection of the address is closed');
      for (const { socket } of held) assert.equal(socket.destroyed, false, 'the first ten stay open');
      assert.equal(await getFrom(served.origin, '/health', '127.0.0.5'), 200);
    } finally {
      for (const { socket } of held) socket.destroy();
      await Promise.all(held.map(({ closed }) => closed));
    }
  });
});

describe('serve, full: connections without whole headers make room', { timeout: 120_000 }, () => {
  let served: ServingWebwatch;
  let site: TestServer;
  let key: string;
  before(async () => {
    site = await startServer({
      '/slow': (_request, response) =>
        void setTimeout(() => response.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>worth the wait</p></main>'), 3000),
    });
    served = await serveWebwatch({ maxConnections: 30, maxConnectionsPerAddress: 10 });
    key = (await served.keys.create('acme', new Date())).key;
  });
  after(async () => {
    await served.stop();
    await site.close();
  });

  it('a client sending whole requests gets in while slow senders from several addresses fill the server, and an answer under way is not cut', async () => {
    // A request under way: its headers are whole, so it is never closed to make room.
    const scrape = askFrom(served.origin, '/v2/scrape', '127.0.0.1', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.origin}/slow`, maxAge: 0 }),
    });
    await delay(300);
    const floods = ['127.0.0.6', '127.0.0.7', '127.0.0.8'].map((address) => flood(served.origin, address, 10, false));
    try {
      const holding = await settle(() => floods.reduce((sum, one) => sum + one.open(), 0), 29, 5000);
      assert.ok(holding >= 29, `the slow senders hold ${holding} of the 30 connections`);
      await delay(300);
      for (let i = 0; i < 5; i++) assert.equal(await getFrom(served.origin, '/health', '127.0.0.9'), 200);
      const answer = await scrape;
      assert.equal(answer.status, 200);
      assert.match((JSON.parse(answer.body) as { data: { markdown: string } }).data.markdown, /worth the wait/);
    } finally {
      await Promise.all(floods.map((one) => one.stop()));
      await scrape;
    }
  });
});

describe('serve: the per-address cap turned off', { timeout: 60_000 }, () => {
  let served: ServingWebwatch;
  before(async () => {
    served = await serveWebwatch({ maxConnections: 100, maxConnectionsPerAddress: 0 });
  });
  after(() => served.stop());

  it('lets one address (a reverse proxy) hold as many connections as the server takes', async () => {
    const held = await Promise.all(Array.from({ length: 40 }, () => quietSocket(served.origin, '127.0.0.10')));
    try {
      await delay(300);
      for (const { socket } of held) assert.equal(socket.destroyed, false);
      assert.equal(await getFrom(served.origin, '/health', '127.0.0.10'), 200);
    } finally {
      for (const { socket } of held) socket.destroy();
      await Promise.all(held.map(({ closed }) => closed));
    }
  });
});

describe('mcp --http: one client cannot take every connection', { timeout: 120_000 }, () => {
  let served: McpHttpServer;
  let origin: string;
  before(async () => {
    served = await serveMcpHttp({
      host: '127.0.0.1',
      port: 0,
      session: () => new McpServer({ name: 'test', version: '1' }),
      maxConnections: 100,
      maxConnectionsPerAddress: 10,
    });
    origin = new URL(served.url).origin;
  });
  after(() => served.close());

  it('caps the sockets of a flooding address, and answers another address all the while', async () => {
    const flooder = flood(origin, '127.0.0.2', 300, true);
    try {
      await delay(1000);
      // Without a session, GET /mcp is a 400 with its JSON-RPC error: the server answered.
      const statuses: (number | string)[] = [];
      for (let i = 0; i < 20; i++) statuses.push(await getFrom(origin, '/mcp', '127.0.0.3'));
      assert.deepEqual(statuses, Array(20).fill(400));
      assert.ok(flooder.heldFor(1000) <= 10, `the flooding address holds ${flooder.heldFor(1000)} connections, beyond its cap of 10`);
    } finally {
      await flooder.stop();
    }
  });
});
