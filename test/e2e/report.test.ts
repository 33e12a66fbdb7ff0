/**
 * `monitor report` and `monitor history` end to end: a loopback site whose price changes, whose
 * paragraph goes, whose crawl finds a new page and loses one, with screenshots; the report opened
 * in the system's Chromium with every request refused (the changed words are marked, the images
 * load, nothing of the page's content runs), and a screenshot of it kept in test-output/.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../src/engine/browser/chromium.js';
import { closeBrowserIfOpen } from '../../src/engine/browser/lifetime.js';
import { EXIT } from '../../src/errors/exit-codes.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { html, startServer, type TestServer } from '../helpers/server.js';
import { inTerminal } from '../helpers/terminal.js';
import { waitFor } from '../helpers/wait.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OUTPUT = join(ROOT, 'test-output');

const chromiumPath = (() => {
  try {
    return findChromium(process.env, undefined, 'the tests');
  } catch {
    return undefined;
  }
})();

// What page.evaluate reads runs in the browser: its globals are not Node's.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any, window: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Element = any;

/** Text of the page that a report must show as text, never run. */
const HOSTILE =
  '&lt;script&gt;window.pwned=1&lt;/script&gt; &lt;img src=x onerror="window.pwned=2"&gt; <a href="javascript:window.pwned=3">a javascript: link</a>';

