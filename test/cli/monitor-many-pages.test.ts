/**
 * A check with many new pages converts them on worker threads: the same snapshots as a scrape
 * of each page on the command's own thread, a page's conversion error that page's alone, and
 * the process ends as soon as the check does.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { splitPageText } from '../../src/engine/diff/page-text.js';
import { join } from 'node:path';
import { tempDir, writeFiles } from '../helpers/files.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { INLINE_CONVERSIONS } from '../../src/engine/scrape/convert-pool.js';
import { CHECK_CONCURRENCY } from '../../src/engine/monitors/run-check.js';

const BIN = fileURLToPath(new URL('../../../bin/webwatch.js', import.meta.url));
const PAGES = INLINE_CONVERSIONS * 3;

function webwatch(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

describe('a check of many new pages', () => {
  let server: TestServer;
  let inFlight = 0;
  let mostInFlight = 0;
  const page = (n: number) => `<!doctype html><html><head><title>Page ${n}</title></head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<main><article><h1>Page ${n}</h1><p>Caf\u00e9 number ${n}, <b>bold</b>, <a href="/page/${n + 1}">next</a>.</p><ul><li>one</li><li>two ${n}</li></ul>
<table><tr><th>k</th><th>v</th></tr><tr><td>n</td><td>${n}</td></tr></table><pre><code>code ${n}</code></pre></article><aside class="share">Share this</aside></main><footer>Footer</footer></body></html>`;
  before(async () => {
    server = await startServer({}, (request, response) => {
      const match = /^\/page\/(\d+)$/.exec(request.url ?? '');
      if (!match) return void response.writeHead(404).end();
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      // A moment of latency, so that requests overlap as on a real site.
      setTimeout(() => {
        inFlight--;
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(Number(match[1])));
      }, 10);
    });
  });
  after(() => server.close());
  const urls = () => Array.from({ length: PAGES }, (_, n) => `${server.origin}/page/${n}`);

  it('keeps the markdown a one-off scrape gives, page for page, and exits when done', { timeout: 120_000 }, async () => {
    const home = tempDir();
    // One thread whatever the cores, so that the workers are what is tested.
    const env = { HOME: home, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config'), WEBWATCH_CONVERSION_THREADS: '1' };
    const dir = writeFiles({ 'm.yaml': `name: Many\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: scrape\n    urls: [${urls().join(', ')}]\n` });
    assert.equal((await webwatch(['monitor', 'apply', '-f', dir], env)).code, 0);
    const check = await webwatch(['monitor', 'run', 'Many', '--json'], env);
    assert.equal(check.code, 0, check.stderr);
    assert.deepEqual(JSON.parse(check.stdout).summary, { changed: 0, error: 0, new: PAGES, removed: 0, same: 0, totalPages: PAGES });
    // The workers stop with the check: the process does not wait out their idle time (5 s).
    assert.ok(check.ms < 4_000, `monitor run took ${check.ms} ms`);
    // Pages waiting for conversion do not hold requests: as many in flight as allowed, never more.
    assert.equal(mostInFlight, CHECK_CONCURRENCY);

    const db = new Database(join(home, 'data', 'webwatch.db'), { readonly: true });
    const snapshots = new Map(
      db
        .prepare('select url, markdown from snapshots')
        .all()
        .map((row) => [(row as { url: string }).url, (row as { markdown: string }).markdown]),
    );
    db.close();
    assert.equal(snapshots.size, PAGES);
    for (const url of [urls()[0]!, urls()[INLINE_CONVERSIONS + 1]!, urls().at(-1)!]) {
      const scraped = await webwatch(['scrape', url, '--max-age', '0'], env);
      assert.equal(scraped.code, 0, scraped.stderr);
      // The kept text is the scrape's markdown under the page's title (the headline is in the markdown).
      const { headings, body } = splitPageText(snapshots.get(url)!);
      assert.deepEqual(headings, { title: `Page ${url.split('/').at(-1)}` });
      assert.equal(`${body}\n`, scraped.stdout.endsWith('\n') ? scraped.stdout : `${scraped.stdout}\n`, url);
      assert.match(snapshots.get(url)!, /Caf\u00e9 number \d+, \*\*bold\*\*/);
    }
  });

  it("gives every page its conversion error, on a worker as on the check's own thread", { timeout: 120_000 }, async () => {
    const home = tempDir();
    const env = { HOME: home, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config'), WEBWATCH_CONVERSION_THREADS: '1' };
    // A selector the selector engine cannot parse makes the pipeline throw on every page.
    const dir = writeFiles({
      'm.yaml': `name: Broken\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: scrape\n    urls: [${urls().join(', ')}]\n    scrapeOptions: {includeTags: ["a["]}\n`,
    });
    const applied = await webwatch(['monitor', 'apply', '-f', dir], env);
    assert.equal(applied.code, 0, applied.stderr);
    const check = await webwatch(['monitor', 'run', 'Broken', '--json'], env);
    const result = JSON.parse(check.stdout);
    assert.equal(result.status, 'failed');
    assert.deepEqual(result.summary, { changed: 0, error: PAGES, new: 0, removed: 0, same: 0, totalPages: PAGES });
    const pages = JSON.parse((await webwatch(['monitor', 'check', 'Broken', result.id, '--json'], env)).stdout).pages as { error: string }[];
    const messages = new Set(pages.map((p) => p.error));
    assert.equal(messages.size, 1, [...messages].join(' | '));
    assert.ok([...messages][0]!.length > 0);
  });

  it('refuses a thread count that is not a whole number, saying which variable', { timeout: 60_000 }, async () => {
    const home = tempDir();
    const env = { HOME: home, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') };
    const dir = writeFiles({ 'm.yaml': `name: Few\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: scrape\n    urls: [${urls()[0]}]\n` });
    assert.equal((await webwatch(['monitor', 'apply', '-f', dir], env)).code, 0);
    const refused = await webwatch(['monitor', 'run', 'Few'], { ...env, WEBWATCH_CONVERSION_THREADS: 'two' });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /WEBWATCH_CONVERSION_THREADS must be a whole number from 0 to 16, not "two"/);
    // Nothing was started: the monitor has no check.
    const checks = await webwatch(['monitor', 'checks', 'Few', '--json'], env);
    assert.deepEqual(JSON.parse(checks.stdout), []);
  });
});
