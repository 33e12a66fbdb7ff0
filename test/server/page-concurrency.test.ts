/**
 * Concurrency as the hosted API counts it: the page scrapes a team runs at once. Crawl and batch
 * pages wait for the team's page slots instead of being refused, the limit is really reached, a
 * job's `maxConcurrency` caps its own pages, queued work counts none, and a direct scrape finding
 * no slot is 429. The target site counts the requests it serves at once, so what is asserted is
 * what reached the network, not what webwatch says of itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { waitFor } from '../helpers/wait.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

/** A site whose /slow/ pages answer after `delayMs`, counting how many it serves at once. */
async function countingSite(delayMs: number) {
  let now = 0;
  let peak = 0;
  const site: TestServer & { peak(): number; running(): number; reset(): void } = Object.assign(
    await startServer({}, (request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      if (path === '/robots.txt' || path === '/sitemap.xml') return void response.writeHead(404).end();
      if (path === '/fast') return void response.writeHead(200, { 'content-type': 'text/html' }).end('<title>fast</title><p>fast</p>');
      // The crawl's start page links to 30 slow pages below it.
      if (path === '/site/') {
        const links = Array.from({ length: 30 }, (_, i) => `<a href="/site/page-${i}">${i}</a>`).join('');
        return void response.writeHead(200, { 'content-type': 'text/html' }).end(`<title>start</title>${links}`);
      }
      now++;
      peak = Math.max(peak, now);
      setTimeout(() => {
        now--;
        response.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${path}</title><p>${path}</p>`);
      }, delayMs);
    }),
    { peak: () => peak, running: () => now, reset: () => void (peak = 0) },
  );
  return site;
}

const slowUrls = (site: TestServer, name: string, count: number) => Array.from({ length: count }, (_, i) => `${site.origin}/slow/${name}-${i}`);

describe('page concurrency of a team', () => {
  let site: Awaited<ReturnType<typeof countingSite>>;
  let served: ServingWebwatch;
  let client: Firecrawl;
  let key: string;

  before(async () => {
    site = await countingSite(600);
    served = await serveWebwatch({ concurrencyPerTeam: 20 });
    key = (await served.keys.create('acme', new Date())).key;
    client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
  });
  after(async () => {
    await served.stop();
    await site.close();
  });

  it('answers the check at the top level, as the hosted API does: no page running is 0', async () => {
    const answer = await call(served, key, 'GET', '/concurrency-check');
    assert.deepEqual(answer.body, { success: true, concurrency: 0, maxConcurrency: 20 });
    assert.deepEqual(await client.getConcurrency(), { concurrency: 0, maxConcurrency: 20 });
  });

  it('runs 40 batch pages 20 at a time, all of them, and counts them while they run', async () => {
    site.reset();
    const started = await client.startBatchScrape(slowUrls(site, 'forty', 40), { options: { formats: ['markdown'], maxAge: 0 } });
    let seen = 0;
    for (let i = 0; i < 100 && seen < 20; i++) {
      seen = Math.max(seen, (await client.getConcurrency()).concurrency);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(seen, 20, 'the check counts each running page');
    const finished = await waitFor(async () => {
      const status = await client.getBatchScrapeStatus(started.id);
      return status.status === 'completed' ? status : undefined;
    });
    assert.equal(finished.completed, 40);
    assert.ok(finished.data.every((document) => document.metadata?.statusCode === 200));
    assert.equal(site.peak(), 20, 'the limit is reached and never passed');
    assert.equal((await client.getConcurrency()).concurrency, 0, 'given back once done');
  });

  it("caps a job's pages at its maxConcurrency: 5 for one job, 10 for two", async () => {
    site.reset();
    const one = await client.startBatchScrape(slowUrls(site, 'five', 10), { options: { maxAge: 0 }, maxConcurrency: 5 });
    await waitFor(async () => ((await client.getBatchScrapeStatus(one.id)).status === 'completed' ? true : undefined));
    assert.equal(site.peak(), 5);
    site.reset();
    const jobs = await Promise.all(
      ['ten-a', 'ten-b'].map((name) => client.startBatchScrape(slowUrls(site, name, 10), { options: { maxAge: 0 }, maxConcurrency: 5 })),
    );
    for (const job of jobs) await waitFor(async () => ((await client.getBatchScrapeStatus(job.id)).status === 'completed' ? true : undefined));
    assert.equal(site.peak(), 10);
  });

  it('crawls one host as many pages at once as the team may, not 2', async () => {
    site.reset();
    const crawl = await client.startCrawl(`${site.origin}/site/`, { limit: 31, sitemap: 'skip', scrapeOptions: { maxAge: 0 } });
    const status = await waitFor(async () => {
      const now = await client.getCrawlStatus(crawl.id);
      return now.status === 'completed' ? now : undefined;
    });
    assert.equal(status.completed, 31);
    assert.equal(site.peak(), 20);
  });

  it('answers a direct scrape 429 while the team runs all it may, and another team 200', async () => {
    const busy = await client.startBatchScrape(slowUrls(site, 'busy', 20), { options: { maxAge: 0 } });
    await waitFor(async () => ((await client.getConcurrency()).concurrency === 20 ? true : undefined));
    const refused = await call(served, key, 'POST', '/scrape', { url: `${site.origin}/fast` });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error, 'Concurrency limit reached');
    // Limits are the team's: a second key of the team is refused as well; another team is not.
    const sameTeam = (await served.keys.create('acme', new Date())).key;
    assert.equal((await call(served, sameTeam, 'POST', '/scrape', { url: `${site.origin}/fast` })).status, 429);
    const other = (await served.keys.create('globex', new Date())).key;
    assert.equal((await call(served, other, 'POST', '/scrape', { url: `${site.origin}/fast` })).status, 200);
    assert.equal((await call(served, other, 'GET', '/concurrency-check')).body.concurrency, 0, "another team's pages are not counted");
    await waitFor(async () => ((await client.getBatchScrapeStatus(busy.id)).status === 'completed' ? true : undefined));
  });
});

describe('queued work counts none', () => {
  it('a job waiting for a worker takes no slot; its pages run once it is claimed', async () => {
    const site = await countingSite(400);
    // One job at a time: the second batch waits in the queue while the first runs.
    const served = await serveWebwatch({ concurrencyPerTeam: 3, jobConcurrency: 1 });
    const key = (await served.keys.create('acme', new Date())).key;
    try {
      const first = await call(served, key, 'POST', '/batch/scrape', { urls: slowUrls(site, 'first', 6), maxAge: 0 });
      const second = await call(served, key, 'POST', '/batch/scrape', { urls: slowUrls(site, 'second', 3), maxAge: 0 });
      assert.deepEqual([first.status, second.status], [200, 200], 'queued, not refused');
      await waitFor(async () => ((await call(served, key, 'GET', '/concurrency-check')).body.concurrency === 3 ? true : undefined));
      const queue = (await call(served, key, 'GET', '/team/queue-status')).body;
      assert.equal(queue.waitingJobsInQueue, 1);
      assert.equal((await call(served, key, 'GET', '/concurrency-check')).body.concurrency, 3, 'the waiting job adds nothing');
      for (const id of [first.body.id, second.body.id]) {
        await waitFor(async () => ((await call(served, key, 'GET', `/batch/scrape/${id}`)).body.status === 'completed' ? true : undefined));
      }
      assert.equal(site.peak(), 3);
    } finally {
      await served.stop();
      await site.close();
    }
  });
});
