/**
 * The hosted JS SDK through serve on a site whose apex redirects to www: a crawl and a map of the
 * apex reach the www pages, and a crawl returns only pages its includePaths let in, the start page
 * too. Names on 127.0.0.1. A page that redirects out of the crawl is an error, not a page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { SITEMAP_PATHS, startMovedSite, type MovedSite } from '../helpers/moved-site.js';
import { html, startServer } from '../helpers/server.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

describe('crawl and map of a site on www, through serve with the hosted SDK', () => {
  let site: MovedSite;
  let served: ServingWebwatch;
  let client: Firecrawl;
  before(async () => {
    site = await startMovedSite();
    served = await serveWebwatch();
    client = new Firecrawl({ apiKey: (await served.keys.create('acme', new Date())).key, apiUrl: served.origin });
  });
  after(async () => {
    await served.stop();
    await site.close();
  });

  const landedPaths = (documents: { metadata?: { url?: string } }[]) =>
    documents
      .map((document) => {
        const url = new URL(document.metadata!.url!);
        return `${url.hostname}${url.pathname}`;
      })
      .sort();
  const onWww = (...paths: string[]) => paths.map((path) => `www.example.test${path}`).sort();

  it('a crawl of the apex crawls the www pages, with the sitemap skipped too', async () => {
    const job = await client.crawl(site.origin('example.test'), { sitemap: 'skip', limit: 20, pollInterval: 1 });
    assert.equal(job.status, 'completed');
    assert.deepEqual(landedPaths(job.data), onWww('/', '/a', '/a/deep', '/b', '/c'));
    const withSitemap = await client.crawl(site.origin('example.test'), { limit: 50, pollInterval: 1 });
    assert.deepEqual(landedPaths(withSitemap.data), onWww('/', '/a', '/a/deep', '/b', '/c', ...SITEMAP_PATHS));
  });

  it('a map of the apex lists the www start page, its links and the sitemap; with sitemap only and limit 10, exactly 10', async () => {
    const mapped = (await client.map(`${site.origin('example.test')}/`)).links.map((link) => link.url);
    const www = (path: string) => `${site.origin('www.example.test')}${path}`;
    for (const path of ['/', '/a', '/b', ...SITEMAP_PATHS]) assert.ok(mapped.includes(www(path)), path);
    const only = (await client.map(`${site.origin('example.test')}/`, { sitemap: 'only', limit: 10 })).links;
    assert.equal(only.length, 10);
    assert.ok(only.every((link) => SITEMAP_PATHS.map(www).includes(link.url)));
  });

  it("maxDiscoveryDepth, the hosted SDK's depth, bounds the link hops as maxDepth does", async () => {
    const job = await client.crawl(`${site.origin('www.example.test')}/`, { maxDiscoveryDepth: 1, sitemap: 'skip', limit: 20, pollInterval: 1 });
    assert.deepEqual(landedPaths(job.data), onWww('/', '/a', '/b', '/c'), 'not /a/deep, two hops away');
  });

  it('includePaths: the start page is not returned, counted or charged unless it matches', async () => {
    const job = await client.crawl(`${site.origin('www.example.test')}/`, { includePaths: ['^/a'], sitemap: 'skip', pollInterval: 1 });
    assert.equal(job.status, 'completed');
    assert.deepEqual(landedPaths(job.data), onWww('/a', '/a/deep'));
    assert.deepEqual([job.completed, job.total, job.creditsUsed], [2, 2, 2]);
  });
});

describe('a crawl page that redirects out of the crawl', () => {
  it('is not returned but listed among the errors, and its links are not followed', async () => {
    const site = await startServer({
      '/in/': html('<main><h1>In</h1><a href="/in/one">one</a> <a href="/in/moved">moved</a></main>'),
      '/in/one': html('<main><h1>One</h1></main>'),
      '/in/moved': (_q, r) => void r.writeHead(301, { location: '/out/there' }).end(),
      '/out/there': html('<main><h1>There</h1><a href="/in/only-from-there">on</a></main>'),
      '/in/only-from-there': html('<main><h1>Only from there</h1></main>'),
    });
    const served = await serveWebwatch();
    try {
      const client = new Firecrawl({ apiKey: (await served.keys.create('acme', new Date())).key, apiUrl: served.origin });
      const job = await client.crawl(`${site.origin}/in/`, { sitemap: 'skip', limit: 10, pollInterval: 1 });
      assert.deepEqual(job.data.map((document) => new URL(document.metadata!.url!).pathname).sort(), ['/in/', '/in/one']);
      const { errors } = await client.getCrawlErrors(job.id);
      assert.equal(errors.length, 1);
      assert.equal(errors[0]!.url, `${site.origin}/in/moved`);
      assert.match(errors[0]!.error, /redirected to .*\/out\/there, outside the crawl's scope/);
      assert.equal(site.requests.filter((request) => request.path === '/in/only-from-there').length, 0, 'its links are not followed');
    } finally {
      await served.stop();
      await site.close();
    }
  });
});
