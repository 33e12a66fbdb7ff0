/** serve and the browser: screenshots as URLs of serve, readable only with the team's key; the rule on the page's requests. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../src/engine/browser/chromium.js';
import { html, startServer, type TestServer } from '../helpers/server.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const hasChromium = (() => {
  try {
    return Boolean(findChromium(process.env, undefined, 'the tests'));
  } catch {
    return false;
  }
})();

describe('serve with the browser', { skip: !hasChromium && 'no Chromium: apt-get install chromium' }, () => {
  let site: TestServer;
  let served: ServingWebwatch;
  let guarded: ServingWebwatch;
  const keys: Record<string, string> = {};
  const post = (to: ServingWebwatch, key: string, body: unknown) =>
    fetch(`${to.url}/scrape`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  before(async () => {
    site = await startServer({ '/': html('<html><body><main><h1>Shop</h1><p>Everything costs $10 today, and a screenshot shows it.</p></main></body></html>') });
    served = await serveWebwatch();
    guarded = await serveWebwatch({ allowPrivateTargets: false });
    keys.acme = (await served.keys.create('acme', new Date())).key;
    keys.other = (await served.keys.create('other', new Date())).key;
    keys.guarded = (await guarded.keys.create('acme', new Date())).key;
  });
  after(async () => {
    await served.stop();
    await guarded.stop();
    site.close();
  });

  it('a screenshot is a URL of serve, readable with the key of its team only', async () => {
    const answer = await post(served, keys.acme!, { url: site.origin, formats: ['markdown', 'screenshot'] });
    assert.equal(answer.status, 200);
    const { data } = (await answer.json()) as { data: { screenshot: string; markdown: string } };
    assert.match(data.markdown, /Everything costs \$10/);
    assert.ok(data.screenshot.startsWith(`${served.url}/artifacts/`), data.screenshot);
    const mine = await fetch(data.screenshot, { headers: { authorization: `Bearer ${keys.acme}` } });
    assert.equal(mine.status, 200);
    assert.equal(mine.headers.get('content-type'), 'image/png');
    assert.deepEqual([...new Uint8Array(await mine.arrayBuffer()).subarray(1, 4)], [...Buffer.from('PNG')]);
    assert.equal((await fetch(data.screenshot, { headers: { authorization: `Bearer ${keys.other}` } })).status, 404, 'another team');
    assert.equal((await fetch(data.screenshot)).status, 401, 'no key');
    assert.equal((await fetch(`${served.url}/artifacts/..%2F..%2Fwebwatch.db`, { headers: { authorization: `Bearer ${keys.acme}` } })).status, 404);
  });

  it('without --allow-private-targets, the browser does not reach a private page either', async () => {
    const seen = site.requests.length;
    const answer = await post(guarded, keys.guarded!, { url: site.origin, formats: ['screenshot'] });
    assert.equal(answer.status, 403);
    assert.match(JSON.stringify(await answer.json()), /private, loopback and link-local/);
    assert.equal(site.requests.length, seen, 'the site saw no request');
  });
});
