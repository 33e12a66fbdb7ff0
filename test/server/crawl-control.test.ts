/** Crawls on serve under control: cancel, the active list, a start page that fails, and a bounded drain. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch as serve } from '../helpers/webwatch-server.js';
import { sqlRow } from '../helpers/sql.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

describe('crawl control on serve', () => {
  let site: TestServer;
  let fetched = 0;
  before(async () => {
    // A site of slow pages, each linking to the next: a crawl of it takes a while.
    site = await startServer({}, (request, response) => {
      fetched++;
      const n = Number(/\/p(\d+)/.exec(request.url ?? '')?.[1] ?? 0);
      setTimeout(() => response.writeHead(200, { 'content-type': 'text/html' }).end(`<main><p>page ${n}</p><a href="/p${n + 1}">next</a></main>`), 150);
    });
  });
  after(() => site.close());

  it('a running crawl is listed as active, and cancel stops its fetching at once', async () => {
    const started = await serve();
    const key = (await started.keys.create('acme', new Date())).key;
    const client = new Firecrawl({ apiKey: key, apiUrl: started.origin });
    const crawl = await client.startCrawl(`${site.origin}/p0`, { limit: 50, sitemap: 'skip', ignoreRobotsTxt: true, maxConcurrency: 1 } as never);
    // Until its first pages are in.
    for (let i = 0; i < 100 && (await call(started.url, key, 'GET', `/crawl/${crawl.id}`)).body.completed < 2; i++) await new Promise((r) => setTimeout(r, 50));
    const active = await client.getActiveCrawls();
    assert.deepEqual(
      active.crawls.map((c) => [c.id, c.url]),
      [[crawl.id, `${site.origin}/p0`]],
    );
    assert.equal(
      (await call(started.url, (await started.keys.create('rival', new Date())).key, 'GET', '/crawl/active')).body.crawls.length,
      0,
      "another team's crawls are not listed",
    );
    // The hosted API's other name for the list, each crawl with its start time in ISO UTC with milliseconds.
    const ongoing = (await call(started.url, key, 'GET', '/crawl/ongoing')).body.crawls as { id: string; created_at: string }[];
    assert.deepEqual(
      ongoing.map((c) => c.id),
      [crawl.id],
    );
    assert.match(ongoing[0]!.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(Math.abs(Date.parse(ongoing[0]!.created_at) - Date.now()) < 60_000, ongoing[0]!.created_at);

    assert.equal(await client.cancelCrawl(crawl.id), true);
    const fetchedAtCancel = fetched;
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(fetched <= fetchedAtCancel + 1, 'no new page is fetched after the cancel');
    const status = await call(started.url, key, 'GET', `/crawl/${crawl.id}`);
    assert.equal(status.body.status, 'cancelled');
    assert.ok(status.body.completed >= 2 && status.body.completed < 50, `${status.body.completed} pages`);
    const again = await call(started.url, key, 'DELETE', `/crawl/${crawl.id}`);
    assert.deepEqual([again.status, again.body.details.reason], [409, 'the crawl has already ended (cancelled)']);
    assert.deepEqual((await client.getActiveCrawls()).crawls, []);
    await started.stop();
  });

  it('a crawl whose start page cannot be fetched is failed, with the reason', async () => {
    const closed = await startServer({});
    const origin = closed.origin;
    await closed.close();
    const started = await serve();
    const key = (await started.keys.create('acme', new Date())).key;
    const { body } = await call(started.url, key, 'POST', '/crawl', { url: `${origin}/`, sitemap: 'skip', ignoreRobotsTxt: true });
    let status: Body;
    for (let i = 0; i < 100; i++) {
      status = (await call(started.url, key, 'GET', `/crawl/${body.id}`)).body;
      if (status.status !== 'scraping') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(status.status, 'failed');
    assert.match(status.error, /no page could be crawled: connection refused/);
    const errors = (await call(started.url, key, 'GET', `/crawl/${body.id}/errors`)).body.errors;
    assert.equal(errors[0].code, 'SCRAPE_CONNECTION_FAILED');
    await started.stop();
  });

  it('stopping the server gives crawls the drain time, then stops them with the reason', async () => {
    const started = await serve({ drainTimeoutMs: 300 });
    const key = (await started.keys.create('acme', new Date())).key;
    const { body } = await call(started.url, key, 'POST', '/crawl', {
      url: `${site.origin}/p0`,
      limit: 100,
      sitemap: 'skip',
      ignoreRobotsTxt: true,
      maxConcurrency: 1,
    });
    await new Promise((r) => setTimeout(r, 300));
    const t0 = performance.now();
    await started.server.drain();
    assert.ok(performance.now() - t0 < 3000, 'the drain ends soon after its timeout');
    const row = await sqlRow(started.db, 'SELECT status, error FROM crawl_jobs WHERE id = ?', body.id);
    assert.deepEqual(row, { status: 'failed', error: 'the server stopped before the crawl finished' });
    await started.db.close();
  });
});
