/**
 * `webwatch serve` with the operator's proxies, asked through the hosted JS SDK: each level's
 * scrapes go through its proxy and say so in metadata.proxyUsed, and under the private-address
 * rule the target is still judged while the proxy itself is on loopback.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';
import { html, startServer, type TestServer } from '../helpers/server.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

/** A public address the proxy answers for itself: nothing is ever sent to it. */
const PUBLIC = 'http://1.1.1.1';

describe('serve with proxies', () => {
  let site: TestServer;
  let basic: ForwardProxy;
  let enhanced: ForwardProxy;
  let open: ServingWebwatch;
  let guarded: ServingWebwatch;
  let openClient: Firecrawl;
  let guardedClient: Firecrawl;
  const page = () => `${site.origin}/page`;

  before(async () => {
    site = await startServer({ '/page': html('<main><h1>Prices</h1><p>Pro costs $10</p></main>') });
    const publicPage = (url: URL) =>
      url.host === '1.1.1.1' ? { status: 200, body: '<main><h1>Public</h1><p>An article on a public address.</p></main>' } : undefined;
    basic = await startForwardProxy({ answer: publicPage });
    enhanced = await startForwardProxy({ answer: publicPage });
    const proxies = { basic: basic.url, enhanced: enhanced.url };
    open = await serveWebwatch({ proxies });
    guarded = await serveWebwatch({ proxies, allowPrivateTargets: false });
    openClient = new Firecrawl({ apiKey: (await open.keys.create('acme', new Date())).key, apiUrl: open.origin });
    guardedClient = new Firecrawl({ apiKey: (await guarded.keys.create('acme', new Date())).key, apiUrl: guarded.origin });
  });
  after(async () => {
    await open.stop();
    await guarded.stop();
    await Promise.all([site, basic, enhanced].map((each) => each.close()));
  });

  it('each level goes through its proxy; proxyUsed says which', async () => {
    const byDefault = await openClient.scrape(page(), { formats: ['markdown'], maxAge: 0 });
    assert.match(byDefault.markdown ?? '', /Pro costs \$10/);
    assert.equal(byDefault.metadata?.proxyUsed, 'basic');
    assert.deepEqual([basic.count(page()), enhanced.count(page())], [1, 0]);
    const byEnhanced = await openClient.scrape(page(), { formats: ['markdown'], maxAge: 0, proxy: 'enhanced' });
    assert.equal(byEnhanced.metadata?.proxyUsed, 'enhanced');
    assert.deepEqual([basic.count(page()), enhanced.count(page())], [1, 1]);
  });

  it('under the private-address rule a loopback target is refused before the proxy is asked; a public one goes through it', async () => {
    const seen = basic.forwarded.length;
    await assert.rejects(guardedClient.scrape(page(), { formats: ['markdown'] }), /Forbidden|403/);
    assert.equal(basic.forwarded.length, seen, 'the proxy was never asked');
    const article = await guardedClient.scrape(`${PUBLIC}/article`, { formats: ['markdown'], proxy: 'basic' });
    assert.match(article.markdown ?? '', /An article on a public address/);
    assert.equal(article.metadata?.proxyUsed, 'basic');
    assert.equal(basic.count(`${PUBLIC}/article`), 1);
  });
});
