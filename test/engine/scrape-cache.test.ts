/** The scrape cache and change tracking, on a real SQLite file and a real PostgreSQL, with an injected clock. */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, it } from 'node:test';
import { scrape, type ScrapeContext } from '../../src/engine/scrape/scrape.js';
import type { Db } from '../../src/engine/store/database.js';
import { scrapeStore } from '../../src/engine/store/scrape-cache.js';
import type { ScrapeOptions } from '../../src/spec/scrape-options.js';
import { forEachDatabase } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

const DAY = 24 * 60 * 60 * 1000;

forEachDatabase('scrape cache and change tracking', ({ open }) => {
  let server: TestServer;
  let page = '<main><h1>Prices</h1><p>Pro costs $10</p></main>';
  let status = 200;
  let clock = Date.parse('2026-11-01T00:00:00Z');
  let context: ScrapeContext;
  const fetches = () => server.requests.filter((r) => r.path === '/page').length;
  const at = (options: ScrapeOptions = {}) => scrape({ url: `${server.origin}/page`, options }, context);

  before(async () => {
    server = await startServer({
      '/page': (_q, r) => void r.writeHead(status, { 'content-type': 'text/html' }).end(page),
      '/outside': (_q, r) => void r.writeHead(302, { location: '/inside' }).end(),
      '/inside': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>inside only</p></main>'),
    });
  });
  after(() => server.close());
  afterEach(() => db.close());
  let db: Db;
  beforeEach(async () => {
    db = await open();
    context = { version: 't', now: () => new Date(clock), store: scrapeStore(db, 'local') };
    page = '<main><h1>Prices</h1><p>Pro costs $10</p></main>';
    status = 200;
    server.requests.length = 0;
  });

  it('answers from the cache within maxAge (default two days) and fetches again after', async () => {
    const first = await at();
    assert.equal(first.metadata.cacheState, 'miss');
    clock += DAY;
    const second = await at();
    assert.equal(fetches(), 1);
    assert.equal(second.metadata.cacheState, 'hit');
    assert.equal(second.metadata.cachedAt, new Date(clock - DAY).toISOString());
    assert.notEqual(second.metadata.scrapeId, first.metadata.scrapeId);
    assert.equal(second.markdown, first.markdown);
    clock += 1.5 * DAY;
    assert.equal((await at()).metadata.cacheState, 'miss');
    assert.equal(fetches(), 2);
  });

  it('a page fetched again replaces its entry: the cache answers with the newer page and time', async () => {
    await at();
    page = '<main><h1>Prices</h1><p>Pro costs $12</p></main>';
    clock += 3 * DAY;
    const refetched = await at();
    assert.equal(refetched.metadata.cacheState, 'miss');
    clock += DAY;
    const hit = await at();
    assert.equal(hit.metadata.cacheState, 'hit');
    assert.match(hit.markdown ?? '', /\$12/);
    assert.equal(hit.metadata.cachedAt, new Date(clock - DAY).toISOString());
    assert.equal(fetches(), 2);
  });

  it('maxAge 0 always fetches', async () => {
    await at();
    await at({ maxAge: 0 });
    assert.equal(fetches(), 2);
  });

  it('keys the cache by the options that change content', async () => {
    await at();
    await at({ onlyMainContent: false });
    await at({ formats: ['markdown', 'links'] });
    await at({ timeout: 5000 }); // does not change content: a hit
    assert.equal(fetches(), 3);
  });

  it('never stores with storeInCache false, headers or server errors', async () => {
    await at({ storeInCache: false });
    await at({ storeInCache: false });
    await at({ headers: { cookie: 'session=1' } });
    await at({ headers: { cookie: 'session=1' } });
    status = 503;
    await at({ blockAds: false });
    await at({ blockAds: false });
    assert.equal(fetches(), 6);
  });

  it('minAge answers only from the cache: 404 SCRAPE_NO_CACHED_DATA without a fetch', async () => {
    await assert.rejects(at({ minAge: 1 }), (error: { status: number; message: string }) => {
      assert.equal(error.status, 404);
      assert.equal(error.message, 'SCRAPE_NO_CACHED_DATA');
      return true;
    });
    assert.equal(fetches(), 0);
    await at();
    clock += 60_000;
    assert.equal((await at({ minAge: 1 })).metadata.cacheState, 'hit');
    await assert.rejects(at({ minAge: 120_000 }), /SCRAPE_NO_CACHED_DATA/); // cached data is too young
    assert.equal(fetches(), 1);
  });

  it('lockdown never reaches the site: 5 credits on a hit, 404 without the URL on a miss', async () => {
    await assert.rejects(at({ lockdown: true }), (error: { status: number; message: string; details: unknown }) => {
      assert.equal(error.status, 404);
      assert.equal(error.message, 'SCRAPE_LOCKDOWN_CACHE_MISS');
      assert.ok(!JSON.stringify(error.details ?? {}).includes('127.0.0.1'));
      return true;
    });
    assert.equal(fetches(), 0);
    await at({ lockdown: false });
    clock += 300 * DAY; // lockdown's default maxAge is two years
    const hit = await at({ lockdown: true });
    assert.equal(hit.metadata.cacheState, 'hit');
    assert.equal(hit.metadata.creditsUsed, 5);
    assert.equal(fetches(), 1);
  });

  it('changeTracking: new, same (whitespace aside), changed with diffs, removed', async () => {
    // maxAge 0: the page as it is now each time (a tracking scrape reads the cache otherwise).
    const track: ScrapeOptions = { maxAge: 0, formats: ['markdown', 'changeTracking'] };
    const first = await at(track);
    assert.deepEqual(first.changeTracking, { previousScrapeAt: null, changeStatus: 'new', visibility: 'visible' });
    const firstAt = new Date(clock).toISOString();
    clock += 1000;
    page = '<main><h1>Prices</h1>\n\n   <p>Pro   costs $10</p></main>';
    const same = await at(track);
    assert.equal(same.changeTracking?.changeStatus, 'same');
    assert.equal(same.changeTracking?.previousScrapeAt, firstAt);
    clock += 1000;
    page = '<main><h1>Prices</h1><p>Pro costs $12</p></main>';
    const changed = await at(track);
    assert.equal(changed.changeTracking?.changeStatus, 'changed');
    assert.equal(
      changed.changeTracking?.diff?.text,
      ['--- previous.md', '+++ current.md', '@@ -1,3 +1,3 @@', ' # Prices', ' ', '-Pro costs $10', '+Pro costs $12', ''].join('\n'),
    );
    const json = changed.changeTracking?.diff?.json as { files: { additions: number; deletions: number; chunks: { changes: unknown[] }[] }[] };
    assert.equal(json.files[0]!.additions, 1);
    assert.deepEqual(json.files[0]!.chunks[0]!.changes, [
      { type: 'normal', content: '# Prices', ln1: 1, ln2: 1 },
      { type: 'normal', content: '', ln1: 2, ln2: 2 },
      { type: 'del', content: 'Pro costs $10', ln: 3 },
      { type: 'add', content: 'Pro costs $12', ln: 3 },
    ]);
    status = 404;
    assert.equal((await at(track)).changeTracking?.changeStatus, 'removed');
    assert.equal(fetches(), 4);
  });

  it("keeps the JSON of changeTracking's json mode with the markdown, per team; a scrape without it keeps none", async () => {
    const store = scrapeStore(db, 'acme');
    const key = { url: 'https://shop.example/p', tag: 'prices', scope: '' };
    await store.putTracked(key, 'Pro $10', 1, { plan: 'Pro', price: 10 });
    assert.deepEqual(await store.getTracked(key), { markdown: 'Pro $10', json: { plan: 'Pro', price: 10 }, scrapedAt: 1 });
    assert.equal(await scrapeStore(db, 'globex').getTracked(key), undefined);
    await store.putTracked(key, 'Pro $12', 2, null);
    assert.deepEqual(await store.getTracked(key), { markdown: 'Pro $12', json: null, scrapedAt: 2 }, 'a json mode that extracted nothing');
    await store.putTracked(key, 'Pro $15', 3);
    assert.deepEqual(await store.getTracked(key), { markdown: 'Pro $15', scrapedAt: 3 });
  });

  it('keeps separate histories per tag', async () => {
    await at({ formats: [{ type: 'changeTracking', tag: 'a' }] });
    const other = await at({ formats: [{ type: 'changeTracking', tag: 'b' }] });
    assert.equal(other.changeTracking?.changeStatus, 'new');
    const again = await at({ formats: [{ type: 'changeTracking', tag: 'a' }] });
    assert.equal(again.changeTracking?.changeStatus, 'same');
    assert.ok(again.markdown, 'markdown comes along with change tracking');
  });

  it('the URL rule runs before the cache, also on the page a cached answer was redirected to', async () => {
    const url = `${server.origin}/outside`;
    const cached = await scrape({ url, options: {} }, context);
    assert.match(cached.markdown ?? '', /inside only/);
    clock += 1000;
    const refuseInside = (target: URL) => {
      if (target.pathname === '/inside') throw Object.assign(new Error('Forbidden'), { status: 403 });
    };
    for (const options of [{}, { lockdown: true }, { minAge: 1 }]) {
      await assert.rejects(scrape({ url, options }, { ...context, checkUrl: refuseInside }), /Forbidden/, JSON.stringify(options));
    }
    const refuseAll = () => {
      throw Object.assign(new Error('Forbidden'), { status: 403 });
    };
    await assert.rejects(scrape({ url: `${server.origin}/page`, options: { lockdown: true } }, { ...context, checkUrl: refuseAll }), /Forbidden/);
  });

  it("each team's store holds its own cache and histories", async () => {
    const acme = { ...context, store: scrapeStore(db, 'acme') };
    const rival = { ...context, store: scrapeStore(db, 'rival') };
    await scrape({ url: `${server.origin}/page`, options: { formats: ['markdown', 'changeTracking'] } }, acme);
    await scrape({ url: `${server.origin}/page`, options: {} }, acme);
    await assert.rejects(scrape({ url: `${server.origin}/page`, options: { lockdown: true } }, rival), /SCRAPE_LOCKDOWN_CACHE_MISS/);
    const theirs = await scrape({ url: `${server.origin}/page`, options: { formats: ['markdown', 'changeTracking'] } }, rival);
    assert.equal(theirs.changeTracking?.changeStatus, 'new');
  });
});
