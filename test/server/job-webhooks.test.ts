/**
 * Webhooks of crawls and batch scrapes on serve, through the hosted SDK: a site and a webhook
 * receiver on loopback. Events in order (started, a page per stored document, completed or
 * failed), signed, filtered by `events`, retried in order after a failure, and refused when the
 * URL is bad or private.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import Firecrawl, { type SdkError } from '@mendable/firecrawl-js';
import { readBody, startServer, type TestServer } from '../helpers/server.js';
import { sqlRows } from '../helpers/sql.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

interface Delivery {
  at: number;
  text: string;
  body: Body;
  headers: IncomingMessage['headers'];
}

const SECRET = 'hook-secret';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhooks of crawls and batch scrapes', () => {
  let site: TestServer;
  let receiver: TestServer;
  let serve: ServingWebwatch;
  let client: Firecrawl;
  let key: string;
  let received: Delivery[] = [];
  /** Answers for the next deliveries, in order; then 200. */
  let answers: ((response: ServerResponse) => void)[] = [];

  before(async () => {
    site = await startServer(
      {
        '/': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>home</p><a href="/a">a</a> <a href="/b">b</a></main>'),
        '/a': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>page a</p></main>'),
        '/b': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>page b</p></main>'),
      },
      (request, response) => {
        // Slow pages, each linking to the next: a crawl that is still running when it is cancelled.
        const n = Number(/\/slow(\d+)/.exec(request.url ?? '')?.[1] ?? 0);
        setTimeout(() => response.writeHead(200, { 'content-type': 'text/html' }).end(`<main><p>slow ${n}</p><a href="/slow${n + 1}">next</a></main>`), 200);
      },
    );
    receiver = await startServer({}, async (request, response) => {
      const text = await readBody(request);
      received.push({ at: performance.now(), text, body: JSON.parse(text), headers: request.headers });
      const answer = answers.shift();
      if (answer) answer(response);
      else response.writeHead(200).end('ok');
    });
    serve = await serveWebwatch({ webhookSecret: SECRET });
    key = (await serve.keys.create('acme', new Date())).key;
    client = new Firecrawl({ apiKey: key, apiUrl: serve.origin });
  });
  after(async () => {
    await serve.stop();
    await site.close();
    await receiver.close();
  });
  beforeEach(() => {
    received = [];
    answers = [];
  });

  /** Polls the job's status until it has ended; when it was first read ended. */
  async function ended(path: string): Promise<{ status: Body; at: number }> {
    for (let i = 0; i < 400; i++) {
      const status = (await call(serve.url, key, 'GET', path)).body;
      if (status.status !== 'scraping') return { status, at: performance.now() };
      await sleep(25);
    }
    throw new Error(`${path} did not end`);
  }

  /** Waits until a delivery of `type` (of job `id`) has come, within `ms`; the deliveries of the job then. */
  async function until(id: string, type: string, ms = 5000): Promise<Delivery[]> {
    const stop = performance.now() + ms;
    while (performance.now() < stop) {
      const ofJob = received.filter((delivery) => delivery.body.id === id);
      if (ofJob.some((delivery) => delivery.body.type === type)) return ofJob;
      await sleep(10);
    }
    throw new Error(`no ${type} delivery of ${id} within ${ms} ms: got ${received.map((d) => d.body.type).join(', ')}`);
  }

  const signatureOf = (text: string) => `sha256=${createHmac('sha256', SECRET).update(text).digest('hex')}`;

  it("a crawl's webhook hears started, each stored page with the status's scrapeId, and completed, in order, signed, soon after the status reads completed", async () => {
    const crawl = await client.startCrawl(`${site.origin}/`, {
      limit: 3,
      sitemap: 'skip',
      ignoreRobotsTxt: true,
      webhook: { url: `${receiver.origin}/hook?token=t1`, headers: { 'X-Team': 'blue' }, metadata: { ticket: '42' } },
    });
    const { status, at } = await ended(`/crawl/${crawl.id}`);
    assert.equal(status.status, 'completed');
    assert.equal(status.data.length, 3);
    const deliveries = await until(crawl.id, 'crawl.completed');
    const completedAt = deliveries.find((d) => d.body.type === 'crawl.completed')!.at;
    // About a second at most; the margin is for a loaded machine.
    assert.ok(completedAt - at < 1500, `crawl.completed came ${Math.round(completedAt - at)} ms after the status read completed`);

    assert.deepEqual(
      deliveries.map((d) => d.body.type),
      ['crawl.started', 'crawl.page', 'crawl.page', 'crawl.page', 'crawl.completed'],
    );
    const pages = deliveries.filter((d) => d.body.type === 'crawl.page');
    const scrapeIdsOf = (documents: Body[]) => documents.map((document) => document.metadata.scrapeId).sort();
    assert.deepEqual(scrapeIdsOf(pages.map((d) => d.body.data[0])), scrapeIdsOf(status.data));
    assert.equal(new Set(scrapeIdsOf(status.data)).size, 3, 'three documents, three scrapeIds');
    // Each page's document is the one the status gives.
    for (const page of pages) {
      assert.equal(page.body.data.length, 1);
      assert.deepEqual(
        page.body.data[0],
        status.data.find((document: Body) => document.metadata.scrapeId === page.body.data[0].metadata.scrapeId),
      );
    }
    for (const delivery of deliveries) {
      assert.equal(delivery.headers['x-webwatch-signature'], signatureOf(delivery.text), 'the signature is the HMAC of the body');
      assert.equal(delivery.headers['x-team'], 'blue');
      assert.equal(delivery.body.id, crawl.id);
      assert.deepEqual(delivery.body.metadata, { ticket: '42' });
      assert.equal(delivery.body.success, true);
    }
    assert.equal(new Set(deliveries.map((d) => d.body.webhookId)).size, deliveries.length, 'each delivery has its own webhookId');
    assert.deepEqual(deliveries.find((d) => d.body.type === 'crawl.started')!.body.data, []);
    // Ended deliveries keep no copy of the documents: the job's status has them.
    assert.deepEqual(await sqlRows(serve.db, "SELECT count(*) AS n FROM outbox WHERE job_id = ? AND (status != 'delivered' OR body != '')", crawl.id), [
      { n: 0 },
    ]);
  });

  it("a batch scrape's webhook takes only the events asked for, from a string URL or an object", async () => {
    const batch = await client.startBatchScrape([`${site.origin}/a`, `${site.origin}/b`], {
      options: { formats: ['markdown'] },
      webhook: { url: `${receiver.origin}/hook`, events: ['page', 'completed'] },
      zeroDataRetention: true,
    });
    const { status } = await ended(`/batch/scrape/${batch.id}`);
    const deliveries = await until(batch.id, 'batch_scrape.completed');
    assert.deepEqual(
      deliveries.map((d) => d.body.type),
      ['batch_scrape.page', 'batch_scrape.page', 'batch_scrape.completed'],
    );
    assert.deepEqual(
      deliveries
        .slice(0, 2)
        .map((d) => d.body.data[0].metadata.scrapeId)
        .sort(),
      status.data.map((document: Body) => document.metadata.scrapeId).sort(),
    );
    assert.deepEqual(
      deliveries
        .slice(0, 2)
        .map((d) => d.body.data[0].markdown)
        .sort(),
      ['page a', 'page b'],
    );
    // Zero data retention: no delivered body is kept.
    assert.deepEqual(await sqlRows(serve.db, 'SELECT body FROM outbox WHERE job_id = ?', batch.id), [{ body: '' }, { body: '' }, { body: '' }]);

    const plain = await client.startBatchScrape([`${site.origin}/a`], { webhook: `${receiver.origin}/plain` });
    const all = await until(plain.id, 'batch_scrape.completed');
    assert.deepEqual(
      all.map((d) => d.body.type),
      ['batch_scrape.started', 'batch_scrape.page', 'batch_scrape.completed'],
    );
    assert.deepEqual(all[0]!.body.metadata, {});
  });

  it('a receiver that fails is tried again, and the events after the failed one wait for it', async () => {
    answers = [(response) => void response.writeHead(503, { 'retry-after': '1' }).end('busy')];
    const crawl = await client.startCrawl(`${site.origin}/`, { limit: 2, sitemap: 'skip', ignoreRobotsTxt: true, webhook: `${receiver.origin}/hook` });
    const deliveries = await until(crawl.id, 'crawl.completed', 8000);
    // The started event twice (the 503, then its retry a second later, with the same body), then the others.
    assert.deepEqual(
      deliveries.map((d) => d.body.type),
      ['crawl.started', 'crawl.started', 'crawl.page', 'crawl.page', 'crawl.completed'],
    );
    assert.equal(deliveries[1]!.text, deliveries[0]!.text, 'a retry sends the same body, webhookId included');
    assert.ok(deliveries[1]!.at - deliveries[0]!.at >= 900, `retried after ${Math.round(deliveries[1]!.at - deliveries[0]!.at)} ms, as Retry-After said`);
    assert.deepEqual(await sqlRows(serve.db, 'SELECT attempts FROM outbox WHERE job_id = ? ORDER BY attempts DESC LIMIT 1', crawl.id), [{ attempts: 2 }]);
  });

  it('a crawl that fails, or is cancelled, sends failed with the reason', async () => {
    const closed = await startServer({});
    const gone = closed.origin;
    await closed.close();
    const crawl = await client.startCrawl(`${gone}/`, { sitemap: 'skip', ignoreRobotsTxt: true, webhook: `${receiver.origin}/hook` });
    const { status } = await ended(`/crawl/${crawl.id}`);
    assert.equal(status.status, 'failed');
    const deliveries = await until(crawl.id, 'crawl.failed');
    assert.deepEqual(
      deliveries.map((d) => d.body.type),
      ['crawl.started', 'crawl.failed'],
    );
    assert.equal(deliveries[1]!.body.success, false);
    assert.equal(deliveries[1]!.body.error, status.error);
    assert.match(deliveries[1]!.body.error, /no page could be crawled/);

    const slow = await client.startCrawl(`${site.origin}/slow0`, {
      limit: 50,
      sitemap: 'skip',
      ignoreRobotsTxt: true,
      maxConcurrency: 1,
      webhook: { url: `${receiver.origin}/hook`, headers: { authorization: 'Bearer receiver-token' } },
    });
    await until(slow.id, 'crawl.page');
    // The active list shows the crawl's options, never its webhook's headers.
    const active = (await call(serve.url, key, 'GET', '/crawl/active')).body;
    assert.equal(active.crawls[0].id, slow.id);
    assert.doesNotMatch(JSON.stringify(active), /receiver-token/);
    assert.equal(await client.cancelCrawl(slow.id), true);
    const cancelled = await until(slow.id, 'crawl.failed');
    assert.equal(cancelled.at(-1)!.body.error, 'cancelled');
    assert.equal(cancelled.at(-1)!.headers.authorization, 'Bearer receiver-token');
    await sleep(300);
    assert.equal(received.filter((d) => d.body.id === slow.id && d.body.type === 'crawl.failed').length, 1, 'failed once');
  });

  it('a bad webhook is a 400 naming the field; a private one, on a server that refuses them, a 403 naming its URL', async () => {
    const refused = async (start: () => Promise<unknown>) => {
      try {
        await start();
      } catch (error) {
        return error as SdkError;
      }
      throw new Error('the request was accepted');
    };
    const notUrl = await refused(() => client.startCrawl(`${site.origin}/`, { webhook: 'not a url' }));
    assert.equal(notUrl.status, 400);
    assert.deepEqual(notUrl.details, [{ path: 'webhook', message: 'must be an absolute URL starting with http:// or https://' }]);
    const ftp = await refused(() => client.startBatchScrape([`${site.origin}/a`], { webhook: { url: 'ftp://example.com/hook' } }));
    assert.equal(ftp.status, 400);
    assert.deepEqual(ftp.details, [{ path: 'webhook.url', message: 'must use http or https, not ftp' }]);
    const { status, body } = await call(serve.url, key, 'POST', '/crawl', {
      url: `${site.origin}/`,
      webhook: { url: `${receiver.origin}/hook`, events: ['finished'] },
    });
    assert.equal(status, 400);
    assert.equal(body.code, 'BAD_REQUEST');
    assert.deepEqual(
      body.details.map((d: Body) => d.path),
      ['webhook.events[0]'],
    );
    assert.match(body.details[0].message, /started, page, completed, failed/);

    const guarded = await serveWebwatch({ allowPrivateTargets: false });
    try {
      const guardedKey = (await guarded.keys.create('acme', new Date())).key;
      for (const [path, payload] of [
        ['/crawl', { url: `${site.origin}/`, webhook: `http://localhost:${new URL(receiver.origin).port}/hook` }],
        ['/batch/scrape', { urls: [`${site.origin}/a`], webhook: { url: `http://localhost:${new URL(receiver.origin).port}/hook` } }],
      ] as const) {
        const answer = await call(guarded.url, guardedKey, 'POST', path, payload);
        assert.equal(answer.status, 403, path);
        assert.equal(answer.body.details.url, `http://localhost:${new URL(receiver.origin).port}/hook`);
      }
      assert.deepEqual(await sqlRows(guarded.db, 'SELECT count(*) AS n FROM crawl_jobs'), [{ n: 0 }], 'nothing was queued');
    } finally {
      await guarded.stop();
    }
    assert.equal(received.length, 0);
  });
});
