/**
 * What "the site" is to a crawl: apex and `www.` are one host, and the host a start URL is
 * redirected to is the site too, its links, robots.txt and sitemap. Names on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { crawl, type CrawlOptions, type CrawlPage } from '../../src/engine/crawl/crawl.js';
import { WebwatchError } from '../../src/errors/webwatch-error.js';
import type { ScrapeContext } from '../../src/engine/scrape/scrape.js';
import { SITEMAP_PATHS, startMovedSite, type MovedSite } from '../helpers/moved-site.js';

describe('crawl: the site of a start URL that redirects', () => {
  let site: MovedSite;
  before(async () => {
    site = await startMovedSite();
  });
  after(() => site.close());

  async function run(start: string, options: CrawlOptions, context: ScrapeContext = { version: 't', now: () => new Date() }) {
    const pages: CrawlPage[] = [];
    const summary = await crawl(start, options, {}, context, (page) => void pages.push(page));
    // Where each page was read: the start page is requested on the apex and lands on www.
    const landed = pages
      .flatMap((page) => ('document' in page ? [page.document.metadata.url] : []))
      .map((url) => {
        const parsed = new URL(url);
        return `${parsed.hostname}${parsed.pathname}`;
      });
    return { pages, summary, landed: landed.sort() };
  }
  const onWww = (...paths: string[]) => paths.map((path) => `www.example.test${path}`).sort();

  it('crawls the www pages of an apex start URL, links and sitemap, each once, and keeps robots.txt', async () => {
    const before = site.requested('www.example.test', '/');
    const { landed, summary } = await run(`${site.origin('example.test')}`, {});
    assert.deepEqual(landed, onWww('/', '/a', '/a/deep', '/b', '/c', ...SITEMAP_PATHS));
    assert.equal(site.requested('www.example.test', '/') - before, 1, 'the page the start URL landed on is not fetched again');
    assert.deepEqual([summary.skippedByRobots, summary.robotsBlocked], [1, [`${site.origin('www.example.test')}/private/x`]]);
  });

  it('with sitemap skip, the start page links alone', async () => {
    const { landed } = await run(`${site.origin('example.test')}/`, { sitemap: 'skip' });
    assert.deepEqual(landed, onWww('/', '/a', '/a/deep', '/b', '/c'));
  });

  it('a www start URL takes the apex links as its own', async () => {
    const { landed } = await run(`${site.origin('www.example.test')}/`, { sitemap: 'skip', maxDepth: 1 });
    assert.deepEqual(landed, onWww('/', '/a', '/b', '/c'));
  });

  it('a start URL redirected to another host: that host is the site, with its robots.txt and sitemap', async () => {
    const { landed, summary } = await run(`${site.origin('moved.test')}/`, {});
    assert.deepEqual(landed, onWww('/', '/a', '/a/deep', '/b', '/c', ...SITEMAP_PATHS));
    assert.equal(summary.skippedByRobots, 1, 'the robots.txt of the host it landed on is kept');
  });

  it('other sites stay out, and the folder rule holds on www', async () => {
    const { landed } = await run(`${site.origin('example.test')}/a`, { sitemap: 'skip' });
    assert.deepEqual(landed, onWww('/a', '/a/deep'));
    assert.ok(!(await run(`${site.origin('example.test')}/`, { sitemap: 'skip', crawlEntireDomain: true })).landed.some((url) => url.startsWith('elsewhere')));
  });

  it('includePaths: the start page is read for its links, and returned only when it matches', async () => {
    const { landed, summary } = await run(`${site.origin('example.test')}/`, { sitemap: 'skip', includePaths: ['^/a'] });
    assert.deepEqual(landed, onWww('/a', '/a/deep'));
    assert.equal(summary.pages, 2);
  });

  it('every redirect is judged by checkUrl: a refused www leaves one failed start page', async () => {
    const judged: string[] = [];
    const checkUrl = (url: URL) => {
      judged.push(url.hostname);
      if (url.hostname === 'www.example.test') throw new WebwatchError('Forbidden', { status: 403 });
    };
    const before = site.server.requests.length;
    const { pages, summary } = await run(
      `${site.origin('example.test')}/`,
      { sitemap: 'skip', ignoreRobotsTxt: true },
      { version: 't', now: () => new Date(), checkUrl },
    );
    assert.equal(pages.length, 1);
    assert.ok('error' in pages[0]! && (pages[0].error as WebwatchError).status === 403);
    assert.deepEqual([summary.pages, summary.errors], [0, 1]);
    assert.ok(judged.includes('www.example.test'));
    assert.ok(
      site.server.requests.slice(before).every((request) => request.headers.host?.startsWith('example.test')),
      'nothing was asked of www',
    );
  });
});
