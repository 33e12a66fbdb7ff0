/**
 * GET /v2/scrape/{id}: the document of a scrape, a crawl page or a batch page, byte for byte as
 * it was answered, to its team only, for a day; then purged. On serve, on loopback, with a
 * loopback site; the hosted SDK has no method for it (4.42), so the reads are plain requests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { DEFAULT_LEASE_MS, setLeaseDuration } from '../../src/engine/store/leases.js';
import { scrapeDocumentStore } from '../../src/engine/store/scrape-documents.js';
import { tempDir } from '../helpers/files.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { sqlRow } from '../helpers/sql.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';
import { waitFor } from '../helpers/wait.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('GET /v2/scrape/{id}: stored documents', () => {
  let site: TestServer;
  let served: ServingWebwatch;
  let acme: string;
  let rival: string;
  let client: Firecrawl;
  // serve's clock: moved a day on to see documents expire.
  let clock = Date.now();
  before(async () => {
    // The worker purges expired rows as often as it looks for stopped jobs: every second here.
    setLeaseDuration(2000);
    site = await startServer(
      {
        '/': (_q, r) =>
          void r.writeHead(200, { 'content-type': 'text/html' }).end('<title>Home</title><main><p>home</p><a href="/a">a</a> <a href="/b">b</a></main>'),
      },
      (request, response) =>
        void response.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${request.url}</title><main><p>page ${request.url} — ünïcode</p></main>`),
    );
    served = await serveWebwatch({ now: () => new Date(clock) });
    acme = (await served.keys.create('acme', new Date())).key;
    rival = (await served.keys.create('rival', new Date())).key;
    client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
  });
  after(async () => {
    await served.stop();
    await site.close();
    setLeaseDuration(DEFAULT_LEASE_MS);
  });

  const notFound = (answer: { status: number; body: { error: string; code: string; details: { reason: string } } }) => {
    assert.equal(answer.status, 404, JSON.stringify(answer.body));
    assert.equal(answer.body.error, 'Not Found');
    assert.equal(answer.body.code, 'SCRAPE_NOT_FOUND');
    assert.match(answer.body.details.reason, /no scrape with this id for this key's team/);
  };

  it("answers a scrape's document byte for byte, at once and once written, to the key's team only", async () => {
    const posted = await call(served, acme, 'POST', '/scrape', { url: `${site.origin}/one`, formats: ['markdown', 'links', 'html'] });
    assert.equal(posted.status, 200, posted.text);
    const id = posted.body.data.metadata.scrapeId as string;
    // Read before its group is written (this process holds it), then from the table.
    const early = await call(served, acme, 'GET', `/scrape/${id}`);
    assert.equal(early.status, 200, early.text);
    assert.equal(early.text, posted.text, 'the same bytes as the scrape answered');
    assert.equal(early.headers.get('content-type'), posted.headers.get('content-type'));
    await scrapeDocumentStore(served.db).flush();
    const row = await sqlRow<{ team: string; document: string }>(served.db, 'select team, document from scrape_documents where scrape_id = ?', id);
    assert.equal(row?.team, 'acme');
    assert.equal(`{"success":true,"data":${row?.document}}`, posted.text);
    assert.equal((await call(served, acme, 'GET', `/scrape/${id}`)).text, posted.text);

    notFound(await call(served, rival, 'GET', `/scrape/${id}`));
    notFound(await call(served, acme, 'GET', '/scrape/00000000-0000-4000-8000-000000000000'));
    notFound(await call(served, acme, 'GET', '/scrape/not-an-id'));
    assert.equal((await call(served, undefined, 'GET', `/scrape/${id}`)).status, 401);
  });

  it('through the SDK: what client.scrape returned, a cache hit too under its own id', async () => {
    const fetched = await client.scrape(`${site.origin}/two`, { formats: ['markdown'] });
    const cached = await client.scrape(`${site.origin}/two`, { formats: ['markdown'] });
    assert.equal(cached.metadata?.cacheState, 'hit');
    assert.notEqual(cached.metadata?.scrapeId, fetched.metadata?.scrapeId);
    for (const document of [fetched, cached]) {
      const read = await call(served, acme, 'GET', `/scrape/${document.metadata?.scrapeId}`);
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, { success: true, data: document });
    }
  });

  it('the pages of a crawl and of a batch scrape, by their scrapeId, as the status answer carries them', async () => {
    const crawl = await client.crawl(site.url, { limit: 3, sitemap: 'skip', pollInterval: 0.2 } as never);
    assert.equal(crawl.status, 'completed');
    assert.equal(crawl.data.length, 3);
    const batch = await client.batchScrape([`${site.origin}/x`, `${site.origin}/y`], { options: { formats: ['markdown'] }, pollInterval: 0.2 } as never);
    assert.equal(batch.data.length, 2);
    const crawlStatus = await call(served, acme, 'GET', `/crawl/${crawl.id}`);
    const batchStatus = await call(served, acme, 'GET', `/batch/scrape/${batch.id}`);
    for (const [documents, status] of [
      [crawl.data, crawlStatus.text],
      [batch.data, batchStatus.text],
    ] as const) {
      for (const document of documents) {
        const read = await call(served, acme, 'GET', `/scrape/${document.metadata?.scrapeId}`);
        assert.equal(read.status, 200, read.text);
        const data = read.text.slice('{"success":true,"data":'.length, -1);
        assert.ok(status.includes(data), "the bytes of the status answer's page");
        assert.deepEqual(read.body.data, document);
        notFound(await call(served, rival, 'GET', `/scrape/${document.metadata?.scrapeId}`));
      }
    }
    // A page is not copied: its job's row is what is read.
    const copies = await sqlRow<{ n: number }>(served.db, 'select count(*) as n from scrape_documents where scrape_id = ?', crawl.data[0]!.metadata!.scrapeId);
    assert.equal(Number(copies?.n), 0);
  });

  it('a day later: 404, and the rows are purged', async () => {
    const posted = await call(served, acme, 'POST', '/scrape', { url: `${site.origin}/aging`, formats: ['markdown'] });
    const crawl = await client.crawl(site.url, { limit: 1, sitemap: 'skip', pollInterval: 0.2 } as never);
    const ids = [posted.body.data.metadata.scrapeId as string, crawl.data[0]!.metadata!.scrapeId!];
    await scrapeDocumentStore(served.db).flush();
    clock += DAY_MS - 1000;
    for (const id of ids) assert.equal((await call(served, acme, 'GET', `/scrape/${id}`)).status, 200, 'still readable just before its day ends');
    clock += 2000;
    for (const id of ids) notFound(await call(served, acme, 'GET', `/scrape/${id}`));
    // The worker deletes them: nothing of them stays in the database.
    const left = async () =>
      Number(
        (
          await sqlRow<{ n: number }>(
            served.db,
            `select (select count(*) from scrape_documents where scrape_id = ?) + (select count(*) from crawl_pages where scrape_id = ?) as n`,
            ids[0],
            ids[1],
          )
        )?.n,
      );
    assert.equal(await waitFor(async () => ((await left()) === 0 ? 0 : undefined)), 0);
  });

  it('a document answered just before the server stops is written as it drains, and read after a restart', async () => {
    const home = tempDir();
    const first = await serveWebwatch({ home });
    const key = (await first.keys.create('acme', new Date())).key;
    const posted = await call(first, key, 'POST', '/scrape', { url: `${site.origin}/last`, formats: ['markdown'] });
    await first.stop();
    const second = await serveWebwatch({ home });
    try {
      const read = await call(second, key, 'GET', `/scrape/${posted.body.data.metadata.scrapeId}`);
      assert.equal(read.text, posted.text);
    } finally {
      await second.stop();
    }
  });
});
