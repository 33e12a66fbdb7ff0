/**
 * Zero data retention on serve: `zeroDataRetention: true` on scrape, crawl and batch scrape, and
 * lockdown, which counts as it (spec §2.7). Nothing of the pages is kept beyond the answer: no
 * cache entry, no document readable by its scrapeId, a job's pages gone once read after it ended;
 * +1 credit a page unless the team's surcharge is waived; what would keep something is refused.
 * Through the hosted SDK where it has the call, on loopback, with a loopback site.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { scrapeDocumentStore } from '../../src/engine/store/scrape-documents.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { sqlRow, sqlRows } from '../helpers/sql.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

describe('zero data retention', () => {
  let site: TestServer;
  let served: ServingWebwatch;
  let acme: string;
  let free: string;
  let client: Firecrawl;
  const held: (() => void)[] = [];
  before(async () => {
    site = await startServer(
      {
        '/': (_q, r) =>
          void r.writeHead(200, { 'content-type': 'text/html' }).end('<title>Home</title><main><p>home</p><a href="/a">a</a> <a href="/b">b</a></main>'),
        '/slow': (_q, r) => void held.push(() => r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>slow</p></main>')),
      },
      (request, response) =>
        void response.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${request.url}</title><main><p>page ${request.url}</p></main>`),
    );
    // Team `free` pays no surcharge; `acme` pays the hosted API's +1 a page.
    served = await serveWebwatch({ zeroDataRetentionSurchargeWaived: ['free'] });
    acme = (await served.keys.create('acme', new Date())).key;
    free = (await served.keys.create('free', new Date())).key;
    client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
  });
  after(async () => {
    for (const release of held) release();
    await served.stop();
    await site.close();
  });
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 300; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('timed out');
  };
  const cacheRows = async (team: string, url: string) =>
    Number((await sqlRow<{ n: number }>(served.db, 'select count(*) as n from scrape_cache where team = ? and url = ?', team, url))?.n);
  const creditsUsed = async (key: string) => (await call(served, key, 'GET', '/team/credit-usage')).body.data.creditsUsed as number;
  const unreadable = async (key: string, scrapeId: string) => {
    await scrapeDocumentStore(served.db).flush();
    const read = await call(served, key, 'GET', `/scrape/${scrapeId}`);
    assert.equal(read.status, 404, read.text);
    assert.equal(read.body.code, 'SCRAPE_NOT_FOUND');
    assert.equal(Number((await sqlRow<{ n: number }>(served.db, 'select count(*) as n from scrape_documents where scrape_id = ?', scrapeId))?.n), 0);
  };

  it('a scrape: no cache entry, no stored document, +1 credit in the answer and the ledger', async () => {
    const url = `${site.origin}/private`;
    const before = await creditsUsed(acme);
    const document = await client.scrape(url, { formats: ['markdown'], zeroDataRetention: true } as never);
    assert.match(document.markdown ?? '', /page \/private/);
    assert.equal(document.metadata?.creditsUsed, 2);
    assert.equal(await creditsUsed(acme), before + 2);
    assert.equal(await cacheRows('acme', url), 0, 'no cache row');
    await unreadable(acme, document.metadata!.scrapeId!);
    // Nothing cached: the same scrape without zero data retention fetches the page again.
    const plain = await client.scrape(url, { formats: ['markdown'] });
    assert.equal(plain.metadata?.cacheState, 'miss');
    assert.equal(plain.metadata?.creditsUsed, 1);
  });

  it('a team whose surcharge is waived pays 1 credit a page, on a scrape and on a batch', async () => {
    const scraped = await call(served, free, 'POST', '/scrape', { url: `${site.origin}/free`, zeroDataRetention: true });
    assert.equal(scraped.status, 200, scraped.text);
    assert.equal(scraped.body.data.metadata.creditsUsed, 1);
    await unreadable(free, scraped.body.data.metadata.scrapeId);
    const freeClient = new Firecrawl({ apiKey: free, apiUrl: served.origin });
    const batch = await freeClient.batchScrape([`${site.origin}/f1`, `${site.origin}/f2`], { zeroDataRetention: true, pollInterval: 0.2 } as never);
    assert.equal(batch.creditsUsed, 2);
    assert.deepEqual(
      batch.data.map((d) => d.metadata?.creditsUsed),
      [1, 1],
    );
  });

  it('a crawl: +1 credit a page, pages readable by no scrapeId and cached nowhere, and gone once read after it ended', async () => {
    const crawl = await client.crawl(site.url, { limit: 3, sitemap: 'skip', zeroDataRetention: true, pollInterval: 0.2 });
    assert.equal(crawl.status, 'completed');
    assert.equal(crawl.data.length, 3, "the SDK's last poll carries every page");
    assert.equal(crawl.creditsUsed, 6);
    for (const page of crawl.data) {
      assert.equal(page.metadata?.creditsUsed, 2);
      await unreadable(acme, page.metadata!.scrapeId!);
      assert.equal(await cacheRows('acme', page.metadata!.sourceURL!), 0);
    }
    const again = await call(served, acme, 'GET', `/crawl/${crawl.id}`);
    assert.deepEqual([again.body.status, again.body.completed, again.body.creditsUsed, again.body.data], ['completed', 3, 6, []], 'read once: gone');
    const kept = await sqlRows<{ document: string | null; scrape_id: string | null }>(
      served.db,
      'select document, scrape_id from crawl_pages where job_id = ?',
      crawl.id,
    );
    assert.equal(kept.length, 3);
    assert.ok(
      kept.every((row) => row.document === null && row.scrape_id === null),
      'no document stays in the database',
    );
  });

  it('a batch: polls while it runs leave the pages; the first read after it ended takes them', async () => {
    const started = await call(served, acme, 'POST', '/batch/scrape', {
      urls: [`${site.origin}/b1`, `${site.origin}/slow`],
      zeroDataRetention: true,
      maxConcurrency: 2,
    });
    assert.equal(started.status, 200, started.text);
    const status = () => call(served, acme, 'GET', `/batch/scrape/${started.body.id}`);
    await until(async () => (await status()).body.data.length === 1);
    const running = (await status()).body;
    assert.deepEqual([running.status, running.data.length], ['scraping', 1], 'a poll while it runs removes nothing');
    await until(async () => held.length > 0);
    held.splice(0)[0]!();
    let ended: Body;
    await until(async () => (ended = (await status()).body).status !== 'scraping');
    assert.deepEqual([ended.status, ended.data.map((d: Body) => d.markdown.trim()).sort()], ['completed', ['page /b1', 'slow']]);
    assert.equal(ended.creditsUsed, 4);
    const after = (await status()).body;
    assert.deepEqual([after.status, after.completed, after.data], ['completed', 2, []]);
    assert.equal(await cacheRows('acme', `${site.origin}/b1`), 0);
  });

  it("a batch watched to its end through the SDK's watcher: every page sent, then none left", async () => {
    const { id } = await client.startBatchScrape([`${site.origin}/w1`, `${site.origin}/w2`], { zeroDataRetention: true });
    const watcher = client.watcher(id, { kind: 'batch', pollInterval: 60 });
    const documents: Body[] = [];
    watcher.on('document', (document) => documents.push(document));
    await watcher.start();
    await until(async () => documents.length === 2);
    assert.deepEqual(documents.map((d) => d.markdown.trim()).sort(), ['page /w1', 'page /w2']);
    const after = (await call(served, acme, 'GET', `/batch/scrape/${id}`)).body;
    assert.deepEqual([after.status, after.completed, after.data], ['completed', 2, []]);
  });

  it('lockdown counts as zero data retention: not readable by its scrapeId, no history written, no surcharge', async () => {
    const url = `${site.origin}/locked`;
    const formats = ['markdown', { type: 'changeTracking' }];
    const plain = await call(served, acme, 'POST', '/scrape', { url, formats });
    assert.equal(plain.status, 200, plain.text);
    const history = () =>
      sqlRow<{ n: number; at: number }>(served.db, "select count(*) as n, max(scraped_at) as at from tracked_pages where team = 'acme' and url = ?", url);
    const tracked = await history();
    const locked = await call(served, acme, 'POST', '/scrape', { url, formats, lockdown: true });
    assert.equal(locked.status, 200, locked.text);
    assert.equal(locked.body.data.metadata.cacheState, 'hit');
    assert.equal(locked.body.data.metadata.creditsUsed, 5, "lockdown's own price (spec §2.7), no surcharge");
    assert.equal(locked.body.data.changeTracking.changeStatus, 'same');
    await unreadable(acme, locked.body.data.metadata.scrapeId);
    assert.deepEqual(await history(), tracked, 'the change-tracking history is not written');
    // Lockdown with zeroDataRetention asked for: the surcharge too.
    assert.equal((await call(served, acme, 'POST', '/scrape', { url, formats: ['markdown'] })).status, 200);
    const both = await call(served, acme, 'POST', '/scrape', { url, formats: ['markdown'], lockdown: true, zeroDataRetention: true });
    assert.equal(both.status, 200, both.text);
    assert.equal(both.body.data.metadata.creditsUsed, 6);
  });

  it('refuses what would keep something, naming it, before anything is fetched: onlyCleanContent (spec §2.7), screenshots, changeTracking, a saving profile', async () => {
    const fetched = site.requests.length;
    const url = `${site.origin}/refused`;
    const refusals: [string, string, Record<string, unknown>, string, RegExp][] = [
      ['POST', '/scrape', { url, zeroDataRetention: true, onlyCleanContent: true }, 'onlyCleanContent', /^is not supported with zeroDataRetention$/],
      [
        'POST',
        '/scrape',
        { url, lockdown: true, onlyCleanContent: true },
        'onlyCleanContent',
        /^is not supported with lockdown, which counts as zero data retention$/,
      ],
      [
        'POST',
        '/crawl',
        { url, zeroDataRetention: true, scrapeOptions: { onlyCleanContent: true } },
        'scrapeOptions.onlyCleanContent',
        /^is not supported with zeroDataRetention$/,
      ],
      ['POST', '/crawl', { url, scrapeOptions: { lockdown: true, onlyCleanContent: true } }, 'scrapeOptions.onlyCleanContent', /lockdown/],
      [
        'POST',
        '/batch/scrape',
        { urls: [url], zeroDataRetention: true, onlyCleanContent: true },
        'onlyCleanContent',
        /^is not supported with zeroDataRetention$/,
      ],
      [
        'POST',
        '/scrape',
        { url, zeroDataRetention: true, formats: ['markdown', 'screenshot'] },
        'formats[1]',
        /^screenshot is not supported with zeroDataRetention/,
      ],
      [
        'POST',
        '/batch/scrape',
        { urls: [url], zeroDataRetention: true, formats: [{ type: 'changeTracking' }] },
        'formats[0]',
        /^changeTracking is not supported with zeroDataRetention/,
      ],
      [
        'POST',
        '/crawl',
        { url, zeroDataRetention: true, scrapeOptions: { actions: [{ type: 'wait', milliseconds: 1 }, { type: 'pdf' }] } },
        'scrapeOptions.actions[1]',
        /^a pdf action is not supported/,
      ],
      ['POST', '/scrape', { url, zeroDataRetention: true, profile: { name: 'shop' } }, 'profile', /unless saveChanges is false/],
      ['POST', '/scrape', { url, zeroDataRetention: 'yes' }, 'zeroDataRetention', /must be true or false/],
      ['POST', '/crawl', { url, zeroDataRetention: 1 }, 'zeroDataRetention', /must be true or false/],
    ];
    for (const [method, path, body, at, message] of refusals) {
      const answer = await call(served, acme, method, path, body);
      assert.equal(answer.status, 400, `${path} ${JSON.stringify(body)}: ${answer.text}`);
      assert.equal(answer.body.code, 'BAD_REQUEST');
      assert.deepEqual(
        answer.body.details.map((d: Body) => d.path),
        [at],
        `${path} ${JSON.stringify(body)}`,
      );
      assert.match(answer.body.details[0].message, message);
    }
    // The same through the SDK.
    await assert.rejects(
      client.scrape(url, { zeroDataRetention: true, formats: ['screenshot'] } as never),
      (error: { status?: number }) => error.status === 400,
    );
    assert.equal(site.requests.length, fetched, 'no page was fetched');
    // Without zero data retention the profile and the screenshot's refusal do not apply (no browser is needed to see it pass validation).
    const saving = await call(served, acme, 'POST', '/scrape', { url, zeroDataRetention: true, profile: { name: 'shop', saveChanges: false }, lockdown: true });
    assert.equal(saving.status, 404, 'a profile that saves nothing passes; lockdown finds no cache entry');
    assert.equal(saving.body.code, 'SCRAPE_LOCKDOWN_CACHE_MISS');
  });
});
