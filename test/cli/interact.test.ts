/**
 * `webwatch interact`: on the embedded engine a session is the page's state kept between
 * commands (each call opens the page where the last one left it); against a server it stays
 * open there. The last scrape is the default, as the hosted CLI has it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { closeBrowserIfOpen } from '../../src/engine/browser/lifetime.js';
import { interactToolsMissing } from '../helpers/interact.js';
import { tempDir } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const PLANS = `<title>Plans</title><main><h1>Plans</h1>
<button id="annual" onclick="document.getElementById('price').textContent='$100 a year'">Annual</button><p id="price">$10 a month</p>
<a id="next" href="/next">Next</a></main>`;

describe('webwatch interact', { skip: interactToolsMissing }, () => {
  let site: TestServer;
  let served: ServingWebwatch;
  let key: string;
  before(async () => {
    site = await startServer({
      '/plans': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'visit=1; Path=/' }).end(PLANS),
      '/next': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<title>Next</title><p>the next page</p>'),
    });
    served = await serveWebwatch({ interact: { code: true } });
    key = (await served.keys.create('acme', new Date())).key;
  });
  after(async () => {
    await served.stop();
    await closeBrowserIfOpen();
    await site.close();
  });

  it("on the embedded engine: the last scrape, the page's place and storage from one command to the next, then stop", async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    const none = await run(['interact', '-c', 'await page.title()'], { env });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no scrape to interact with: scrape a page first/);
    assert.equal((await run(['scrape', `${site.origin}/plans`], { env })).code, 0);
    const title = await run(['interact', '-c', 'await page.title()'], { env });
    assert.equal(title.code, 0, title.stderr);
    assert.equal(title.stdout, 'Plans\n');
    const moved = await run(
      [
        'interact',
        '-c',
        "await page.evaluate(() => localStorage.setItem('plan', 'pro')); await page.locator('#next').click(); await page.waitForURL('**/next'); return page.url()",
      ],
      { env },
    );
    assert.equal(moved.code, 0, moved.stderr);
    assert.equal(moved.stdout, `${site.origin}/next\n`);
    // A new command, a new page: where the last one left it, with its storage and cookies.
    const after = await run(['interact', '-c', "[page.url(), await page.evaluate(() => localStorage.getItem('plan') + ' ' + document.cookie)]", '--json'], {
      env,
    });
    assert.equal(after.code, 0, after.stderr);
    const answer = JSON.parse(after.stdout) as { success: boolean; result: string; exitCode: number };
    assert.deepEqual(JSON.parse(answer.result), [`${site.origin}/next`, 'pro visit=1']);
    const failed = await run(['interact', '-c', "throw new Error('no such plan')"], { env });
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /Error: no such plan/);
    const stopped = await run(['interact', 'stop'], { env });
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, /^session stopped \([0-9a-f-]{36}\): open \d+\.\d s, 2 credits\n$/);
    const again = await run(['interact', 'stop'], { env });
    assert.equal(again.code, 4);
    assert.match(again.stderr, /no interact session is open for this scrape/);
  });

  it('against a server: the session stays open there; a prompt without a model is refused (exit 2); a runaway exits 7', async () => {
    const env = { WEBWATCH_HOME: tempDir(), WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: key };
    assert.equal((await run(['scrape', `${site.origin}/plans`], { env })).code, 0);
    assert.equal((await run(['interact', '-c', "await page.locator('#annual').click()"], { env })).code, 0);
    const price = await run(['interact', '-c', "await page.locator('#price').textContent()"], { env });
    assert.equal(price.stdout, '$100 a year\n', price.stderr);
    const prompt = await run(['interact', 'What', 'does', 'it', 'cost?'], { env });
    assert.equal(prompt.code, 2, 'a configuration problem, as an agent job without a model');
    assert.match(prompt.stderr, /no model is configured for interact prompts/);
    const runaway = await run(['interact', '-c', 'for (;;) {}', '--timeout', '1'], { env });
    assert.equal(runaway.code, 7);
    assert.match(runaway.stderr, /did not finish within its timeout \(1 s\)/);
    assert.equal((await run(['interact', 'stop'], { env })).code, 0);
  });
});
