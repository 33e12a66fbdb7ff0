/** Map: a site's URLs from its sitemaps and start page — engine, serve, the hosted clients, the CLI. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { tempDir } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const FIRECRAWL_CLI = createRequire(import.meta.url).resolve('firecrawl-cli/dist/index.js');
const exec = promisify(execFile);

describe('map', () => {
  let site: TestServer;
  let root: string;
  let served: ServingWebwatch;
  let key: string;
  before(async () => {
    // Pages name the site's own address, known once it listens: handlers read it when asked.
    const page =
      (body: () => string, type = 'text/html') =>
      (_q: unknown, r: import('node:http').ServerResponse) =>
        void r.writeHead(200, { 'content-type': type }).end(body());
    site = await startServer({
      '/': page(
        () => `<html><head><title>Acme home</title><meta name="description" content="All about Acme"></head><body>
        <a href="/pricing">Pricing plans</a> <a href="/blog/one?utm=x">First post</a> <a href="/blog/one?utm=y">again</a>
        <a href="https://elsewhere.example/">Elsewhere</a> <a href="http://docs.localhost:${new URL(root).port}/guide">Docs subdomain</a>
        <a href="mailto:x@y">mail</a></body></html>`,
      ),
      '/robots.txt': page(() => `User-agent: *\nAllow: /\nSitemap: ${root}/sitemap-index.xml\n`, 'text/plain'),
      '/sitemap-index.xml': page(
        () => `<sitemapindex><sitemap><loc>${root}/sitemap-a.xml</loc></sitemap><sitemap><loc>${root}/sitemap-b.xml</loc></sitemap></sitemapindex>`,
        'application/xml',
      ),
      '/sitemap-a.xml': page(() => `<urlset><url><loc>${root}/about</loc></url><url><loc>${root}/pricing</loc></url></urlset>`, 'application/xml'),
      '/sitemap-b.xml': page(
        () => `<urlset><url><loc>${root}/careers</loc></url><url><loc>${root}/blog/pricing-changes</loc></url></urlset>`,
        'application/xml',
      ),
      // A start page that answers after 3 s.
      '/slow': (_q, r) => void setTimeout(() => r.writeHead(200, { 'content-type': 'text/html' }).end('<title>Slow</title>'), 3000),
    });
    root = `http://localhost:${new URL(site.origin).port}`;
    served = await serveWebwatch();
    key = (await served.keys.create('acme', new Date())).key;
  });
  after(async () => {
    await served.stop();
    await site.close();
  });
  const map = (payload: unknown, apiKey = key, to: string | { url: string } = served) =>
    call<{ success: boolean; links: { url: string; title?: string; description?: string }[]; error?: string; details?: unknown }>(
      to,
      apiKey,
      'POST',
      '/map',
      payload,
    );

  it('finds the sitemaps (through robots.txt and an index) and the start page links, once each', async () => {
    const { status, body } = await map({ url: `${root}/` });
    assert.equal(status, 200, JSON.stringify(body));
    assert.match((body as unknown as { id: string }).id, /^[0-9a-f-]{36}$/, "an id, as the hosted API's answer has");
    const urls = body.links.map((link) => link.url.replace(root, ''));
    assert.deepEqual(new Set(urls), new Set(['/', '/pricing', '/blog/one', '/about', '/careers', '/blog/pricing-changes']));
    assert.equal(urls.length, new Set(urls).size, 'no URL twice');
    const home = body.links.find((link) => link.url === `${root}/`)!;
    assert.deepEqual([home.title, home.description], ['Acme home', 'All about Acme']);
    assert.equal(body.links.find((link) => link.url === `${root}/pricing`)!.title, 'Pricing plans');
    assert.ok(!urls.some((url) => url.includes('elsewhere') || url.includes('docs.localhost')), 'other sites and subdomains left out');
  });

  it('search filters and orders, limit bounds, sitemap modes and query parameters are honoured', async () => {
    const searched = (await map({ url: `${root}/`, search: 'pricing' })).body.links.map((link) => link.url.replace(root, ''));
    assert.deepEqual(new Set(searched), new Set(['/pricing', '/blog/pricing-changes']));
    assert.equal((await map({ url: `${root}/`, limit: 2 })).body.links.length, 2);
    const only = (await map({ url: `${root}/`, sitemap: 'only' })).body.links.map((link) => link.url.replace(root, ''));
    assert.deepEqual(new Set(only), new Set(['/about', '/pricing', '/careers', '/blog/pricing-changes']));
    const skip = (await map({ url: `${root}/`, sitemap: 'skip' })).body.links.map((link) => link.url.replace(root, ''));
    assert.ok(!skip.includes('/careers'));
    const kept = (await map({ url: `${root}/`, sitemap: 'skip', ignoreQueryParameters: false })).body.links.map((link) => link.url.replace(root, ''));
    assert.ok(kept.includes('/blog/one?utm=x') && kept.includes('/blog/one?utm=y'));
    const subdomains = (await map({ url: `${root}/`, sitemap: 'skip', includeSubdomains: true })).body.links.map((link) => link.url);
    assert.ok(
      subdomains.some((url) => url.startsWith('http://docs.localhost')),
      'a subdomain link with includeSubdomains',
    );
  });

  it('a bad request names the field; a bad URL is the §7 answer; private addresses are refused on a guarded server', async () => {
    const limit = await map({ url: `${root}/`, limit: 0 });
    assert.equal(limit.status, 400);
    assert.match(JSON.stringify(limit.body.details), /limit/);
    const badUrl = await map({ url: 'not a url' });
    assert.equal(badUrl.status, 400);
    const guarded = await serveWebwatch({ allowPrivateTargets: false });
    try {
      const refused = await map({ url: `${root}/` }, (await guarded.keys.create('acme', new Date())).key, guarded.url);
      assert.equal(refused.status, 403);
    } finally {
      await guarded.stop();
    }
  });

  it('any positive timeout; past it, 408 "Map timed out" (MAP_TIMEOUT) at once, and nothing of what was found', async () => {
    // Over the scrape's bound of 300000 ms, and not a whole number: taken as the hosted API takes it.
    assert.equal((await map({ url: `${root}/`, timeout: 600_000 })).status, 200);
    assert.equal((await map({ url: `${root}/`, timeout: 2500.5 })).status, 200);
    for (const timeout of [0, -5, 'soon']) {
      const refused = await map({ url: `${root}/`, timeout });
      assert.equal(refused.status, 400, String(timeout));
      assert.match(JSON.stringify(refused.body.details), /timeout/);
    }
    let started = Date.now();
    const slowPage = await map({ url: `${root}/slow`, timeout: 300 });
    assert.equal(slowPage.status, 408, JSON.stringify(slowPage.body));
    assert.deepEqual([slowPage.body.success, slowPage.body.error, (slowPage.body as { code?: string }).code], [false, 'Map timed out', 'MAP_TIMEOUT']);
    assert.ok(Date.now() - started < 2500, `answered after ${Date.now() - started} ms`);
    // A sitemap that does not come in time: the map fails, rather than answering the start page alone.
    const slowSitemap = await startServer({
      '/': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<title>Home</title><a href="/a">A</a>'),
      '/sitemap.xml': (_q, r) => void setTimeout(() => r.writeHead(200, { 'content-type': 'application/xml' }).end('<urlset></urlset>'), 3000),
    });
    try {
      started = Date.now();
      const timedOut = await map({ url: `${slowSitemap.origin}/`, timeout: 800 });
      assert.equal(timedOut.status, 408, JSON.stringify(timedOut.body));
      assert.equal(timedOut.body.error, 'Map timed out');
      assert.ok(Date.now() - started < 2500, `answered after ${Date.now() - started} ms`);
      // The hosted SDK sees the hosted API's error.
      const client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
      await assert.rejects(
        client.map(`${slowSitemap.origin}/`, { timeout: 800 }),
        (error: { status?: number; code?: string; message: string }) =>
          error.status === 408 && error.code === 'MAP_TIMEOUT' && error.message === 'Map timed out',
      );
      assert.equal((await map({ url: `${slowSitemap.origin}/`, sitemap: 'skip', timeout: 800 })).status, 200);
    } finally {
      await slowSitemap.close();
    }
  });

  it('the hosted JS SDK and CLI map through serve', async () => {
    const client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
    const mapped = await client.map(`${root}/`, { search: 'careers' });
    assert.deepEqual(
      mapped.links.map((link) => link.url),
      [`${root}/careers`],
    );
    const home = tempDir();
    const { stdout } = await exec(process.execPath, [FIRECRAWL_CLI, '--api-url', served.origin, '--api-key', key, 'map', `${root}/`, '--json'], {
      env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home },
      cwd: home,
    });
    assert.match(stdout, /\/careers/);
    // Extract needs a model, which this server has none of: refused as agent jobs are.
    await assert.rejects(client.extract({ urls: [`${root}/`], prompt: 'prices' }) as Promise<unknown>, /Failed to passthrough agent request/);
  });

  it('webwatch map, on the engine and through serve', async () => {
    const local = await run(['map', `${root}/`, '--search', 'careers']);
    assert.equal(local.code, 0, local.stderr);
    assert.equal(local.stdout, `${root}/careers\n`);
    const remote = await run(['map', `${root}/`, '--sitemap', 'only', '--json'], { env: { WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: key } });
    assert.equal(remote.code, 0, remote.stderr);
    assert.equal(JSON.parse(remote.stdout).links.length, 4);
    const bad = await run(['map', `${root}/`, '--limit', '0']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--limit: /);
  });
});
