/**
 * The hosted service's own clients pointed at `webwatch serve`: its JS SDK
 * (@mendable/firecrawl-js) and its CLI (firecrawl-cli) scrape, and create, list, run and read
 * monitors and checks.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { findChromium } from '../../src/engine/browser/chromium.js';
import { closeBrowserIfOpen } from '../../src/engine/browser/lifetime.js';
import { tempDir } from '../helpers/files.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const FIRECRAWL_CLI = createRequire(import.meta.url).resolve('firecrawl-cli/dist/index.js');
const exec = promisify(execFile);

const chromium = (() => {
  try {
    return findChromium(process.env, undefined, 'the tests');
  } catch {
    return undefined;
  }
})();

describe('the hosted service clients against webwatch serve', () => {
  let site: TestServer;
  let served: ServingWebwatch;
  let origin: string;
  let key: string;
  let headline = 'First headline';
  before(async () => {
    site = await startServer({
      '/news': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end(`<main><h1>News</h1><p>${headline}</p></main>`),
      '/prices': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><h1>Prices</h1><p>Pro costs $10</p></main>'),
    });
    served = await serveWebwatch();
    origin = served.origin;
    key = (await served.keys.create('acme', new Date())).key;
  });
  after(async () => {
    await closeBrowserIfOpen();
    await served.stop();
    await site.close();
  });

  async function finished(client: Firecrawl, monitorId: string, checkId: string) {
    for (let i = 0; i < 50; i++) {
      const check = await client.getMonitorCheck(monitorId, checkId);
      if (check.status !== 'running' && check.status !== 'queued') return check;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the check did not finish');
  }

  it('the JS SDK scrapes, and creates, lists, runs and reads monitors and checks', async () => {
    const client = new Firecrawl({ apiKey: key, apiUrl: origin });
    const document = await client.scrape(`${site.origin}/news`, { formats: ['markdown'] });
    assert.match(document.markdown ?? '', /First headline/);

    const monitor = await client.createMonitor({ name: 'News', schedule: { cron: '0 * * * *' }, targets: [{ type: 'scrape', urls: [`${site.origin}/news`] }] });
    assert.equal(monitor.name, 'News');
    assert.deepEqual(
      (await client.listMonitors()).map((m) => m.id),
      [monitor.id],
    );
    assert.equal((await client.getMonitor(monitor.id)).status, 'active');

    const first = await client.runMonitor(monitor.id);
    assert.equal((await finished(client, monitor.id, first.id)).summary.new, 1);
    headline = 'Second headline';
    const second = await client.runMonitor(monitor.id);
    const detail = await finished(client, monitor.id, second.id);
    assert.equal(detail.summary.changed, 1);
    assert.equal(detail.pages[0]!.status, 'changed');
    assert.match(detail.pages[0]!.diff?.text ?? '', /\+Second headline/);
    assert.deepEqual(
      (await client.listMonitorChecks(monitor.id)).map((c) => c.id),
      [second.id, first.id],
    );

    const paused = await client.updateMonitor(monitor.id, { status: 'paused' });
    assert.equal(paused.status, 'paused');
    assert.equal(await client.deleteMonitor(monitor.id), true);
    await assert.rejects(client.getMonitor('00000000-0000-4000-8000-000000000000'), /Not Found/);
  });

  it('the JS SDK sees metadata.cacheState only when the cache was read, and proxyUsed on every document', async () => {
    const client = new Firecrawl({ apiKey: key, apiUrl: origin });
    const url = `${site.origin}/prices`;
    const fetches = () => site.requests.filter((request) => request.path === '/prices').length;
    const first = await client.scrape(url, { formats: ['markdown'] });
    const second = await client.scrape(url, { formats: ['markdown'] });
    assert.deepEqual([first.metadata?.cacheState, second.metadata?.cacheState], ['miss', 'hit']);
    assert.equal(fetches(), 1);
    const fresh = await client.scrape(url, { formats: ['markdown'], maxAge: 0 });
    assert.equal('cacheState' in fresh.metadata!, false, 'maxAge 0 does not read the cache');
    const tracked = await client.scrape(url, { formats: ['markdown', { type: 'changeTracking' }] });
    assert.equal(tracked.changeTracking?.changeStatus, 'new');
    assert.equal(tracked.metadata?.cacheState, 'miss', 'change tracking reads the cache (its key has the format)');
    const trackedAgain = await client.scrape(url, { formats: ['markdown', { type: 'changeTracking' }] });
    assert.deepEqual([trackedAgain.metadata?.cacheState, trackedAgain.changeTracking?.changeStatus], ['hit', 'same']);
    assert.equal(fetches(), 3);
    const documents = [first, second, fresh, tracked, trackedAgain];
    if (chromium) {
      const acted = await client.scrape(url, { formats: ['markdown'], actions: [{ type: 'wait', milliseconds: 1 }] });
      assert.match(acted.markdown ?? '', /Pro costs/);
      assert.equal('cacheState' in acted.metadata!, false, 'a scrape with actions does not read the cache');
      documents.push(acted);
    }
    assert.deepEqual(
      documents.map((document) => document.metadata?.proxyUsed),
      documents.map(() => 'basic'),
    );
  });

  it('the CLI scrapes, and creates, lists, runs and reads monitors and checks', async () => {
    const home = tempDir();
    const firecrawl = async (...args: string[]) => {
      const { stdout } = await exec(process.execPath, [FIRECRAWL_CLI, '--api-url', origin, '--api-key', key, ...args], {
        env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home },
        cwd: home,
      });
      return stdout;
    };
    assert.match(await firecrawl('scrape', `${site.origin}/news`), /headline/);

    const created = JSON.parse(await firecrawl('monitor', 'create', '--name', 'CLI news', '--cron', '0 * * * *', '--page', `${site.origin}/news`));
    const id = created.data?.id ?? created.id;
    assert.match(id, /^[0-9a-f-]{36}$/);
    const listed = JSON.parse(await firecrawl('monitor', 'list'));
    assert.ok(JSON.stringify(listed).includes(id));
    const run = JSON.parse(await firecrawl('monitor', 'run', id));
    const checkId = run.data?.id ?? run.id;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const checks = JSON.parse(await firecrawl('monitor', 'checks', id));
    assert.ok(JSON.stringify(checks).includes(checkId));
    const check = JSON.parse(await firecrawl('monitor', 'check', id, checkId));
    const pages = check.data?.pages ?? check.pages;
    assert.equal(pages[0].url, `${site.origin}/news`);
  });
});
