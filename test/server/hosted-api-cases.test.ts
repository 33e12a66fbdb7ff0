/**
 * Behaviours the hosted API's own test suites expect, each seen failing against `webwatch serve`
 * before: changeTracking's json mode as `{old, new}` per field and both modes' diff and JSON
 * together (through the hosted SDK, on a scripted model that takes its time), a change-tracking
 * scrape answered from the cache, `regexOnFullURL`, a map of sitemap URLs with their queries
 * (sent with the hosted suite's `useMock`), a certificate that fails verification as 500, and
 * reserved `__experimental_*` fields accepted with a warning. (The PDF page-count rule is in
 * pdf.test.ts and engine/pdf-time.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { fencedPageOf, startFakeLlm, systemOf, type FakeLlm } from '../helpers/fake-llm.js';
import { html, startSelfSignedServer, startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

describe("the hosted API's own cases against webwatch serve", () => {
  let site: TestServer;
  let secure: { origin: string; close(): void };
  let model: FakeLlm;
  let served: ServingWebwatch;
  let key: string;
  let price = 10;
  let features = ['SSO'];
  before(async () => {
    site = await startServer({
      '/': html('<main><h1>Home</h1><a href="/pricing">Pricing</a> <a href="/blog">Blog</a></main>'),
      '/pricing': (_q, r) =>
        void r
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<main><h1>Pricing</h1><p>Pro costs $${price}.</p><p>Features: ${features.join(', ')}</p></main>`),
      '/blog': html('<main><h1>Blog</h1><p>News.</p></main>'),
      '/robots.txt': (_q, r) => void r.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n'),
      '/sitemap.xml': (_q, r) => {
        const urls = ['/choose/results/?options=3', '/choose/results/?options=4', '/about'];
        const entries = urls.map((path) => `<url><loc>${site.origin}${path.replace(/&/g, '&amp;')}</loc></url>`).join('');
        r.writeHead(200, { 'content-type': 'application/xml' }).end(
          `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries}</urlset>`,
        );
      },
    });
    secure = await startSelfSignedServer((_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>secure page</p></main>'));
    // A model as a real one answers: after a while, which varies.
    model = await startFakeLlm((body, index) => {
      if (!systemOf(body).startsWith('You extract')) return { status: 400, body: { error: { message: 'unexpected task' } } };
      const page = fencedPageOf(body) ?? '';
      const extracted = /summary/.test(JSON.stringify(body.messages))
        ? { summary: `Pro costs ${/\$(\d+)/.exec(page)?.[1]}`, changes: [`price ${/\$(\d+)/.exec(page)?.[1]}`] }
        : { pricing: { amount: Number(/\$(\d+)/.exec(page)?.[1] ?? 0), currency: 'USD' }, features: (/Features: (.*)/.exec(page)?.[1] ?? '').split(', ') };
      return { content: JSON.stringify(extracted), delayMs: 50 + ((index * 37) % 150) };
    });
    served = await serveWebwatch({ llm: { baseUrl: model.url, model: 'scripted', timeoutMs: 10_000 } });
    key = (await served.keys.create('acme', new Date())).key;
  });
  after(async () => {
    await served.stop();
    await model.close();
    await site.close();
    secure.close();
  });

  it('changeTracking json mode answers each changed field as {old, new}; both modes carry the diff and the JSON', async () => {
    const client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
    const url = `${site.origin}/pricing`;
    const schema = {
      type: 'object',
      properties: {
        pricing: { type: 'object', properties: { amount: { type: 'number' }, currency: { type: 'string' } } },
        features: { type: 'array', items: { type: 'string' } },
      },
    };
    const jsonMode = { maxAge: 0, formats: ['markdown' as const, { type: 'changeTracking' as const, modes: ['json' as const], schema, tag: 'json' }] };
    assert.equal((await client.scrape(url, jsonMode)).changeTracking?.changeStatus, 'new');
    price = 12;
    features = ['SSO', 'SCIM'];
    const changed = (await client.scrape(url, jsonMode)).changeTracking as Body;
    assert.equal(changed.changeStatus, 'changed');
    assert.notEqual(changed.previousScrapeAt, null);
    assert.deepEqual(changed.json, {
      pricing: { old: { amount: 10, currency: 'USD' }, new: { amount: 12, currency: 'USD' } },
      features: { old: ['SSO'], new: ['SSO', 'SCIM'] },
    });
    assert.equal(changed.diff, undefined, 'json mode alone has no line diff');

    const both = {
      maxAge: 0,
      formats: [
        'markdown' as const,
        {
          type: 'changeTracking' as const,
          modes: ['git-diff' as const, 'json' as const],
          schema: { type: 'object', properties: { summary: { type: 'string' }, changes: { type: 'array', items: { type: 'string' } } } },
          tag: 'both',
        },
      ],
    };
    await client.scrape(url, both);
    price = 15;
    const mixed = (await client.scrape(url, both)).changeTracking as Body;
    assert.equal(mixed.changeStatus, 'changed');
    assert.match(mixed.diff.text, /-Pro costs \$12\.\n\+Pro costs \$15\./);
    assert.ok(Array.isArray(mixed.diff.json.files));
    assert.ok('summary' in mixed.json && 'changes' in mixed.json, JSON.stringify(mixed.json));
    assert.deepEqual(mixed.json.summary, { old: 'Pro costs 12', new: 'Pro costs 15' });
  });

  it('a change-tracking scrape reads and writes the cache: the second identical one is a hit', async () => {
    const client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
    const url = `${site.origin}/blog`;
    const fetches = () => site.requests.filter((request) => request.path === '/blog').length;
    const before = fetches();
    const first = await client.scrape(url, { formats: ['markdown', 'changeTracking'] });
    const second = await client.scrape(url, { formats: ['markdown', 'changeTracking'] });
    assert.deepEqual([first.metadata?.cacheState, second.metadata?.cacheState], ['miss', 'hit']);
    assert.deepEqual([first.changeTracking?.changeStatus, second.changeTracking?.changeStatus], ['new', 'same']);
    assert.equal(fetches() - before, 1);
  });

  it('regexOnFullURL matches includePaths against the whole URL', async () => {
    const client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
    const pattern = `^http://127\\.0\\.0\\.1:${new URL(site.origin).port}/pricing$`;
    const crawled = async (regexOnFullURL: boolean) => {
      const job = await client.crawl(`${site.origin}/`, { sitemap: 'skip', includePaths: [pattern], regexOnFullURL, limit: 10, pollInterval: 0.1 });
      assert.equal(job.status, 'completed');
      return job.data.map((document) => new URL(document.metadata!.url!).pathname);
    };
    assert.deepEqual(await crawled(true), ['/pricing']);
    assert.deepEqual(await crawled(false), [], 'on the path alone, the pattern matches nothing');
  });

  it("map with sitemap only and ignoreQueryParameters false keeps the sitemap's URLs with their queries; useMock is ignored with a warning", async () => {
    const answer = await call(served, key, 'POST', '/map', { url: site.origin, sitemap: 'only', useMock: 'map-query-params', ignoreQueryParameters: false });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const urls = (answer.body.links as { url: string }[]).map((link) => link.url);
    assert.ok(
      urls.some((url) => /\/choose\/results\/?\?options=\d+$/.test(url)),
      urls.join(' '),
    );
    assert.equal(urls.filter((url) => url.includes('?options=')).length, 2);
    assert.match(answer.body.warning, /useMock/);
    // By default the queries go, and the two URLs are one.
    const merged = await call(served, key, 'POST', '/map', { url: site.origin, sitemap: 'only' });
    assert.deepEqual(
      (merged.body.links as { url: string }[]).filter((link) => link.url.includes('/choose/')).map((link) => new URL(link.url).search),
      [''],
    );
    assert.equal(merged.body.warning, undefined);
  });

  it('a certificate that fails verification with skipTlsVerification false is 500, as the hosted API answers', async () => {
    const refused = await call(served, key, 'POST', '/scrape', { url: `${secure.origin}/`, skipTlsVerification: false });
    assert.equal(refused.status, 500);
    assert.equal(refused.body.code, 'SCRAPE_TLS_ERROR');
    assert.match(refused.body.error, /certificate|TLS/i);
    const skipped = await call(served, key, 'POST', '/scrape', { url: `${secure.origin}/` });
    assert.equal(skipped.status, 200);
    assert.match(skipped.body.data.markdown, /secure page/);
  });

  it('__experimental_* fields are accepted and ignored with a warning naming them; other unknown fields are still refused', async () => {
    const scraped = await call(served, key, 'POST', '/scrape', { url: `${site.origin}/blog`, __experimental_cache: true, __experimental_omce: { x: 1 } });
    assert.equal(scraped.status, 200, JSON.stringify(scraped.body));
    assert.match(scraped.body.data.warning, /__experimental_cache, __experimental_omce/);
    const crawl = await call(served, key, 'POST', '/crawl', {
      url: `${site.origin}/blog`,
      limit: 1,
      __experimental_streamSteps: true,
      scrapeOptions: { formats: ['markdown'], __experimental_engine: 'x' },
    });
    assert.equal(crawl.status, 200, JSON.stringify(crawl.body));
    assert.match(crawl.body.warning, /__experimental_streamSteps, scrapeOptions\.__experimental_engine/);
    const unknown = await call(served, key, 'POST', '/scrape', { url: `${site.origin}/blog`, experimental_cache: true });
    assert.equal(unknown.status, 400);
    assert.match(JSON.stringify(unknown.body), /experimental_cache/);
  });
});
