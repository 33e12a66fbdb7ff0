/** serve and the browser: screenshots as URLs of serve, readable only with the team's key; the rule on the page's requests. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../src/engine/browser/chromium.js';
import { html, startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

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
  /** The finished job's status answer. */
  const finished = async (route: string, key: string) => {
    for (let tries = 0; tries < 300; tries++) {
      const status = (
        await call<{ status: string; data: { screenshot?: string; actions?: { pdfs: string[] }; metadata: { sourceURL: string } }[] }>(
          served,
          key,
          'GET',
          route,
        )
      ).body;
      if (status.status !== 'scraping') return status;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${route} did not finish`);
  };
  /** A screenshot or PDF URL answers the key of its team, and only it. */
  const readableByItsTeamOnly = async (url: string, type: string) => {
    assert.ok(url.startsWith(`${served.url}/artifacts/`), url);
    const mine = await call(url, keys.acme, 'GET');
    assert.equal(mine.status, 200);
    assert.equal(mine.headers.get('content-type'), type);
    assert.equal((await call(url, keys.other, 'GET')).status, 404, 'another team');
    assert.equal((await call(url, undefined, 'GET')).status, 401, 'no key');
  };

  before(async () => {
    site = await startServer({
      '/': html('<html><body><main><h1>Shop</h1><p>Everything costs $10 today, and a screenshot shows it.</p><a href="/more">More</a></main></body></html>'),
      '/more': html('<html><body><main><h1>More</h1><p>More things, each at a price that a screenshot shows.</p></main></body></html>'),
      '/visit': html(
        '<html><body><main><p id="out"></p><script>const n = Number((document.cookie.match(/visits=(\\d+)/) || [])[1] || 0); document.getElementById("out").textContent = "cookie visits " + n; document.cookie = "visits=" + (n + 1) + "; max-age=3600"</script></main></body></html>',
      ),
    });
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
    const answer = await call<{ data: { screenshot: string; markdown: string } }>(served, keys.acme!, 'POST', '/scrape', {
      url: site.origin,
      formats: ['markdown', 'screenshot'],
    });
    assert.equal(answer.status, 200);
    const { data } = answer.body;
    assert.match(data.markdown, /Everything costs \$10/);
    assert.ok(data.screenshot.startsWith(`${served.url}/artifacts/`), data.screenshot);
    const mine = await call(data.screenshot, keys.acme, 'GET');
    assert.equal(mine.status, 200);
    assert.equal(mine.headers.get('content-type'), 'image/png');
    assert.deepEqual([...mine.bytes.subarray(1, 4)], [...Buffer.from('PNG')]);
    assert.equal((await call(data.screenshot, keys.other, 'GET')).status, 404, 'another team');
    assert.equal((await call(data.screenshot, undefined, 'GET')).status, 401, 'no key');
    assert.equal((await call(served, keys.acme, 'GET', '/artifacts/..%2F..%2Fwebwatch.db')).status, 404);
  });

  it('crawl and batch scrape documents carry URLs of serve for their screenshots and PDFs, not paths of its disk', async () => {
    const crawl = (
      await call<{ id: string }>(served, keys.acme!, 'POST', '/crawl', { url: site.origin, limit: 2, scrapeOptions: { formats: ['markdown', 'screenshot'] } })
    ).body;
    const crawled = await finished(`/crawl/${crawl.id}`, keys.acme!);
    assert.equal(crawled.data.length, 2);
    for (const page of crawled.data) await readableByItsTeamOnly(page.screenshot!, 'image/png');
    const batch = (
      await call<{ id: string }>(served, keys.acme!, 'POST', '/batch/scrape', { urls: [site.origin, `${site.origin}/more`], actions: [{ type: 'pdf' }] })
    ).body;
    const batched = await finished(`/batch/scrape/${batch.id}`, keys.acme!);
    assert.equal(batched.data.length, 2);
    for (const page of batched.data) await readableByItsTeamOnly(page.actions!.pdfs[0]!, 'application/pdf');
    assert.doesNotMatch(JSON.stringify([crawled, batched]), /file:/);
  });

  it('a profile belongs to the team of the key: the same name in another team is another profile', async () => {
    const visit = async (key: string) =>
      (await call<{ data: { markdown: string } }>(served, key, 'POST', '/scrape', { url: `${site.origin}/visit`, profile: { name: 'shop' } })).body.data
        .markdown;
    assert.match(await visit(keys.acme!), /cookie visits 0/);
    assert.match(await visit(keys.acme!), /cookie visits 1/);
    assert.match(await visit(keys.other!), /cookie visits 0/, "the other team does not see acme's cookie");
    assert.match(await visit(keys.acme!), /cookie visits 2/);
  });

  it("a monitor check under serve keeps the screenshot of a new page, as a URL of serve for the team's key", async () => {
    const create = await call<{ data: { id: string } }>(served, keys.acme!, 'POST', '/monitor', {
      name: 'Shop shots',
      schedule: { cron: '0 * * * *' },
      targets: [{ type: 'scrape', urls: [site.origin], scrapeOptions: { formats: ['markdown', 'screenshot'] } }],
    });
    const monitor = create.body.data;
    const running = (await call<{ data: { id: string } }>(served, keys.acme!, 'POST', `/monitor/${monitor.id}/run`, {})).body.data;
    let check: { status: string; pages: { status: string; screenshot?: string }[] } | undefined;
    for (let tries = 0; tries < 300 && (!check || check.status === 'running' || check.status === 'queued'); tries++) {
      if (check) await new Promise((resolve) => setTimeout(resolve, 100));
      check = (await call<{ data: NonNullable<typeof check> }>(served, keys.acme, 'GET', `/monitor/${monitor.id}/checks/${running.id}`)).body.data;
    }
    assert.equal(check!.status, 'completed');
    assert.equal(check!.pages[0]!.status, 'new');
    assert.match(check!.pages[0]!.screenshot!, /\/artifacts\/kept\//);
    await readableByItsTeamOnly(check!.pages[0]!.screenshot!, 'image/png');
  });

  it('without --allow-private-targets, the browser does not reach a private page either', async () => {
    const seen = site.requests.length;
    const answer = await call(guarded, keys.guarded!, 'POST', '/scrape', { url: site.origin, formats: ['screenshot'] });
    assert.equal(answer.status, 403);
    assert.match(JSON.stringify(answer.body), /private, loopback and link-local/);
    assert.equal(site.requests.length, seen, 'the site saw no request');
  });
});
