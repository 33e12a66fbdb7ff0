/**
 * The browser: the system's Chromium (Debian's chromium, installed by .ci/run) driven for pages
 * that need it, against pages on loopback that need each feature.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../src/engine/browser/chromium.js';
import { browserRunning, closeBrowserIfOpen } from '../../src/engine/browser/lifetime.js';
import { PRIVATE_TARGET_HINT, refusePrivateTargets } from '../../src/engine/fetch/network-policy.js';
import { scrape, type ScrapeContext } from '../../src/engine/scrape/scrape.js';
import { WebwatchError } from '../../src/errors/webwatch-error.js';
import { errorBody } from '../../src/server/http.js';
import type { ScrapeOptions } from '../../src/spec/scrape-options.js';
import { run } from '../helpers/io.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { html, redirect, startServer, type TestServer } from '../helpers/server.js';

const chromium = (() => {
  try {
    return findChromium(process.env, undefined, 'the tests');
  } catch {
    return undefined;
  }
})();

/** SIGKILL to every process below `pid` (the browser and its helpers), as a crash would end them. */
function killDescendants(pid: number): void {
  // ps exits 1 when there is no child: its output is what counts.
  const children = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .map(Number)
    .filter(Boolean);
  for (const child of children) {
    if (child === pid) continue;
    killDescendants(child);
    try {
      process.kill(child, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Width and height of a PNG, from its IHDR chunk. */
const pngSize = (path: string) => {
  const bytes = readFileSync(fileURLToPath(path));
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
};

describe('the browser', { skip: !chromium && 'no Chromium: apt-get install chromium' }, () => {
  let site: TestServer;
  let other: TestServer;
  const context = (extra: Partial<ScrapeContext> = {}): ScrapeContext => ({
    version: 'test',
    now: () => new Date(),
    browser: { env: process.env, artifactsDir: tempDir() },
    ...extra,
  });
  const at = (path: string, options: ScrapeOptions = {}, extra: Partial<ScrapeContext> = {}) =>
    scrape({ url: `${site.origin}${path}`, options }, context(extra));

  before(async () => {
    other = await startServer({
      '/pixel.png': html(''),
      '/secret': html('<main><h1>Internal</h1><p>An internal dashboard that no public page may lead to.</p></main>'),
    });
    site = await startServer({
      '/plain': html(
        '<html><head><title>Plain</title></head><body><main><h1>Plain</h1><p>A plain page whose text is all in its HTML, long enough to be read without a browser.</p></main></body></html>',
      ),
      '/spa': html(
        '<html><head><title>App</title></head><body><div id="root"></div><script>document.getElementById("root").innerHTML = "<main><h1>Pricing</h1><p>The team plan costs $50 a month.</p></main>"</script></body></html>',
      ),
      '/reveal': html(
        '<html><body><main><h1>Offer</h1><p>Press the button to see today\'s price.</p><button id="show" onclick="document.getElementById(\'price\').textContent = \'Price today: $42\'">Show</button><p id="price"></p></main></body></html>',
      ),
      '/form': html(
        '<html><body><main><h1>Search</h1><input id="q"><p id="out"></p><script>document.getElementById("q").addEventListener("keydown", (e) => { if (e.key === "Enter") document.getElementById("out").textContent = "Results for " + e.target.value; })</script></main></body></html>',
      ),
      '/feed': html(
        '<html><body style="margin:0"><main id="feed"><h1>Feed</h1><div style="height:3000px">first screen</div></main><script>let n = 0; addEventListener("scroll", () => { if (n < 2 && scrollY >= 500 * (n + 1)) { n++; const p = document.createElement("p"); p.textContent = "Loaded item " + n; document.getElementById("feed").append(p); const s = document.createElement("div"); s.style.height = "3000px"; document.getElementById("feed").append(s); } })</script></body></html>',
      ),
      '/device': html(
        '<html><body><main><h1>Device</h1><p id="d"></p><script>document.getElementById("d").textContent = "touch " + ("ontouchstart" in window) + ", agent " + (/Mobile/.test(navigator.userAgent) ? "mobile" : "desktop")</script></main></body></html>',
      ),
      '/tall': html(
        '<html><body style="margin:0"><main><h1>Tall</h1><div style="height:2400px;background:linear-gradient(red,blue)"></div></main></body></html>',
      ),
      '/with-pixel': (_q, r) =>
        void r
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><body><main><h1>Pixel</h1><p>A page with an image from another address, which the rule refuses.</p><img src="${other.origin}/pixel.png"></main></body></html>`,
          ),
      '/to-private': redirect('/hop', 302),
      '/hop': redirect(`${other.origin}/secret`, 301),
      '/link-to-private': html(
        `<html><body><main><h1>Links</h1><p>A page with a link to an internal dashboard.</p><a id="go" href="${other.origin}/secret">dashboard</a></main></body></html>`,
      ),
      '/slow': async (_q, r) => {
        await new Promise((resolve) => setTimeout(resolve, 3000));
        r.writeHead(200, { 'content-type': 'text/html' }).end('<p>late</p>');
      },
    });
  });
  after(async () => {
    await closeBrowserIfOpen();
    site.close();
    other.close();
  });

  it('renders a page drawn by script unasked; a plain page never starts a browser', async () => {
    await closeBrowserIfOpen();
    const plain = await at('/plain');
    assert.match(plain.markdown!, /whose text is all in its HTML/);
    assert.equal(browserRunning(), false, 'no browser for a plain page');
    const spa = await at('/spa');
    assert.match(spa.markdown!, /The team plan costs \$50 a month/);
    assert.equal(browserRunning(), true);
    const off = await at('/spa', { maxAge: 0 }, { browser: { env: process.env, artifactsDir: tempDir(), autoRender: false } });
    assert.doesNotMatch(off.markdown ?? '', /\$50/, 'autoRender: false keeps the fetched page');
  });

  it('click reveals content; write and press fill a form; executeJavascript returns values', async () => {
    const revealed = await at('/reveal', { actions: [{ type: 'click', selector: '#show' }] });
    assert.match(revealed.markdown!, /Price today: \$42/);
    const form = await at('/form', {
      actions: [
        { type: 'click', selector: '#q' },
        { type: 'write', text: 'webwatch' },
        { type: 'press', key: 'Enter' },
      ],
    });
    assert.match(form.markdown!, /Results for webwatch/);
    const script = await at('/plain', {
      actions: [
        { type: 'executeJavascript', script: 'return document.title + "!"' },
        { type: 'executeJavascript', script: '[1, 2].length' },
      ],
    });
    assert.deepEqual(script.actions?.javascriptReturns, [
      { type: 'string', value: 'Plain!' },
      { type: 'number', value: 2 },
    ]);
  });

  it('scroll loads more of an infinite feed; wait for a selector; scrape returns the HTML so far', async () => {
    const feed = await at('/feed', {
      actions: [{ type: 'scroll' }, { type: 'scroll', direction: 'down' }, { type: 'wait', selector: 'p' }, { type: 'scrape' }],
    });
    assert.match(feed.markdown!, /Loaded item 1/);
    assert.equal(feed.actions?.scrapes.length, 1);
    assert.match(feed.actions!.scrapes[0]!.html, /Loaded item 1/);
    assert.equal(feed.actions!.scrapes[0]!.url, `${site.origin}/feed`);
  });

  it('a missing selector fails with the action and the selector named', async () => {
    await assert.rejects(at('/reveal', { actions: [{ type: 'click', selector: '#nope' }] }), (error: WebwatchError) => {
      assert.equal(error.code, 'SCRAPE_ACTION_ERROR');
      assert.equal(error.status, 400);
      assert.match(error.message, /action 1 \(click\) failed: no element matches the selector "#nope"/);
      return true;
    });
  });

  it('screenshots: the viewport size, fullPage taller, JPEG with quality; a pdf action that is a PDF', async () => {
    const shot = await at('/tall', { formats: ['markdown', { type: 'screenshot', viewport: { width: 800, height: 600 } }] });
    assert.deepEqual(pngSize(shot.screenshot!), { width: 800, height: 600 });
    const full = await at('/tall', { formats: [{ type: 'screenshot', fullPage: true, viewport: { width: 800, height: 600 } }] });
    assert.ok(pngSize(full.screenshot!).height >= 2400, `full page: ${pngSize(full.screenshot!).height}`);
    const jpeg = await at('/tall', { formats: [{ type: 'screenshot', quality: 50 }] });
    assert.match(jpeg.screenshot!, /\.jpg$/);
    assert.deepEqual([...readFileSync(fileURLToPath(jpeg.screenshot!)).subarray(0, 2)], [0xff, 0xd8]);
    const pdf = await at('/plain', { actions: [{ type: 'pdf', format: 'A4' }] });
    assert.equal(readFileSync(fileURLToPath(pdf.actions!.pdfs[0]!)).subarray(0, 5).toString(), '%PDF-');
  });

  it('mobile: the page sees touch and a mobile agent', async () => {
    assert.match((await at('/device', { mobile: true })).markdown!, /touch true, agent mobile/);
    assert.match((await at('/device', { waitFor: 10 })).markdown!, /touch false, agent desktop/);
  });

  it('every request of the page passes the URL check: a refused image is not fetched, a refused page fails', async () => {
    const refuseOther = (url: URL) => {
      if (url.port === new URL(other.origin).port) throw new WebwatchError('refused by the test rule', { status: 403 });
    };
    const before = other.requests.length;
    const page = await at('/with-pixel', { actions: [{ type: 'wait', milliseconds: 200 }] }, { checkUrl: refuseOther });
    assert.match(page.markdown!, /which the rule refuses/);
    assert.equal(other.requests.length, before, 'the image was never requested');
    await assert.rejects(
      scrape({ url: `${other.origin}/pixel.png`, options: { mobile: true } }, context({ checkUrl: refuseOther })),
      /refused by the test rule/,
    );
  });

  describe("under serve's private-address rule (this site standing for a public one)", () => {
    const serveRule = (url: URL) => (url.origin === site.origin ? undefined : refusePrivateTargets(url));
    const failure = async (path: string, options: ScrapeOptions) => {
      try {
        const document = await scrape({ url: `${site.origin}${path}`, options }, context({ checkUrl: serveRule }));
        return assert.fail(`${JSON.stringify(options)} succeeded, landing on ${document.metadata.url}`);
      } catch (error) {
        if (!(error instanceof WebwatchError)) throw error;
        return error;
      }
    };
    const answer = (error: WebwatchError) => ({ status: error.status, body: errorBody(error.status ?? 500, error.message, error.details, error.code) });
    const refusedSecret = () => ({
      status: 403,
      body: errorBody(403, 'Forbidden', { url: `${other.origin}/secret`, address: '127.0.0.1', reason: PRIVATE_TARGET_HINT }),
    });

    it("a redirect to a private address fails the browser's scrape with the plain fetch's 403, body for body", async () => {
      const plain = await failure('/to-private', {});
      assert.deepEqual(answer(plain), refusedSecret());
      assert.deepEqual(answer(await failure('/to-private', { mobile: true })), answer(plain), 'the browser');
      assert.deepEqual(
        answer(await failure('/to-private', { formats: ['markdown', 'screenshot'], actions: [{ type: 'wait', milliseconds: 10 }] })),
        answer(plain),
        'the browser, with actions',
      );
    });

    it('a click that navigates the page to a private address fails the scrape with the same 403', async () => {
      assert.deepEqual(
        answer(
          await failure('/link-to-private', {
            actions: [
              { type: 'click', selector: '#go' },
              { type: 'wait', milliseconds: 300 },
            ],
          }),
        ),
        refusedSecret(),
      );
    });
  });

  it('a Chromium killed mid-scrape fails that page only; the next scrape starts a new one', async () => {
    await at('/reveal', { mobile: true }); // a browser runs
    const slow = at('/slow', { mobile: true });
    await new Promise((resolve) => setTimeout(resolve, 800));
    killDescendants(process.pid);
    await assert.rejects(slow, (error: WebwatchError) => error.code === 'BROWSER_CRASHED' && error.status === 502);
    assert.match((await at('/reveal', { actions: [{ type: 'click', selector: '#show' }] })).markdown!, /\$42/);
  });
});

describe('scrape -o with a screenshot', { skip: !chromium && 'no Chromium: apt-get install chromium' }, () => {
  it('writes the PNG itself into the directory, and to a file named with -o', async () => {
    const server = await startServer({ '/gizmo.html': html('<main><h1>Gizmo</h1><p>A gizmo for every desk, in three colours.</p></main>') });
    try {
      const dir = tempDir();
      const env = { WEBWATCH_HOME: tempDir() };
      const wrote = await run(['scrape', `${server.origin}/gizmo.html`, '-f', 'screenshot,markdown', '-o', `${dir}/`, '--max-age', '0'], { env });
      assert.equal(wrote.code, 0, wrote.stderr);
      const files = readdirSync(dir).sort();
      const png = files.find((name) => name.endsWith('.png'));
      assert.ok(png, `a PNG among ${files.join(', ')}`);
      assert.deepEqual([...readFileSync(join(dir, png)).subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG bytes, not a file:// URL');
      assert.ok(!files.some((name) => name.endsWith('.screenshot.txt')), files.join(', '));
      const one = join(tempDir(), 'shot.png');
      assert.equal((await run(['scrape', `${server.origin}/gizmo.html`, '-f', 'screenshot', '-o', one, '--max-age', '0'], { env })).code, 0);
      assert.deepEqual([...readFileSync(one).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    } finally {
      await server.close();
    }
  });
});

describe('without a browser', () => {
  it('a scrape that needs one exits 11 naming the install step; others keep working', async () => {
    const server = await startServer({ '/': html('<main><h1>Hi</h1><p>Plain text that needs no browser to be read at all.</p></main>') });
    try {
      const env = { WEBWATCH_CHROMIUM: '/nonexistent/chromium' };
      const needs = await run(['scrape', server.origin, '--mobile'], { env });
      assert.equal(needs.code, 11);
      assert.match(
        needs.stderr,
        /^error: mobile needs a browser, and \/nonexistent\/chromium \(WEBWATCH_CHROMIUM\) cannot be run\nhint: install Debian's Chromium \(apt-get install chromium-headless-shell, or chromium\)/,
      );
      const plain = await run(['scrape', server.origin], { env });
      assert.equal(plain.code, 0);
      assert.match(plain.stdout, /Plain text that needs no browser/);
      const file = writeFiles({ 'o.yaml': 'actions: [{type: click, selector: "#x"}]\n' });
      const actions = await run(['scrape', server.origin, '--options', `${file}/o.yaml`], { env });
      assert.equal(actions.code, 11);
      assert.match(actions.stderr, /^error: actions needs a browser/);
    } finally {
      server.close();
    }
  });
});
