/** The crawler against a small site on 127.0.0.1. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { crawl, type CrawlOptions, type CrawlPage } from '../../src/engine/crawl/crawl.js';
import { normalizeUrl } from '../../src/engine/crawl/urls.js';
import type { WebwatchError } from '../../src/errors/webwatch-error.js';
import { html, startServer, type TestServer } from '../helpers/server.js';

const page = (title: string, links: string[]) =>
  html(`<title>${title}</title><main><h1>${title}</h1>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main>`);

describe('crawl', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({
      '/': page('Home', ['/a', '/b', '/a#section', '/b?x=1', 'http://other.invalid/x', '/private/secret', 'mailto:x@y.z', '/docs/']),
      '/a': page('A', ['/a/deep', '/']),
      '/a/deep': page('Deep', ['/a/deeper']),
      '/a/deeper': page('Deeper', []),
      '/b': page('B', []),
      '/private/secret': page('Secret', []),
      '/from-sitemap': page('From sitemap', []),
      '/docs/': page('Docs', ['/docs/one', '/elsewhere']),
      '/docs/one': page('Doc one', []),
      '/elsewhere': page('Elsewhere', []),
      '/robots.txt': (_q, r) =>
        void r.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nDisallow: /private/\nSitemap: ${server.origin}/sitemap.xml\n`),
      '/sitemap.xml': (_q, r) =>
        void r
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(`<?xml version="1.0"?><sitemapindex><sitemap><loc>${server.origin}/sitemap-pages.xml</loc></sitemap></sitemapindex>`),
      '/sitemap-pages.xml': (_q, r) =>
        void r.writeHead(200, { 'content-type': 'application/xml' }).end(`<urlset><url><loc>${server.origin}/from-sitemap</loc></url></urlset>`),
    });
  });
  after(() => server.close());

  const context = { version: 't', now: () => new Date() };
  async function run(options: CrawlOptions, start = '/') {
    const pages: CrawlPage[] = [];
    const summary = await crawl(`${server.origin}${start}`, options, {}, context, (p) => void pages.push(p));
    const paths = pages.map((p) => new URL(p.url).pathname + new URL(p.url).search).sort();
    return { pages, paths, summary };
  }

  it('crawls the site: links, sitemap index, robots.txt, de-duplication', async () => {
    const { paths, summary, pages } = await run({});
    assert.deepEqual(paths, ['/', '/a', '/a/deep', '/a/deeper', '/b', '/b?x=1', '/docs/', '/docs/one', '/elsewhere', '/from-sitemap']);
    assert.equal(summary.skippedByRobots, 1);
    assert.equal(summary.errors, 0);
    const home = pages.find((p) => new URL(p.url).pathname === '/')!;
    assert.ok('document' in home && home.document.markdown!.startsWith('# Home'));
    assert.ok('document' in home && home.document.links === undefined, 'links are used, not returned, unless asked for');
  });

  it('stays below the start URL unless crawlEntireDomain', async () => {
    assert.deepEqual((await run({ sitemap: 'skip' }, '/docs/')).paths, ['/docs/', '/docs/one']);
    assert.ok((await run({ sitemap: 'skip', crawlEntireDomain: true }, '/docs/')).paths.includes('/elsewhere'));
  });

  it('honours limit and maxDepth', async () => {
    assert.equal((await run({ limit: 3 })).pages.length, 3);
    assert.deepEqual((await run({ maxDepth: 1, sitemap: 'skip' })).paths, ['/', '/a', '/b', '/b?x=1', '/docs/']);
  });

  it('filters paths with includePaths and excludePaths', async () => {
    assert.deepEqual((await run({ includePaths: ['^/a'], sitemap: 'skip' })).paths, ['/a', '/a/deep', '/a/deeper']);
    assert.deepEqual((await run({ excludePaths: ['^/a', '^/docs'], sitemap: 'skip' })).paths, ['/', '/b', '/b?x=1']);
  });

  it('the start URL is read for its links but returned only when the path patterns let it in', async () => {
    const fetched = () => server.requests.filter((request) => request.path === '/').length;
    const before = fetched();
    const included = await run({ includePaths: ['^/a'], sitemap: 'skip' });
    assert.equal(fetched() - before, 1, 'the start page was fetched');
    assert.ok(
      included.pages.every((page) => /^\/a/.test(new URL(page.url).pathname)),
      'every page returned matches includePaths',
    );
    assert.deepEqual([included.summary.pages, included.summary.errors], [3, 0]);
    assert.deepEqual((await run({ excludePaths: ['^/$'], sitemap: 'skip', maxDepth: 1 })).paths, ['/a', '/b', '/b?x=1', '/docs/']);
    assert.deepEqual(
      (await run({ includePaths: ['^/docs/'], sitemap: 'skip' }, '/docs/')).paths,
      ['/docs/', '/docs/one'],
      'a start URL that matches is returned',
    );
    assert.deepEqual((await run({ includePaths: ['^/from'] })).paths, ['/from-sitemap'], 'sitemap pages are filtered alike');
    const closed = await startServer({});
    await closed.close();
    const failed: CrawlPage[] = [];
    const summary = await crawl(
      `${closed.origin}/`,
      { includePaths: ['^/a'], sitemap: 'skip', ignoreRobotsTxt: true },
      {},
      context,
      (p) => void failed.push(p),
    );
    assert.deepEqual([failed.length, 'error' in failed[0]!, summary.errors], [1, true, 1], 'a start page that cannot be fetched is still an error');
  });

  it('refuses, before fetching, a stored pattern that only a backtracking engine could run', async () => {
    const requests = server.requests.length;
    await assert.rejects(run({ excludePaths: ['^/a', '^/(?!docs)'] }), (error: WebwatchError) => {
      assert.equal(error.status, 400);
      assert.deepEqual(
        (error.details as { path: string }[]).map((detail) => detail.path),
        ['crawlOptions.excludePaths[1]'],
      );
      return true;
    });
    assert.equal(server.requests.length, requests);
  });

  it('can ignore robots.txt, skip or use only the sitemap, and ignore query parameters', async () => {
    assert.ok((await run({ ignoreRobotsTxt: true })).paths.includes('/private/secret'));
    assert.ok(!(await run({ sitemap: 'skip' })).paths.includes('/from-sitemap'));
    assert.deepEqual((await run({ sitemap: 'only', maxDepth: 0 })).paths, ['/from-sitemap']);
    assert.ok(!(await run({ ignoreQueryParameters: true })).paths.includes('/b?x=1'));
  });

  it('waits the politeness delay between requests to the host', async () => {
    const started = Date.now();
    const { pages } = await run({ delay: 0.1, limit: 4, sitemap: 'skip' });
    assert.equal(pages.length, 4);
    assert.ok(Date.now() - started >= 300, 'four requests 100 ms apart take at least 300 ms');
  });

  it('normalises URLs', () => {
    assert.equal(normalizeUrl('HTTP://Example.COM:80//a//b#frag'), 'http://example.com/a/b');
    assert.equal(normalizeUrl('https://x.com/p?q=1', true), 'https://x.com/p');
    assert.equal(normalizeUrl('mailto:a@b.c'), undefined);
  });
});
