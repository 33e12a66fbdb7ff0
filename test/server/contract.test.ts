/**
 * The contract with the hosted SDK: every field its types require of a monitor check, a check
 * page and a crawl status is in serve's answers. The required keys are read from the SDK's own
 * `dist/index.d.ts`, so a new required field there fails this test until serve sends it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

const typesFile = join(dirname(createRequire(import.meta.url).resolve('@mendable/firecrawl-js')), 'index.d.ts');
const types = readFileSync(typesFile, 'utf8');

/** The keys an interface of the SDK declares without `?` (its own body only, not what it extends). */
function requiredKeys(name: string): string[] {
  const start = types.search(new RegExp(`interface ${name.replace(/[$]/g, '\\$&')}(?:<[^>]*>)? (?:extends [^{]+)?\\{`));
  assert.ok(start >= 0, `the SDK declares ${name}`);
  let depth = 0;
  let body = '';
  for (let i = types.indexOf('{', start); i < types.length; i++) {
    const c = types[i]!;
    if (c === '{') depth++;
    if (c === '}') depth--;
    if (depth === 1 && c !== '{') body += c;
    if (depth === 0) break;
  }
  return [...body.matchAll(/^\s*(\w+)\s*:/gm)].map((m) => m[1]!);
}

describe('serve answers what the SDK types require', () => {
  let site: TestServer;
  let served: ServingWebwatch;
  let apiKey: string;
  before(async () => {
    site = await startServer({ '/a': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>a page</p></main>') });
    served = await serveWebwatch();
    apiKey = (await served.keys.create('acme', new Date())).key;
  });
  after(async () => {
    await served.stop();
    await site.close();
  });

  it('reads the required keys from the SDK', () => {
    assert.deepEqual(requiredKeys('MonitorCheck').sort(), ['billingStatus', 'createdAt', 'id', 'monitorId', 'status', 'summary', 'trigger', 'updatedAt']);
    assert.ok(requiredKeys('MonitorCheckPage').includes('createdAt'));
  });

  it('checks, running and finished, their pages, and crawl status carry every required key', async () => {
    const monitor = (
      await call(served, apiKey, 'POST', '/monitor', {
        name: 'Contract',
        schedule: { cron: '0 * * * *' },
        targets: [{ type: 'scrape', urls: [`${site.origin}/a`] }],
      })
    ).body.data;
    const running = (await call(served, apiKey, 'POST', `/monitor/${monitor.id}/run`, undefined, { type: 'application/json' })).body.data;
    for (const key of requiredKeys('MonitorCheck')) assert.ok(key in running && running[key] !== null && running[key] !== undefined, `running check: ${key}`);
    assert.deepEqual(running.summary, { changed: 0, error: 0, new: 0, removed: 0, same: 0, totalPages: 0 }, 'a zeroed summary while queued');

    let check: Body;
    for (let i = 0; i < 100; i++) {
      check = (await call(served, apiKey, 'GET', `/monitor/${monitor.id}/checks/${running.id}`)).body.data;
      if (check.status !== 'running' && check.status !== 'queued') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const key of [...requiredKeys('MonitorCheck'), ...requiredKeys('MonitorCheckDetail')]) assert.ok(key in check, `check: ${key}`);
    assert.equal(check.billingStatus, 'not_applicable');
    assert.equal(check.actualCredits, 1);
    for (const key of requiredKeys('MonitorCheckPage')) assert.ok(check.pages[0][key] !== undefined, `check page: ${key}`);
    assert.equal(check.pages[0].id, `${check.id}:0`);
    for (const listed of (await call(served, apiKey, 'GET', `/monitor/${monitor.id}/checks`)).body.data) {
      for (const key of requiredKeys('MonitorCheck')) assert.ok(key in listed, `listed check: ${key}`);
    }

    const crawl = (await call(served, apiKey, 'POST', '/crawl', { url: `${site.origin}/a`, sitemap: 'skip', ignoreRobotsTxt: true, limit: 1 })).body;
    let status: Body;
    for (let i = 0; i < 100; i++) {
      status = (await call(served, apiKey, 'GET', `/crawl/${crawl.id}`)).body;
      if (status.status !== 'scraping') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const key of requiredKeys('CrawlJob')) assert.ok(key in status, `crawl status: ${key}`);
    assert.ok('expiresAt' in status && 'next' in status);
  });

  it('batch scrapes, maps, searches, errors and usage carry every required key', async () => {
    const batch = (await call(served, apiKey, 'POST', '/batch/scrape', { urls: [`${site.origin}/a`] })).body;
    for (const key of requiredKeys('BatchScrapeResponse$1')) assert.ok(key in batch, `batch start: ${key}`);
    let status: Body;
    for (let i = 0; i < 100; i++) {
      status = (await call(served, apiKey, 'GET', `/batch/scrape/${batch.id}`)).body;
      if (status.status !== 'scraping') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const key of requiredKeys('BatchScrapeJob')) assert.ok(key in status, `batch status: ${key}`);
    for (const key of requiredKeys('CrawlErrorsResponse$1'))
      assert.ok(key in (await call(served, apiKey, 'GET', `/batch/scrape/${batch.id}/errors`)).body, `errors: ${key}`);
    const map = (await call(served, apiKey, 'POST', '/map', { url: `${site.origin}/a`, sitemap: 'skip' })).body;
    for (const key of requiredKeys('MapData')) assert.ok(key in map, `map: ${key}`);
    for (const key of requiredKeys('SearchResultWeb'))
      assert.ok(
        map.links.every((link: Body) => key in link),
        `map link: ${key}`,
      );
    for (const key of requiredKeys('ConcurrencyCheck')) assert.ok(key in (await call(served, apiKey, 'GET', '/concurrency-check')).body, `concurrency: ${key}`);
    for (const key of requiredKeys('CreditUsage'))
      assert.ok(key in (await call(served, apiKey, 'GET', '/team/credit-usage')).body.data, `credit usage: ${key}`);
    for (const key of requiredKeys('TokenUsage')) assert.ok(key in (await call(served, apiKey, 'GET', '/team/token-usage')).body.data, `token usage: ${key}`);
    for (const key of requiredKeys('QueueStatusResponse$1'))
      assert.ok(key in (await call(served, apiKey, 'GET', '/team/queue-status')).body, `queue status: ${key}`);
    for (const key of requiredKeys('ActiveCrawlsResponse'))
      assert.ok(key in (await call(served, apiKey, 'GET', '/crawl/active')).body, `active crawls: ${key}`);
  });
});
