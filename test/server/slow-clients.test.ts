/**
 * Slow and idle clients cannot hold serve's sockets: headers, whole requests and idle
 * keep-alive connections each have a time limit, and when the connections are at their cap a
 * newcomer takes the place of one waiting for headers, or is closed when all have requests under
 * way, while an answer that rightly takes long (a slow page's scrape) is not cut.
 * The limits are shortened here; their defaults are in SERVER_DEFAULTS and docs/security.md.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const TIMEOUTS = { headersMs: 600, requestMs: 1200, keepAliveMs: 600 };

interface Watched {
  socket: Socket;
  /** What the server sent, as text. */
  received(): string;
  /** Resolves with the time the server closed the connection, measured from `since`. */
  closed: Promise<number>;
}

function open(origin: string): Promise<Watched> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const since = Date.now();
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    const closed = new Promise<number>((done) => socket.on('close', () => done(Date.now() - since)));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

/** Writes `text` a character at a time, one every `everyMs`, while the socket is open. */
function trickle(socket: Socket, text: string, everyMs: number): NodeJS.Timeout {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || at >= text.length) return clearInterval(timer);
    socket.write(text[at++]!);
  }, everyMs);
  return timer;
}

/** Whether `promise` settles within `ms`. */
const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), ms).unref())]);

describe('slow clients', { timeout: 60_000 }, () => {
  let served: ServingWebwatch;
  let site: TestServer;
  let key: string;
  before(async () => {
    site = await startServer({
      '/slow': (_request, response) =>
        void setTimeout(() => response.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>worth the wait</p></main>'), 2500),
    });
    served = await serveWebwatch({ timeouts: TIMEOUTS, maxConnections: 40 });
    key = (await served.keys.create('acme', new Date())).key;
  });
  after(async () => {
    await served.stop();
    await site.close();
  });

  it('closes connections that send their headers a byte at a time, with 408', async () => {
    const clients = await Promise.all(Array.from({ length: 20 }, () => open(served.origin)));
    const timers = clients.map((client) =>
      trickle(client.socket, 'GET /v2/monitor HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n', 150),
    );
    try {
      for (const client of clients) {
        assert.ok(await within(client.closed, 5000), 'the server closed the connection');
        assert.match(client.received(), /^HTTP\/1\.1 408 /);
      }
    } finally {
      for (const timer of timers) clearInterval(timer);
    }
  });

  it('closes a request whose body comes too slowly, with 408, even with a valid key', async () => {
    const client = await open(served.origin);
    const body = JSON.stringify({ url: `${site.origin}/slow` });
    client.socket.write(
      `POST /v2/scrape HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const timer = trickle(client.socket, body, 150);
    try {
      assert.ok(await within(client.closed, 5000), 'the server closed the connection');
      assert.match(client.received(), /^HTTP\/1\.1 408 /);
      assert.match(client.received(), /"code":"REQUEST_TIMEOUT"/);
    } finally {
      clearInterval(timer);
    }
  });

  it('closes an idle keep-alive connection after its timeout, not before', async () => {
    const client = await open(served.origin);
    client.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.ok(await within(client.closed, 4000), 'the server closed the idle connection');
    assert.match(client.received(), /^HTTP\/1\.1 200 /);
    assert.ok((await client.closed) >= TIMEOUTS.keepAliveMs - 100, 'not before the keep-alive timeout');
  });

  it('lets an answer take longer than the request timeout: a slow page is scraped', async () => {
    const response = await call<{ data: { markdown: string } }>(served, key, 'POST', '/scrape', { url: `${site.origin}/slow` });
    assert.equal(response.status, 200);
    assert.match(response.body.data.markdown, /worth the wait/);
  });
});

describe('the connection cap', { timeout: 30_000 }, () => {
  let served: ServingWebwatch;
  let key: string;
  before(async () => {
    served = await serveWebwatch({ timeouts: { headersMs: 20_000, requestMs: 20_000 }, maxConnections: 5 });
    key = (await served.keys.create('acme', new Date())).key;
  });
  after(() => served.stop());

  it('when full, a newcomer takes the place of the connection that has waited longest for headers', async () => {
    const held: Watched[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        held.push(await open(served.origin));
        // In order: the first is the one that has waited longest.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      const newcomer = await open(served.origin);
      held.push(newcomer);
      assert.ok(await within(held[0]!.closed, 2000), 'the connection that waited longest is closed');
      newcomer.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.match(newcomer.received(), /^HTTP\/1\.1 200 /);
      for (const client of held.slice(1, 5)) assert.equal(client.socket.destroyed, false, 'the others stay open');
    } finally {
      for (const client of held) client.socket.destroy();
      await Promise.all(held.map((client) => client.closed));
    }
  });

  it('closes a newcomer at once when every connection has a request under way, and takes new ones once others close', async () => {
    const held = await Promise.all(Array.from({ length: 5 }, () => open(served.origin)));
    try {
      // Whole headers with a valid key, a body still to come: each request is under way.
      for (const client of held)
        client.socket.write(
          `POST /v2/scrape HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{`,
        );
      await new Promise((resolve) => setTimeout(resolve, 300));
      const beyond = await open(served.origin).catch(() => undefined);
      if (beyond) held.push(beyond);
      if (beyond) assert.ok(await within(beyond.closed, 2000), 'the sixth connection is closed at once');
      for (const client of held.slice(0, 5)) assert.equal(client.socket.destroyed, false, 'the first five stay open');
    } finally {
      for (const client of held) client.socket.destroy();
      await Promise.all(held.map((client) => client.closed));
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const health = await fetch(`${served.origin}/health`);
    assert.equal(health.status, 200);
  });
});
