/** The crawl and batch watcher: the hosted SDK's WebSocket on a job's status route. */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createRequire } from 'node:module';
import Firecrawl from '@mendable/firecrawl-js';
import { WebSocket } from 'undici';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

/** The SDK the hosted CLI (firecrawl-cli 1.23) carries, an older release of the same client. */
const CliFirecrawl = (createRequire(createRequire(import.meta.url).resolve('firecrawl-cli/package.json'))('firecrawl') as { default: typeof Firecrawl })
  .default;

describe('the job watcher', () => {
  let site: TestServer;
  let served: ServingWebwatch;
  let acme: string;
  let rival: string;
  let log = '';
  const held: (() => void)[] = [];
  before(async () => {
    const page = (body: string) => (_q: unknown, r: import('node:http').ServerResponse) => void r.writeHead(200, { 'content-type': 'text/html' }).end(body);
    site = await startServer({
      '/': page('<main><p>home</p><a href="/one">one</a><a href="/two">two</a><a href="/held">held</a></main>'),
      '/one': page('<main><p>one</p></main>'),
      '/two': page('<main><p>two</p></main>'),
      '/held': (_q, r) => void held.push(() => r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>held</p></main>')),
    });
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => (log += chunk.toString()));
    served = await serveWebwatch({ log: stream });
    acme = (await served.keys.create('acme', new Date())).key;
    rival = (await served.keys.create('rival', new Date())).key;
  });
  after(async () => {
    for (const release of held) release();
    await served.stop();
    await site.close();
  });
  const until = async (check: () => boolean | Promise<boolean>) => {
    for (let i = 0; i < 300; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('timed out');
  };
  const wsUrl = (path: string) => `${served.origin.replace(/^http/, 'ws')}/v2${path}`;

  it('streams every document of a crawl, the ones before it opened and after, then done', async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const { id } = await client.startCrawl(`${site.origin}/`, { sitemap: 'skip', ignoreRobotsTxt: true, limit: 10 });
    await until(() => held.length === 1);
    const watcher = client.watcher(id, { kind: 'crawl', pollInterval: 60 });
    const documents: Body[] = [];
    let done: Body;
    watcher.on('document', (document) => documents.push(document));
    watcher.on('done', (state) => (done = state));
    const finished = watcher.start();
    await until(() => documents.length === 3);
    held.shift()!();
    await finished;
    assert.deepEqual(documents.map((d) => new URL(d.metadata.url).pathname).sort(), ['/', '/held', '/one', '/two']);
    assert.equal(done.status, 'completed');
    assert.deepEqual([done.total, done.completed], [4, 4]);
    assert.ok(!log.includes(acme), 'the key, sent as the subprotocol, is never logged');
    assert.match(log, /"statusCode":101|\/v2\/crawl\//);
  });

  it('a cancelled crawl ends its watchers with an error', async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const { id } = await client.startCrawl(`${site.origin}/held?cancelled`, { sitemap: 'skip', ignoreRobotsTxt: true, limit: 1 });
    await until(() => held.length === 1);
    const messages: Body[] = [];
    const socket = new WebSocket(wsUrl(`/crawl/${id}`), acme);
    socket.onmessage = (event) => messages.push(JSON.parse(String(event.data)));
    const closed = new Promise<number>((resolve) => (socket.onclose = (event) => resolve(event.code)));
    await new Promise((resolve) => (socket.onopen = resolve));
    assert.equal(socket.protocol, acme, 'the subprotocol is accepted');
    await client.cancelCrawl(id);
    assert.equal(await closed, 1000);
    assert.deepEqual(messages.at(-1), { type: 'error', error: 'cancelled', data: { status: 'cancelled', total: 0, completed: 0, creditsUsed: 0 } });
    held.shift()!();
  });

  it("refuses a bad key before the upgrade, and another team's job as unknown", async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const { id } = await client.startCrawl(`${site.origin}/one`, { sitemap: 'skip', ignoreRobotsTxt: true, limit: 1 });
    const bad = new WebSocket(wsUrl(`/crawl/${id}`), 'ww_not_a_key_0000000000');
    let opened = false;
    bad.onopen = () => (opened = true);
    await new Promise((resolve) => (bad.onclose = resolve));
    assert.equal(opened, false);
    const other = new WebSocket(wsUrl(`/crawl/${id}`), rival);
    const messages: Body[] = [];
    other.onmessage = (event) => messages.push(JSON.parse(String(event.data)));
    const code = await new Promise<number>((resolve) => (other.onclose = (event) => resolve(event.code)));
    assert.equal(code, 4404);
    assert.match(messages[0].error, /no crawl job with this id for this key's team/);
    // The plain status route still answers on the same path.
    assert.equal((await call(served, acme, 'GET', `/crawl/${id}`)).status, 200);
  });

  it('watches batch scrapes too', async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const { id } = await client.startBatchScrape([`${site.origin}/one`, `${site.origin}/two`]);
    const watcher = client.watcher(id, { kind: 'batch', pollInterval: 60 });
    const documents: Body[] = [];
    watcher.on('document', (document) => documents.push(document));
    let done: Body;
    watcher.on('done', (state) => (done = state));
    await watcher.start();
    assert.equal(done.status, 'completed');
    assert.deepEqual(documents.map((d) => new URL(d.metadata.url).pathname).sort(), ['/one', '/two']);
  });

  it('opens with a catchup: the status, the counts and the pages stored so far, then the pages after, then done', async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const { id } = await client.startCrawl(`${site.origin}/?catchup`, { sitemap: 'skip', ignoreRobotsTxt: true, limit: 10, scrapeOptions: { maxAge: 0 } });
    await until(() => held.length === 1);
    await until(async () => ((await call(served, acme, 'GET', `/crawl/${id}`)).body as Body).completed === 3);
    const messages: Body[] = [];
    const socket = new WebSocket(wsUrl(`/crawl/${id}`), acme);
    socket.onmessage = (event) => messages.push(JSON.parse(String(event.data)));
    const closed = new Promise<void>((resolve) => (socket.onclose = () => resolve()));
    await until(() => messages.length === 1);
    const [catchup] = messages;
    assert.equal(catchup.type, 'catchup');
    assert.deepEqual(
      { ...catchup.data, data: catchup.data.data.map((d: Body) => new URL(d.metadata.url).pathname).sort(), expiresAt: typeof catchup.data.expiresAt },
      { id, status: 'scraping', total: 3, completed: 3, creditsUsed: 3, expiresAt: 'string', next: null, data: ['/', '/one', '/two'] },
    );
    held.shift()!();
    await closed;
    assert.deepEqual(
      messages.slice(1).map((m) => (m.type === 'document' ? new URL(m.data.metadata.url).pathname : m.type)),
      ['/held', 'status', 'done'],
    );
    assert.deepEqual(messages.at(-2).data, { status: 'completed', total: 4, completed: 4, creditsUsed: 4, data: [] });
    assert.deepEqual(messages.at(-1).data, { status: 'completed', total: 4, completed: 4, creditsUsed: 4, data: [] });
  });

  it('a job that ended before the watcher opened is one catchup with every page, then done', async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const job = await client.batchScrape([`${site.origin}/one`, `${site.origin}/two`], { pollInterval: 0.1 });
    assert.equal(job.status, 'completed');
    const messages: Body[] = [];
    const socket = new WebSocket(wsUrl(`/batch/scrape/${job.id}`), acme);
    socket.onmessage = (event) => messages.push(JSON.parse(String(event.data)));
    await new Promise((resolve) => (socket.onclose = resolve));
    assert.deepEqual(
      messages.map((m) => m.type),
      ['catchup', 'status', 'done'],
    );
    assert.equal(messages[0].data.status, 'completed');
    assert.equal(messages[0].data.data.length, 2);
  });

  // The hosted SDK's own e2e cases of the watcher (its src/__tests__/e2e/v2/watcher.test.ts), as
  // it runs them, with the SDK 4.42 and the older one the hosted CLI carries.
  for (const [release, Client] of [
    ['4.42', Firecrawl],
    ['of the CLI', CliFirecrawl],
  ] as const) {
    it(`passes the SDK ${release}'s watcher e2e cases: a crawl watcher, and a batch watcher with kind, pollInterval and timeout`, async () => {
      const client = new Client({ apiKey: acme, apiUrl: served.origin });
      const watch = async (id: string, options: Body) => {
        const watcher = client.watcher(id, options);
        const snapshots: Body[] = [];
        let documents = 0;
        watcher.on('snapshot', (snap: Body) => snapshots.push(snap));
        watcher.on('document', () => documents++);
        const final = await new Promise<Body>((resolve) => {
          watcher.on('done', resolve);
          watcher.on('error', resolve);
          void watcher.start();
        });
        watcher.close();
        return { final, snapshots, documents };
      };
      const crawl = await client.startCrawl(`${site.origin}/one`, { sitemap: 'skip', ignoreRobotsTxt: true, limit: 3 });
      const crawled = await watch(crawl.id, { pollInterval: 2 });
      assert.equal(crawled.final.status, 'completed');
      assert.ok(Array.isArray(crawled.final.data) && typeof crawled.final.id === 'string');
      assert.ok(crawled.snapshots.length >= 1, 'at least one snapshot');
      for (const snap of crawled.snapshots) {
        assert.ok(['scraping', 'completed', 'failed', 'cancelled'].includes(snap.status), snap.status);
        assert.equal(typeof snap.completed, 'number');
        assert.equal(typeof snap.total, 'number');
      }
      assert.equal(crawled.documents, 1);

      const batch = await client.startBatchScrape([`${site.origin}/one`, `${site.origin}/two`], {
        options: { formats: ['markdown'] },
        ignoreInvalidURLs: true,
      });
      const batched = await watch(batch.id, { kind: 'batch', pollInterval: 2, timeout: 180 });
      assert.equal(batched.final.status, 'completed');
      assert.ok(batched.snapshots.length >= 1, 'at least one snapshot');
      assert.ok(batched.snapshots.some((snap) => snap.status === 'completed') || batched.final.status !== 'completed');
      assert.equal(batched.documents, 2);
    });
  }
});
