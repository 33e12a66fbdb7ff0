/**
 * The settle wait before a rendered page is read: a page drawn late by its script, or after a
 * slow fetch of its own, is read once drawn; a page that never stops changing is read at the cap
 * with a warning; a plain page waits no more than the quiet window.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../src/engine/browser/chromium.js';
import { closeBrowserIfOpen } from '../../src/engine/browser/lifetime.js';
import { NETWORK_QUIET_MS, SETTLE_CAP_MS, SETTLE_RESERVE_MS, settleCap } from '../../src/engine/browser/settle.js';
import { scrape, type ScrapeContext } from '../../src/engine/scrape/scrape.js';
import type { ScrapeOptions } from '../../src/spec/scrape-options.js';
import { tempDir } from '../helpers/files.js';
import { html, startServer, type TestServer } from '../helpers/server.js';
import { serveWebwatch } from '../helpers/webwatch-server.js';
import Firecrawl from '@mendable/firecrawl-js';

const chromium = (() => {
  try {
    return findChromium(process.env, undefined, 'the tests');
  } catch {
    return undefined;
  }
})();

const app = (script: string) => html(`<html><head><title>App</title></head><body><div id="root"></div><script>${script}</script></body></html>`);

describe('the settle cap', () => {
  it('is the absolute cap, else what is left of the time less the reserve, never negative', () => {
    assert.equal(settleCap(1_000_000, 0), SETTLE_CAP_MS);
    assert.equal(settleCap(5000, 0), 5000 - SETTLE_RESERVE_MS);
    assert.equal(settleCap(500, 0), 0);
    assert.equal(settleCap(0, 100), 0);
  });
});

describe('the settle wait', { skip: !chromium && 'no Chromium: apt-get install chromium' }, () => {
  let site: TestServer;
  const context = (): ScrapeContext => ({ version: 'test', now: () => new Date(), browser: { env: process.env, artifactsDir: tempDir() } });
  const at = (path: string, options: ScrapeOptions = {}) => scrape({ url: `${site.origin}${path}`, options: { maxAge: 0, ...options } }, context());

  before(async () => {
    site = await startServer({
      '/late': app(
        'addEventListener("load", () => setTimeout(() => { document.getElementById("root").innerHTML = "<main><h1>Late</h1><p>Drawn three hundred milliseconds after load.</p></main>"; }, 300))',
      ),
      '/fetching': app(
        'fetch("/data").then((r) => r.json()).then((d) => { document.getElementById("root").innerHTML = "<main><h1>Fetched</h1><p>" + d.text + "</p></main>"; })',
      ),
      '/data': async (_q, r) => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        r.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'The answer came after four hundred milliseconds.' }));
      },
      '/ticker': app(
        'document.getElementById("root").innerHTML = "<main><h1>Ticker</h1><p>Started ticking.</p><p id=\\"n\\"></p></main>"; let n = 0; setInterval(() => { document.getElementById("n").textContent = "tick " + (++n); }, 50)',
      ),
      '/streaming': app(
        'const events = new EventSource("/events"); events.onmessage = (e) => { document.getElementById("root").innerHTML = "<main><h1>Stream</h1><p>" + e.data + "</p></main>"; };',
      ),
      '/events': (_q, r) => {
        // One event, then the stream stays open, as event streams do.
        r.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        r.write('data: The first event of a stream that stays open.\n\n');
      },
      '/plain': html(
        '<html><head><title>Plain</title></head><body><main><h1>Plain</h1><p>A plain page whose text is all in its HTML.</p></main></body></html>',
      ),
    });
    // The browser's start is not what these tests time.
    await at('/plain', { waitFor: 1 });
  });
  after(async () => {
    await closeBrowserIfOpen();
    site.close();
  });

  it('reads a page its script draws 300 ms after load, with no waitFor and no warning', async () => {
    const document = await at('/late');
    assert.match(document.markdown!, /Drawn three hundred milliseconds after load/);
    assert.equal(document.warning, undefined);
  });

  it('reads a page drawn from a fetch that answers after 400 ms', async () => {
    const document = await at('/fetching');
    assert.match(document.markdown!, /The answer came after four hundred milliseconds/);
    assert.equal(document.warning, undefined);
  });

  it('reads a page that never settles at the cap, with a warning, within the timeout', async () => {
    const timeoutMs = 3000;
    const started = Date.now();
    const document = await at('/ticker', { timeout: timeoutMs });
    const took = Date.now() - started;
    assert.ok(took < timeoutMs, `read within the timeout (${took} ms)`);
    assert.ok(took >= timeoutMs - SETTLE_RESERVE_MS - 1000, `waited up to the cap (${took} ms)`);
    assert.match(document.markdown!, /Started ticking/);
    assert.match(document.markdown!, /tick \d+/);
    assert.match(document.warning ?? '', /the page did not settle within \d+ ms \(DOM changes still going on\)/);
    assert.equal(document.metadata.statusCode, 200);
  });

  it('reads a page that holds an event stream open once drawn, without waiting the cap or a warning', async () => {
    const started = Date.now();
    const document = await at('/streaming', { timeout: 15_000 });
    assert.match(document.markdown!, /The first event of a stream that stays open/);
    assert.equal(document.warning, undefined);
    assert.ok(Date.now() - started < SETTLE_CAP_MS, 'the open stream is not waited for');
  });

  it('through serve and the hosted SDK: the late page has its text; the ticker its warning', async () => {
    const served = await serveWebwatch();
    try {
      const client = new Firecrawl({ apiKey: (await served.keys.create('acme', new Date())).key, apiUrl: served.origin });
      const late = await client.scrape(`${site.origin}/late`, { formats: ['markdown'], maxAge: 0 });
      assert.match(late.markdown!, /Drawn three hundred milliseconds after load/);
      assert.equal(late.warning, undefined);
      const ticker = await client.scrape(`${site.origin}/ticker`, { formats: ['markdown'], maxAge: 0, timeout: 3000 });
      assert.match(ticker.markdown!, /Started ticking/);
      assert.match(ticker.warning ?? '', /did not settle within \d+ ms/);
    } finally {
      await served.stop();
    }
  });

  it('a plain page rendered by the browser waits about the quiet window, no warning', async () => {
    const started = Date.now();
    const document = await at('/plain', { waitFor: 1 });
    const took = Date.now() - started;
    assert.match(document.markdown!, /whose text is all in its HTML/);
    assert.equal(document.warning, undefined);
    // Far from the cap; the margin is for a loaded machine.
    assert.ok(took < NETWORK_QUIET_MS + 2500, `a quiet page waits about the quiet window (${took} ms)`);
  });
});