describe('monitor report and history', { skip: !chromiumPath && 'no Chromium: apt-get install chromium' }, () => {
  let site: TestServer;
  let version = 1;
  const env = { WEBWATCH_HOME: tempDir() };
  const ids: string[] = [];
  // Checks at their real times: the report finds a page's earlier screenshot by when checks ran.
  const webwatch = (args: string[], options: Parameters<typeof run>[1] = {}) =>
    run(args, { now: () => new Date(), ...options, env: { ...env, ...options.env } });

  before(async () => {
    site = await startServer({
      '/shop': (_q, r) => {
        const removed = version === 1 ? '<p>Free delivery on every order this week only.</p>' : '';
        const banner = version === 1 ? '#ffffff' : '#ffcc00';
        r.writeHead(200, { 'content-type': 'text/html' }).end(
          `<html><body><main><h1>Shop</h1><p>The basic plan costs $${version === 1 ? 10 : 12} per month, billed yearly.</p>${removed}<p>${HOSTILE}</p><div style="background:${banner};height:120px">Banner</div></main></body></html>`,
        );
      },
      '/site/': (_q, r) =>
        void r
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<main><h1>Blog</h1>${(version === 1 ? ['/site/one', '/site/two'] : ['/site/one', '/site/three']).map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main>`,
          ),
      '/site/one': html('<main><p>The first post stays.</p></main>'),
      '/site/two': html('<main><p>The second post goes.</p></main>'),
      '/site/three': html('<main><p>The third post is new.</p></main>'),
    });
    const file = writeFiles({
      'm.yaml': `name: Shop\ngoal: Tell me when a price changes\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: scrape\n    urls: ["${site.origin}/shop", "http://127.0.0.1:1/down"]\n    scrapeOptions: {formats: [markdown, screenshot]}\n  - type: crawl\n    url: ${site.origin}/site/\n    crawlOptions: {sitemap: skip, ignoreRobotsTxt: true}\n`,
    });
    assert.equal((await webwatch(['monitor', 'apply', '-f', file], { env })).code, EXIT.ok);
    for (const next of [1, 2]) {
      version = next;
      const ran = await webwatch(['monitor', 'run', 'Shop', '--json']);
      ids.push(JSON.parse(ran.stdout).id);
    }
  });
  after(async () => {
    await closeBrowserIfOpen();
    await site.close();
  });

  it('writes the latest check with changes, whole, to the file named, and says where', async () => {
    // A check with nothing new after it: the report still shows the one that found changes.
    const third = JSON.parse((await webwatch(['monitor', 'run', 'Shop', '--json'], { env })).stdout);
    assert.deepEqual([third.summary.changed, third.summary.new, third.summary.removed], [0, 0, 0]);
    const cwd = tempDir();
    const written = await webwatch(['monitor', 'report', 'Shop'], { cwd });
    assert.equal(written.code, EXIT.ok, written.stderr);
    const file = join(cwd, `webwatch-report-shop-${ids[1]!.slice(0, 8)}.html`);
    assert.equal(written.stdout, `${file}\n`);
    assert.match(written.stderr, new RegExp(`report of check ${ids[1]}: 2 changed, 1 new, 1 removed, 1 error`));
    assert.deepEqual(readdirSync(cwd), [`webwatch-report-shop-${ids[1]!.slice(0, 8)}.html`], 'no partial file left beside it');
    const json = JSON.parse((await webwatch(['monitor', 'report', 'Shop', ids[0]!.slice(0, 8), '-o', 'first.html', '--json'], { env, cwd })).stdout);
    assert.equal(json.checkId, ids[0]);
    assert.equal(json.file, join(cwd, 'first.html'));
    assert.equal(json.bytes, readFileSync(json.file).length);
    const piped = await webwatch(['monitor', 'report', 'Shop', 'latest', '-o', '-']);
    assert.match(piped.stdout, /^<!doctype html>/);
    assert.match(piped.stdout, new RegExp(`check <code>${third.id}</code>`));
  });

  it('opens in Chromium with the network refused: words marked, images shown, nothing of the page run', async () => {
    const path = join(tempDir(), 'report.html');
    assert.equal((await webwatch(['monitor', 'report', 'Shop', ids[1]!, '-o', path], { env })).code, EXIT.ok);
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: chromiumPath! });
    try {
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, javaScriptEnabled: true });
      const asked: string[] = [];
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith('file:')) return route.continue();
        asked.push(url);
        return route.abort();
      });
      const page = await context.newPage();
      const violations: string[] = [];
      page.on('console', (message) => violations.push(message.text()));
      await page.goto(pathToFileURL(path).href, { waitUntil: 'load' });
      const seen = await page.evaluate(() => {
        const shop = [...document.querySelectorAll('section.page')].find((s: Element) => s.textContent?.includes('/shop'))!;
        const images = [...document.images];
        return {
          pwned: window.pwned as number | undefined,
          scripts: document.scripts.length,
          handlers: document.querySelectorAll('[onerror],[onload]').length,
          javascriptLinks: document.querySelectorAll('a[href^="javascript:"]').length,
          deleted: [...shop.querySelectorAll('td.before del')].map((e: Element) => (e.textContent as string).trim()),
          inserted: [...shop.querySelectorAll('td.after ins')].map((e: Element) => (e.textContent as string).trim()),
          images: images.map((img: Element) => ({ loaded: img.complete && img.naturalWidth > 0, alt: img.alt })),
          captions: [...shop.querySelectorAll('figcaption')].map((e: Element) => e.textContent as string),
          text: document.body.innerText,
          sections: [...document.querySelectorAll('h2')].map((e: Element) => e.textContent as string),
          verdict: shop.querySelector('.verdict')?.textContent as string | undefined,
        };
      });
      assert.equal(seen.pwned, undefined, 'no script, handler or link of the page ran');
      assert.equal(seen.scripts, 0);
      assert.equal(seen.handlers, 0);
      assert.equal(seen.javascriptLinks, 0);
      assert.match(seen.text, /\\?<script>window\.pwned=1\\?<\/script>/, "the page's markup shows as text");
      assert.deepEqual(seen.deleted, ['10', 'Free delivery on every order this week only.']);
      assert.deepEqual(seen.inserted, ['12']);
      // The goal was judged (by the lexical judge: no model is configured) and its verdict shown.
      assert.match(seen.verdict ?? '', /^Meaningful \(\w+ confidence\): .*\$10.*\$12/);
      assert.deepEqual(
        seen.images.map((i) => i.alt),
        ['before', 'after', seen.captions[2]],
      );
      assert.ok(
        seen.images.every((i) => i.loaded),
        JSON.stringify(seen.images),
      );
      const share = Number(/changed pixels: ([\d.]+) %/.exec(seen.captions[2] ?? '')?.[1]);
      assert.ok(share > 0 && share < 100, seen.captions[2]!);
      assert.deepEqual(seen.sections, ['History', 'Changed pages (2)', 'New pages (1)', 'Removed pages (1)', 'Errors (1)']);
      assert.match(seen.text, /NEW\s*http:\/\/127\.0\.0\.1:\d+\/site\/three/);
      assert.match(seen.text, /REMOVED\s*http:\/\/127\.0\.0\.1:\d+\/site\/two/);
      assert.match(seen.text, /ERROR\s*http:\/\/127\.0\.0\.1:1\/down[\s\S]*Error: \S+/);
      assert.deepEqual(asked, [], 'the report asked the network for nothing');
      assert.deepEqual(
        violations.filter((v) => /Content Security Policy/.test(v)),
        [],
        'nothing in it needed the policy to stop it',
      );
      mkdirSync(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, 'monitor-report.png'), fullPage: true });
      assert.ok(existsSync(join(OUTPUT, 'monitor-report.png')));
    } finally {
      await browser.close();
    }
  });

  it('--open hands the file to $BROWSER; a browser that cannot start is a warning, the report stays', async () => {
    const dir = tempDir();
    const opener = writeFiles({ 'open.sh': `#!/bin/sh\necho "$1" > "${join(dir, 'opened')}"\n` });
    const { chmodSync } = await import('node:fs');
    chmodSync(join(opener, 'open.sh'), 0o755);
    const opened = await webwatch(['monitor', 'report', 'Shop', '-o', join(dir, 'r.html'), '--open'], { env: { BROWSER: join(opener, 'open.sh') } });
    assert.equal(opened.code, EXIT.ok, opened.stderr);
    // The opener runs detached: on a busy machine its shell may start seconds after webwatch has exited.
    const written = await waitFor(async () => {
      const text = existsSync(join(dir, 'opened')) ? readFileSync(join(dir, 'opened'), 'utf8') : '';
      return text.endsWith('\n') ? text : undefined;
    });
    assert.equal(written, `${join(dir, 'r.html')}\n`);
    const missing = await webwatch(['monitor', 'report', 'Shop', '-o', join(dir, 's.html'), '--open'], { env: { BROWSER: join(dir, 'no-such-browser') } });
    assert.equal(missing.code, EXIT.ok);
    assert.match(missing.stderr, /warning: could not open the report with .*no-such-browser: .*ENOENT; it is at .*s\.html/);
    assert.ok(existsSync(join(dir, 's.html')));
  });

  it('says what is wrong: an unknown check or monitor, a directory that is not there', async () => {
    const unknown = await webwatch(['monitor', 'report', 'Shop', 'ffffffff']);
    assert.equal(unknown.code, EXIT.notFound);
    assert.match(unknown.stderr, /no check with this id or id prefix/);
    const nameless = await webwatch(['monitor', 'report', 'Shpo']);
    assert.equal(nameless.code, EXIT.notFound);
    assert.match(nameless.stderr, /did you mean "Shop"\?/);
    const both = await webwatch(['monitor', 'report', 'Shop', '-o', '-', '--json']);
    assert.equal(both.code, EXIT.usage);
    assert.match(JSON.parse(both.stdout).error, /give -o - \(the report on stdout\) or --json/);
    const nowhere = join(tempDir(), 'missing', 'r.html');
    const failed = await webwatch(['monitor', 'report', 'Shop', '-o', nowhere, '--json']);
    assert.equal(failed.code, EXIT.usage);
    assert.match(JSON.parse(failed.stdout).error, /-o .*missing\/r\.html: the directory .*missing does not exist/);
    assert.equal(existsSync(join(nowhere, '..')), false);
    const empty = { WEBWATCH_HOME: tempDir() };
    await webwatch(
      [
        'monitor',
        'apply',
        '-f',
        writeFiles({ 'm.yaml': `name: Idle\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${site.origin}/shop"]}]\n` }),
      ],
      { env: empty },
    );
    const none = await webwatch(['monitor', 'report', 'Idle'], { env: empty });
    assert.equal(none.code, EXIT.notFound);
    assert.match(none.stderr, /no finished check to report on[\s\S]*webwatch monitor run "Idle" --wait/);
  });

  it('history: newest first with counts; on a terminal a sparkline and bars of changes', async () => {
    const json = JSON.parse((await webwatch(['monitor', 'history', 'Shop', '--json'], { env })).stdout);
    assert.deepEqual(
      json.slice(1).map((c: { id: string }) => c.id),
      [ids[1], ids[0]],
    );
    const piped = await webwatch(['monitor', 'history', 'Shop', '--limit', '2']);
    const rows = piped.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    assert.equal(rows.length, 2);
    assert.deepEqual(rows[1]!.slice(2), ['partial', '2', '1', '1', '1', '6']);
    const tty = await webwatch(['monitor', 'history', 'Shop'], { tty: true, columns: 160 });
    // Oldest to newest: the first check found 4 new pages, the second 4 changes, the third none.
    assert.match(tty.stderr, /changes in the last 3 checks, oldest to newest: ██▁/);
    const screen = tty.stdout.replace(/\u001b\[[0-9;]*m/g, '');
    assert.match(screen, /errors {2}pages {2}changes\n/);
    assert.match(screen, /partial {2}2 +1 +1 +1 +6 +█{20}\n/);
    // However long ago the check started ("just now", "6 s ago", "2 min ago"): the machine's speed decides.
    assert.match(tty.stdout, /\u001b\[33m\S+ +(just now|\d+ (s|min) ago) +partial {2}2/, 'a check with changes stands out');
    const bad = await webwatch(['monitor', 'history', 'Shop', '--limit', '0']);
    assert.equal(bad.code, EXIT.usage);
  });

  it('history and report on a real colour terminal: styling acts, bars and sparkline drawn, nothing shown escaped', async () => {
    const colour = { ...env, HOME: env.WEBWATCH_HOME, TERM: 'xterm-256color', FORCE_COLOR: '1' };
    const history = await inTerminal(['monitor', 'history', 'Shop'], { env: colour, cols: 120 });
    assert.equal(history.code, 0, history.raw);
    assert.doesNotMatch(history.raw, /\\(x1b|u001b)/, 'no styling printed as text');
    assert.match(history.raw, /\u001b\[1mcheck +started/, 'a bold header');
    assert.ok(
      history.screen.some((line) => /^changes in the last 3 checks, oldest to newest: ██▁$/.test(line)),
      history.screen.join('\n'),
    );
    assert.ok(
      history.screen.some((line) => /partial +2 +1 +1 +1 +6 +█{20}$/.test(line)),
      history.screen.join('\n'),
    );
    const cwd = tempDir();
    const report = await inTerminal(['monitor', 'report', 'Shop'], { env: colour, cwd });
    assert.equal(report.code, 0, report.raw);
    assert.ok(report.screen.includes(join(cwd, `webwatch-report-shop-${ids[1]!.slice(0, 8)}.html`)), report.screen.join('\n'));
  });
});
