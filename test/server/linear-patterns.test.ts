/**
 * Crawl path patterns on a running `webwatch serve`: a pattern that makes JavaScript's
 * backtracking engine take exponential time must not stop the server answering other requests,
 * and a pattern the linear-time engine cannot take is a 400 naming the field. serve runs as its
 * own process, so that a server frozen on its event loop fails this test instead of freezing it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { keyStore } from '../../src/engine/keys/key-store.js';
import { databasePath, openDatabase } from '../../src/engine/store/database.js';
import { tempDir } from '../helpers/files.js';
import { html, startServer, type TestServer } from '../helpers/server.js';
import { serveProcess, type ServeProcess } from '../helpers/serve-process.js';
import { call } from '../helpers/webwatch-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

/** A link on which `^/(a+)+$` backtracks some 2^30 times, and one on which `^(.|.)+!$` backtracks 2^75 times. */
const NEARLY_A = `/${'a'.repeat(30)}!`;
const ORDINARY = `/articles/${'x'.repeat(64)}`;

describe('crawl path patterns on serve', { timeout: 120_000 }, () => {
  let site: TestServer;
  let serve: ServeProcess;
  let key: string;
  before(async () => {
    const page = (links: string[]) => html(`<main><h1>Page</h1>${links.map((link) => `<a href="${link}">${link}</a>`).join(' ')}</main>`);
    site = await startServer({ '/': page([NEARLY_A, ORDINARY, '/aaa']), [NEARLY_A]: page([]), [ORDINARY]: page([]), '/aaa': page([]) });
    const home = tempDir();
    const db = await openDatabase(databasePath({ WEBWATCH_HOME: home }));
    key = (await keyStore(db).create('acme', new Date())).key;
    await db.close();
    serve = await serveProcess([], { WEBWATCH_HOME: home });
  });
  after(async () => {
    await serve?.kill();
    await site?.close();
  });

  it('runs patterns that backtrack exponentially in JavaScript while the server keeps answering', async () => {
    const started = await call(
      serve,
      key,
      'POST',
      '/crawl',
      {
        url: site.url,
        includePaths: ['^/(a+)+$'],
        excludePaths: ['^(.|.)+!$'],
        sitemap: 'skip',
        ignoreRobotsTxt: true,
      },
      { timeoutMs: 5_000 },
    );
    assert.equal(started.status, 200, JSON.stringify(started.body));
    let status: Body;
    for (const deadline = Date.now() + 30_000; ; ) {
      // A server whose event loop is stuck answers neither the health route nor the status in time.
      const health = await fetch(`${serve.origin}/health`, { signal: AbortSignal.timeout(2_000) });
      assert.equal(health.status, 200);
      status = (await call(serve, key, 'GET', `/crawl/${started.body.id}`, undefined, { timeoutMs: 5_000 })).body;
      if (status.status !== 'scraping') break;
      assert.ok(Date.now() < deadline, 'the crawl ends within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status.status, 'completed');
    // Of the start page's links only /aaa: /aaa…a! does not match ^/(a+)+$, and neither link ends
    // in "!" as the exclusion needs, but the ordinary one does not match the inclusion. The start
    // page is read for its links, and not returned: `/` does not match the inclusion either.
    const paths = status.data.map((page: Body) => new URL(page.metadata.sourceURL).pathname).sort();
    assert.deepEqual(paths, ['/aaa']);
  });

  it('answers 400 naming the field for a pattern the linear-time engine cannot take, before any fetch', async () => {
    const requests = site.requests.length;
    const refused = await call(serve, key, 'POST', '/crawl', { url: site.url, includePaths: ['^/blog/'], excludePaths: ['^/(?!keep)'] }, { timeoutMs: 5_000 });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, 'Bad Request');
    assert.equal(refused.body.code, 'BAD_REQUEST');
    assert.equal(refused.body.details[0].path, 'excludePaths[0]');
    assert.match(refused.body.details[0].message, /lookahead and lookbehind are not supported/);
    assert.equal(site.requests.length, requests);
  });
});
