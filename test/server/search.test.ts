/** Web search over a SearXNG-speaking fake on loopback: serve, the hosted clients, the CLI, and faults. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import Firecrawl, { type SearchResultImages, type SearchResultNews } from '@mendable/firecrawl-js';
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
        if (params.get('categories') === 'images') {
          // SearXNG's image results: the image in img_src, its size in resolution (spelled as engines do) or width and height.
          const images = [
            {
              url: 'https://photos.example/gpu',
              title: 'GPU photo',
              img_src: 'https://photos.example/gpu.jpg',
              resolution: '1920x1080',
              thumbnail_src: 'https://t.example/1.jpg',
            },
            { url: 'https://blog.example/launch', title: 'Launch day', img_src: '/img/launch.png', resolution: '800 × 600' },
            { url: 'https://cdn.example/page', title: 'Sized by fields', img_src: 'https://cdn.example/board.webp', img_width: 640, img_height: '480' },
            { url: 'https://again.example/gpu', title: 'Same image elsewhere', img_src: 'https://photos.example/gpu.jpg', resolution: '1920x1080' },
            { url: 'https://inline.example/', title: 'Inline', img_src: 'data:image/png;base64,AAAA' },
            { url: 'https://spam.example/img', title: 'Spam', img_src: 'https://spam.example/a.jpg' },
            { url: 'https://nosize.example/', title: '', img_src: 'https://nosize.example/x.gif', resolution: 'unknown' },
            { url: 'https://nosrc.example/', title: 'No image' },
          ];
          return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: q, results: images }));
        }
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
    const { status, body } = await search({
      query: 'gpu launch',
      sources: ['web', { type: 'news' }],
      excludeDomains: ['spam.example'],
      tbs: 'qdr:w',
      country: 'DE',
    });
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(
      body.data.web.map((r: { url: string; position: number }) => [r.url, r.position]),
      [
        [`${site.origin}/launch`, 1],
        ['https://docs.example/gpu', 2],
      ],
    );
    assert.deepEqual(body.data.news, [
      { url: 'https://news.example/gpu', title: 'GPU news', snippet: 'Launch coverage', date: '2026-11-21T10:00:00.000Z', position: 1 },
    ]);
    assert.match(body.warning, /location and country are not used/);
    // As the hosted API answers: an id, and the credits (2 for up to 10 results).
    assert.match(body.id, /^[0-9a-f-]{36}$/);
    assert.equal(body.creditsUsed, 2);
    const params = asked.at(-1)!;
    assert.equal(params.get('time_range'), 'week');
    assert.equal((await search({ query: 'gpu launch', limit: 1 })).body.data.web.length, 1);
  });

  it("images: asked of SearXNG's images category; the answer then has web, news and images, each a list", async () => {
    const { status, body } = await search({ query: 'gpu launch', sources: ['images'], excludeDomains: ['spam.example'] });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(asked.at(-1)!.get('categories'), 'images');
    assert.deepEqual(Object.keys(body.data), ['web', 'news', 'images']);
    assert.deepEqual([body.data.web, body.data.news], [[], []]);
    assert.deepEqual(body.data.images, [
      { title: 'GPU photo', imageUrl: 'https://photos.example/gpu.jpg', imageWidth: 1920, imageHeight: 1080, url: 'https://photos.example/gpu', position: 1 },
      {
        title: 'Launch day',
        imageUrl: 'https://blog.example/img/launch.png',
        imageWidth: 800,
        imageHeight: 600,
        url: 'https://blog.example/launch',
        position: 2,
      },
      { title: 'Sized by fields', imageUrl: 'https://cdn.example/board.webp', imageWidth: 640, imageHeight: 480, url: 'https://cdn.example/page', position: 3 },
      { imageUrl: 'https://nosize.example/x.gif', url: 'https://nosize.example/', position: 4 },
    ]);
    // With web and images: the web results, no news, the images; the limit is per source.
    const both = await search({ query: 'gpu launch', sources: [{ type: 'web' }, 'images'], limit: 2 });
    assert.deepEqual(Object.keys(both.body.data), ['web', 'news', 'images']);
    assert.deepEqual(
      both.body.data.web.map((r: { url: string }) => r.url),
      [`${site.origin}/launch`, 'https://spam.example/gpu'],
    );
    assert.deepEqual(both.body.data.news, []);
    assert.deepEqual(
      both.body.data.images.map((r: { imageUrl: string }) => r.imageUrl),
      ['https://photos.example/gpu.jpg', 'https://blog.example/img/launch.png'],
    );
    // Image results are not scraped.
    const scraped = await search({ query: 'gpu launch', sources: ['images'], scrapeOptions: { formats: ['markdown'] } });
    assert.equal(scraped.body.data.images[0].markdown, undefined);
    // Without images, the sources asked only, as before.
    assert.deepEqual(Object.keys((await search({ query: 'gpu launch' })).body.data), ['web']);
    // A server whose provider is another v2 API (this one) passes its images on.
    const relay = await serveWebwatch({ search: { provider: 'v2', apiUrl: served.url, apiKey: key } });
    try {
      const relayed = await search({ query: 'gpu launch', sources: ['images'], limit: 3 }, relay.url, (await relay.keys.create('acme', new Date())).key);
      assert.equal(relayed.status, 200, JSON.stringify(relayed.body));
      assert.deepEqual(relayed.body.data.images, body.data.images.slice(0, 3));
    } finally {
      await relay.stop();
    }
  });

  it('scrapes each result with scrapeOptions, under the private-address rule of the server', async () => {
    const { body } = await search({ query: 'gpu launch', includeDomains: ['127.0.0.1'], scrapeOptions: { formats: ['markdown'] } });
    assert.equal(body.data.web.length, 1);
    assert.match(body.data.web[0].markdown, /It launched today/);
    assert.equal(body.data.web[0].title, 'GPU launch page');
    assert.equal(body.creditsUsed, 2 + body.data.web[0].metadata.creditsUsed, 'the results and the page scraped');
    const guarded = await serveWebwatch({ search: { provider: 'searxng', baseUrl: searxng.origin }, allowPrivateTargets: false });
    try {
      const refused = await search(
        { query: 'gpu launch', includeDomains: ['127.0.0.1'], scrapeOptions: { formats: ['markdown'] } },
        guarded.url,
        (await guarded.keys.create('acme', new Date())).key,
      );
      assert.equal(refused.status, 200);
      assert.equal(refused.body.data.web[0].markdown, undefined);
      assert.match(refused.body.data.web[0].metadata.error, /private|loopback|Forbidden/i);
    } finally {
      await guarded.stop();
    }
  });

  it('names the field it refuses, and says why the provider failed', async () => {
    // Provider tools: refused as the hosted API refuses them to a team without them, 403 with its
    // message, so that its clients ask again for web results alone.
    for (const body of [
      { query: 'x', sources: ['web', 'alexandria'] },
      { query: 'x', sources: [{ type: 'alexandria' }] },
      { query: 'x', domainTools: true },
    ]) {
      const alexandria = await search(body);
      assert.equal(alexandria.status, 403, JSON.stringify(body));
      assert.equal(alexandria.body.error, 'Exchange is not enabled for this team.');
      assert.match(alexandria.body.details.reason, /provider tools/);
    }
    assert.match(JSON.stringify((await search({ query: 'x', sources: ['videos'] })).body.details), /must be one of web, news, images/);
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
    assert.equal(local.code, 2, 'a missing provider is configuration to set, as a missing model is');
    assert.match(local.stderr, /error: no search provider is configured\nhint: add to the config: search: \{provider: searxng/);
  });

  it('the hosted JS SDK and CLI search through serve', async () => {
    const client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
    const found = await client.search('gpu launch', { limit: 5, sources: ['web'] });
    assert.deepEqual(
      found.web?.map((r) => (r as { url: string }).url),
      [`${site.origin}/launch`, 'https://spam.example/gpu', 'https://docs.example/gpu'],
    );
    const pictures = await client.search('gpu launch', { limit: 2, sources: ['images', { type: 'news' }] });
    assert.deepEqual([pictures.web, pictures.news?.map((r) => (r as SearchResultNews).url)], [[], ['https://news.example/gpu']]);
    const [first] = (pictures.images ?? []) as SearchResultImages[];
    assert.deepEqual(first, {
      title: 'GPU photo',
      imageUrl: 'https://photos.example/gpu.jpg',
      imageWidth: 1920,
      imageHeight: 1080,
      url: 'https://photos.example/gpu',
      position: 1,
    });
    assert.equal(pictures.images?.length, 2);
    const home = tempDir();
    const { stdout } = await exec(process.execPath, [FIRECRAWL_CLI, '--api-url', served.origin, '--api-key', key, 'search', 'gpu launch', '--json'], {
      env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home },
      cwd: home,
    });
    assert.match(stdout, /docs\.example\/gpu/);
  });

  it('webwatch search, on the engine with a configured provider and through serve', async () => {
    const config = writeFiles({ 'webwatch/config.yaml': `search: {provider: searxng, baseUrl: "${searxng.origin}"}\n` });
    const local = await run(['search', 'gpu', 'launch', '--exclude-domain', 'spam.example'], { env: { XDG_CONFIG_HOME: config } });
    assert.equal(local.code, 0, local.stderr);
    assert.equal(local.stdout, `1\t${site.origin}/launch\tGPU launch page\n2\thttps://docs.example/gpu\tGPU docs\n`);
    const remote = await run(['search', 'gpu launch', '--sources', 'news', '--json'], { env: { WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: key } });
    assert.equal(remote.code, 0, remote.stderr);
    assert.deepEqual(
      JSON.parse(remote.stdout).news.map((r: { url: string }) => r.url),
      ['https://news.example/gpu'],
    );
    const scraped = JSON.parse(
      (await run(['search', 'gpu launch', '--include-domain', '127.0.0.1', '-f', 'markdown', '--json'], { env: { XDG_CONFIG_HOME: config } })).stdout,
    );
    assert.match(scraped.web[0].markdown, /It launched today/);
    const images = await run(['search', 'gpu launch', '--sources', 'images', '--limit', '2'], { env: { XDG_CONFIG_HOME: config } });
    assert.equal(images.code, 0, images.stderr);
    assert.equal(images.stdout, '1\thttps://photos.example/gpu.jpg\tGPU photo\n2\thttps://blog.example/img/launch.png\tLaunch day\n');
    assert.match(images.stderr, /web: no results\n(.|\n)*news: no results\n(.|\n)*images:/);
    const bad = await run(['search', 'x', '--sources', 'alexandria'], { env: { XDG_CONFIG_HOME: config } });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--sources: "alexandria" results are not offered/);
  });
});
