/**
 * One page must not stall everyone: a `webwatch serve` process converts a page that is slow to
 * convert in a process of its own, while it goes on answering others, and a page that needs
 * more memory than that process may use fails alone, with an error saying so. Small pages keep
 * the fast path, on serve's own thread. serve runs as its own process, so that a server stuck
 * on its event loop fails this test instead of freezing it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { keyStore } from '../../src/engine/keys/key-store.js';
import { databasePath, openDatabase } from '../../src/engine/store/database.js';
import { tempDir } from '../helpers/files.js';
import { html, startServer, type TestServer } from '../helpers/server.js';
import { serveProcess, type ServeProcess } from '../helpers/serve-process.js';
import { call } from '../helpers/webwatch-server.js';

/** Some 6 MB and 200,000 elements: seconds of parsing, cleaning and markdown on one thread. */
const LARGE = `<!doctype html><html><head><title>Large</title></head><body><main><h1>A large page</h1>${'<div><p>A paragraph of the large page, with <b>some</b> words in it.</p></div>'.repeat(75_000)}</main></body></html>`;

/** The command lines of `pid`'s child processes (Linux's /proc). */
function childCommands(pid: number): string[] {
  const commands: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent's pid is the fourth field, after the command in parentheses.
      const parent = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (parent === pid) commands.push(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {
      // Gone meanwhile.
    }
  }
  return commands;
}

const conversionProcesses = (serve: ServeProcess) => childCommands(serve.child.pid!).filter((command) => /--max-old-space-size=/.test(command));

/** Asks /health back to back until `until` settles: the slowest answer, in ms. */
async function slowestHealth(serve: ServeProcess, until: Promise<unknown>): Promise<number> {
  let done = false;
  void until.finally(() => (done = true));
  let slowest = 0;
  while (!done) {
    const started = performance.now();
    const health = await fetch(`${serve.origin}/health`, { signal: AbortSignal.timeout(60_000) });
    assert.equal(health.status, 200);
    await health.arrayBuffer();
    slowest = Math.max(slowest, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return slowest;
}

async function startServe(env: Record<string, string> = {}): Promise<{ serve: ServeProcess; key: string }> {
  const home = tempDir();
  const db = await openDatabase(databasePath({ WEBWATCH_HOME: home }));
  const key = (await keyStore(db).create('acme', new Date())).key;
  await db.close();
  return { serve: await serveProcess(['--quiet'], { WEBWATCH_HOME: home, ...env }), key };
}

describe('large pages on serve', { timeout: 180_000 }, () => {
  let site: TestServer;
  before(async () => {
    site = await startServer({
      '/small': html('<main><h1>Small</h1><p>A small page, converted on the fast path.</p></main>'),
      '/large': html(LARGE),
    });
  });
  after(async () => {
    await site?.close();
  });

  describe('with the default memory', () => {
    let serve: ServeProcess;
    let key: string;
    before(async () => {
      ({ serve, key } = await startServe());
    });
    after(async () => {
      await serve?.kill();
    });

    it('converts a small page on its own thread', async () => {
      const small = await call(serve, key, 'POST', '/scrape', { url: `${site.url}small`, maxAge: 0 }, { timeoutMs: 30_000 });
      assert.equal(small.status, 200, small.text);
      assert.match(small.body.data.markdown, /A small page/);
      assert.deepEqual(conversionProcesses(serve), [], 'no conversion process for a small page');
    });

    it('converts a large page in a process of its own, and answers others meanwhile', async () => {
      const started = performance.now();
      const scraped = call(serve, key, 'POST', '/scrape', { url: `${site.url}large`, maxAge: 0, timeout: 120_000 }, { timeoutMs: 150_000 });
      const slowest = await slowestHealth(serve, scraped);
      const took = performance.now() - started;
      const large = await scraped;
      assert.equal(large.status, 200, large.text.slice(0, 500));
      assert.match(large.body.data.markdown, /# A large page/);
      // A server converting on its event loop answers nothing until the page is done: the
      // health route would wait most of the scrape. A generous bound, whatever the machine.
      assert.ok(slowest < took / 2, `the slowest health answer took ${Math.round(slowest)} ms of the scrape's ${Math.round(took)} ms`);
      assert.equal(conversionProcesses(serve).length, 1, 'the page was converted by a conversion process, which waits for the next');
    });
  });

  it('fails a page that needs more memory than its conversion process may use, alone, saying so, and goes on', async () => {
    const { serve, key } = await startServe({ WEBWATCH_CONVERSION_MEMORY_MB: '16' });
    try {
      const failed = await call(serve, key, 'POST', '/scrape', { url: `${site.url}large`, maxAge: 0, timeout: 120_000 }, { timeoutMs: 150_000 });
      assert.equal(failed.status, 500, failed.text.slice(0, 500));
      assert.equal(failed.body.code, 'SCRAPE_CONVERSION_FAILED');
      assert.equal(failed.body.details.reason, 'converting the page ran out of memory (the limit is 16 MB)');
      const health = await fetch(`${serve.origin}/health`, { signal: AbortSignal.timeout(10_000) });
      assert.equal(health.status, 200);
      const small = await call(serve, key, 'POST', '/scrape', { url: `${site.url}small`, maxAge: 0 }, { timeoutMs: 30_000 });
      assert.equal(small.status, 200, small.text);
      assert.equal(serve.child.exitCode, null, 'serve still runs');
    } finally {
      await serve.kill();
    }
  });
});
