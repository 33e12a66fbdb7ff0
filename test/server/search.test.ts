/** Web search over a SearXNG-speaking fake on loopback: serve, the hosted clients, the CLI, and faults. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const FIRECRAWL_CLI = createRequire(import.meta.url).resolve('firecrawl-cli/dist/index.js');
const exec = promisify(execFile);

describe('search', () => {
  let site: TestServer;
  let searxng: TestServer;
  let served: ServingWebwatch;
  let key: string;
  const asked: URLSearchParams[] = [];
  before(async () => {
    site = await startServer({
      '/launch': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><h1>GPU launch</h1><p>It launched today.</p></main>'),
    });
    searxng = await startServer({
      '/search': (request, response) => {
        const params = new URL(request.url!, 'http://x').searchParams;
        asked.push(params);
        const q = params.get('q');
        if (q === 'provider error') return void response.writeHead(500).end('oops');
        if (q === 'malformed') return void response.writeHead(200, { 'content-type': 'application/json' }).end('{"results": [');
        if (q === 'slow') return void setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end('{"results": []}'), 3000);
        const news = params.get('categories') === 'news';
        const results = news
          ? [{ url: 'https://news.example/gpu', title: 'GPU news', content: 'Launch coverage', publishedDate: '2026-11-21T10:00:00Z' }]
          : [
              { url: `${site.origin}/launch`, title: 'GPU launch page', content: 'The launch' },
              { url: 'https://spam.example/gpu', title: 'Deals', content: 'Buy' },
              { url: `${site.origin}/launch#top`, title: 'Same page', content: 'again' },
              { url: 'ftp://files.example/gpu', title: 'Not http', content: '' },
              { url: 'https://docs.example/gpu', title: 'GPU docs', content: 'Reference' },
            ];
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: q, results }));
      },
    });
    served = await serveWebwatch({ search: { provider: 'searxng', baseUrl: searxng.origin } });
    key = (await served.keys.create('acme', new Date())).key;
  });
  after(async () => {
    await served.stop();
    await searxng.close();
    await site.close();
  });
  const search = (payload: unknown, to: string | { url: string } = served, apiKey = key) => call(to, apiKey, 'POST', '/search', payload);

  it('answers web and news results, filtered, de-duplicated and numbered, with warnings for what it ignores', async () => {
    const { status, body } = await search({ query: 'gpu launch', sources: ['web', { type: 'news' }], excludeDomains: ['spam.example'], tbs: 'qdr:w', country: 'DE' });
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.data.web.map((r: { url: string; position: number }) => [r.url, r.position]), [[`${site.origin}/launch`, 1], ['https://docs.example/gpu', 2]]);
    assert.deepEqual(body.data.news, [{ url: 'https://news.example/gpu', title: 'GPU news', snippet: 'Launch coverage', date: '2026-11-21T10:00:00.000Z', position: 1 }]);
    assert.match(body.warning, /location and country are not used/);
    const params = asked.at(-1)!;
    assert.equal(params.get('time_range'), 'week');
    assert.equal((await search({ query: 'gpu launch', limit: 1 })).body.data.web.length, 1);
  });

  it('scrapes each result with scrapeOptions, under the private-address rule of the server', async () => {
    const { body } = await search({ query: 'gpu launch', includeDomains: ['127.0.0.1'], scrapeOptions: { formats: ['markdown'] } });
    assert.equal(body.data.web.length, 1);
    assert.match(body.data.web[0].markdown, /It launched today/);
    assert.equal(body.data.web[0].title, 'GPU launch page');
    const guarded = await serveWebwatch({ search: { provider: 'searxng', baseUrl: searxng.origin }, allowPrivateTargets: false });
    try {
      const refused = await search({ query: 'gpu launch', includeDomains: ['127.0.0.1'], scrapeOptions: { formats: ['markdown'] } }, guarded.url, (await guarded.keys.create('acme', new Date())).key);
      assert.equal(refused.status, 200);
      assert.equal(refused.body.data.web[0].markdown, undefined);
      assert.match(refused.body.data.web[0].metadata.error, /private|loopback|Forbidden/i);
    } finally {
      await guarded.stop();
    }
  });

  it('names the field it refuses, and says why the provider failed', async () => {
    const images = await search({ query: 'x', sources: ['images'] });
    assert.equal(images.status, 400);
    assert.match(JSON.stringify(images.body.details), /sources\[0\].*not offered/);
    const tbs = await search({ query: 'x', tbs: 'cdr:1,cd_min:1/1/2020' });
    assert.equal(tbs.status, 400);
    assert.match(JSON.stringify(tbs.body.details), /tbs/);
    assert.equal((await search({ query: '' })).status, 400);
    const failed = await search({ query: 'provider error' });
    assert.equal(failed.status, 502);
    assert.equal(failed.body.code, 'SEARCH_PROVIDER_FAILED');
    assert.match(failed.body.error, /HTTP 500/);
    assert.match((await search({ query: 'malformed' })).body.error, /malformed JSON/);
    const slow = await search({ query: 'slow', timeout: 1000 });
    assert.equal(slow.status, 408);
  });

  it('without a provider, says how to configure one', async () => {
    const bare = await serveWebwatch();
    try {
      const { status, body } = await search({ query: 'x' }, bare.url, (await bare.keys.create('acme', new Date())).key);
      assert.equal(status, 501);
      assert.equal(body.code, 'SEARCH_NOT_CONFIGURED');
      assert.match(body.details.reason, /search: \{provider: searxng/);
    } finally {
      await bare.stop();
    }
    const local = await run(['search', 'gpu']);
    assert.equal(local.code, 1);
    assert.match(local.stderr, /error: no search provider is configured\nhint: add to the config: search: \{provider: searxng/);
  });

  it('the hosted JS SDK and CLI search through serve', async () => {
    const client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
    const found = await client.search('gpu launch', { limit: 5, sources: ['web'] });
    assert.deepEqual(found.web?.map((r) => (r as { url: string }).url), [`${site.origin}/launch`, 'https://spam.example/gpu', 'https://docs.example/gpu']);
    const home = tempDir();
    const { stdout } = await exec(process.execPath, [FIRECRAWL_CLI, '--api-url', served.origin, '--api-key', key, 'search', 'gpu launch', '--json'], { env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home }, cwd: home });
    assert.match(stdout, /docs\.example\/gpu/);
  });

  it('webwatch search, on the engine with a configured provider and through serve', async () => {
    const config = writeFiles({ 'webwatch/config.yaml': `search: {provider: searxng, baseUrl: "${searxng.origin}"}\n` });
    const local = await run(['search', 'gpu', 'launch', '--exclude-domain', 'spam.example'], { env: { XDG_CONFIG_HOME: config } });
    assert.equal(local.code, 0, local.stderr);
    assert.equal(local.stdout, `1\t${site.origin}/launch\tGPU launch page\n2\thttps://docs.example/gpu\tGPU docs\n`);
    const remote = await run(['search', 'gpu launch', '--sources', 'news', '--json'], { env: { WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: key } });
    assert.equal(remote.code, 0, remote.stderr);
    assert.deepEqual(JSON.parse(remote.stdout).news.map((r: { url: string }) => r.url), ['https://news.example/gpu']);
    const scraped = JSON.parse((await run(['search', 'gpu launch', '--include-domain', '127.0.0.1', '-f', 'markdown', '--json'], { env: { XDG_CONFIG_HOME: config } })).stdout);
    assert.match(scraped.web[0].markdown, /It launched today/);
    const bad = await run(['search', 'x', '--sources', 'images'], { env: { XDG_CONFIG_HOME: config } });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--sources: "images" results are not offered/);
  });
});
