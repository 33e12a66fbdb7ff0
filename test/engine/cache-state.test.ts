/**
 * metadata.cacheState is there only when the scrape read the cache: not with maxAge 0, not for
 * change tracking (which wants the page as it is now, yet is stored), not with actions (never
 * stored). A store that counts its reads and writes says what really happened.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { findChromium } from '../../src/engine/browser/chromium.js';
import { closeBrowserIfOpen } from '../../src/engine/browser/lifetime.js';
import { scrape, type ScrapeContext } from '../../src/engine/scrape/scrape.js';
import { databasePath, openDatabase, type Db } from '../../src/engine/store/database.js';
import { scrapeStore, type ScrapeStore } from '../../src/engine/store/scrape-cache.js';
import type { ScrapeOptions } from '../../src/spec/scrape-options.js';
import { tempDir } from '../helpers/files.js';
import { html, startServer, type TestServer } from '../helpers/server.js';

const chromium = (() => {
  try {
    return findChromium(process.env, undefined, 'the tests');
  } catch {
    return undefined;
  }
})();

describe('metadata.cacheState', () => {
  let site: TestServer;
  let db: Db;
  let store: ScrapeStore;
  let reads = 0;
  let writes = 0;
  let context: ScrapeContext;
  const at = (options: ScrapeOptions = {}, path = '/page') => scrape({ url: `${site.origin}${path}`, options }, context);
  const fetches = (path = '/page') => site.requests.filter((request) => request.path === path).length;

  before(async () => {
    site = await startServer({ '/page': html('<main><h1>Prices</h1><p>Pro costs $10</p></main>') });
    db = await openDatabase(databasePath({ WEBWATCH_HOME: tempDir() }));
  });
  after(async () => {
    await closeBrowserIfOpen();
    await db.close();
    await site.close();
  });
  beforeEach(() => {
    // A fresh team per test: nothing cached by an earlier one.
    const real = scrapeStore(db, `team-${Math.random()}`);
    reads = 0;
    writes = 0;
    store = {
      team: real.team,
      getCached: (key) => (reads++, real.getCached(key)),
      putCached: (...args) => (writes++, real.putCached(...args)),
      getTracked: (key) => real.getTracked(key),
      putTracked: (...args) => real.putTracked(...args),
    };
    context = { version: 'test', now: () => new Date(), store, browser: { env: process.env, artifactsDir: tempDir() } };
  });

  it('a scrape that may be answered from the cache says miss, then hit', async () => {
    const before = fetches();
    const first = await at();
    assert.equal(first.metadata.cacheState, 'miss');
    const second = await at();
    assert.equal(second.metadata.cacheState, 'hit');
    assert.deepEqual([reads, writes, fetches() - before], [2, 1, 1]);
  });

  it('maxAge 0: the cache is not read and there is no cacheState', async () => {
    await at();
    const fresh = await at({ maxAge: 0 });
    assert.equal('cacheState' in fresh.metadata, false);
    assert.equal(reads, 1, 'only the first scrape read the cache');
  });

  it('changeTracking reads and writes the cache as any scrape: a second identical scrape is a hit, and same', async () => {
    const track: ScrapeOptions = { formats: ['markdown', 'changeTracking'] };
    const before = fetches();
    const tracked = await at(track);
    assert.equal(tracked.changeTracking?.changeStatus, 'new');
    assert.equal(tracked.metadata.cacheState, 'miss');
    assert.deepEqual([reads, writes], [1, 1], 'read, then stored');
    const again = await at(track);
    assert.equal(again.metadata.cacheState, 'hit');
    assert.equal(again.changeTracking?.changeStatus, 'same');
    assert.equal(again.changeTracking?.previousScrapeAt !== null, true);
    assert.equal(fetches() - before, 1, 'the hit fetched nothing');
    // maxAge 0 looks at the page as it is now, and reads no cache.
    const fresh = await at({ ...track, maxAge: 0 });
    assert.equal('cacheState' in fresh.metadata, false);
    assert.equal(fetches() - before, 2);
  });

  it('without a store nothing is read: no cacheState', async () => {
    const bare = await scrape({ url: `${site.origin}/page`, options: {} }, { version: 'test', now: () => new Date() });
    assert.equal('cacheState' in bare.metadata, false);
  });

  it('a hit carries proxyUsed, basic for an entry stored before it was recorded', async () => {
    const first = await at();
    assert.equal(first.metadata.proxyUsed, 'basic');
    assert.equal((await at()).metadata.proxyUsed, 'basic');
    const { proxyUsed: _dropped, ...older } = first.metadata;
    const { cacheKey } = await import('../../src/engine/scrape/cache-key.js');
    await store.putCached(cacheKey(`${site.origin}/page`, { onlyMainContent: false }), `${site.origin}/page`, { ...first, metadata: older }, Date.now());
    const hit = await at({ onlyMainContent: false, lockdown: true });
    assert.deepEqual([hit.metadata.cacheState, hit.metadata.proxyUsed], ['hit', 'basic']);
  });

  it('actions: the cache is neither read nor written, and there is no cacheState', { skip: !chromium && 'no Chromium: apt-get install chromium' }, async () => {
    const options: ScrapeOptions = { actions: [{ type: 'wait', milliseconds: 1 }] };
    const first = await at(options);
    assert.match(first.markdown ?? '', /Pro costs/);
    assert.equal('cacheState' in first.metadata, false);
    assert.equal(first.metadata.proxyUsed, 'basic');
    await at(options);
    assert.deepEqual([reads, writes], [0, 0]);
  });
});
