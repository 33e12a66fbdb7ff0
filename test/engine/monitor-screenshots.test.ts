/**
 * Monitors of pages with screenshots: a check keeps the screenshot of a new or changed page
 * (not of a same one), out of the 24 h artifact pruning, for the monitor's retention; the CLI's
 * check output shows where it is. Pages on loopback, the system's Chromium.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../src/engine/browser/chromium.js';
import { closeBrowserIfOpen } from '../../src/engine/browser/lifetime.js';
import { checkStore, type PageResult } from '../../src/engine/monitors/check-store.js';
import { monitorStore } from '../../src/engine/monitors/monitor-store.js';
import { runCheck } from '../../src/engine/monitors/run-check.js';
import { openDatabase } from '../../src/engine/store/database.js';
import type { NormalizedMonitor } from '../../src/spec/monitor.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';

const hasChromium = (() => {
  try {
    return Boolean(findChromium(process.env, undefined, 'the tests'));
  } catch {
    return false;
  }
})();

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

describe('monitor checks keep screenshots', { skip: !hasChromium && 'no Chromium: apt-get install chromium' }, () => {
  let site: TestServer;
  let price = '$10';
  const page = (body: string) => (_q: unknown, r: import('node:http').ServerResponse) =>
    void r.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><main>${body}</main></body></html>`);

  before(async () => {
    site = await startServer({
      '/price': (q, r) => page(`<h1>Price</h1><p>Everything costs ${price} today, as the screenshot shows.</p>`)(q, r),
      '/stable': page('<h1>Stable</h1><p>This page does not change between checks.</p>'),
    });
  });
  after(async () => {
    await closeBrowserIfOpen();
    await site.close();
  });

  it('a new or changed page has its screenshot kept with the check, a same one has none; check shows its path', async () => {
    const home = tempDir();
    const env = { WEBWATCH_HOME: home };
    const dir = writeFiles({
      'm.yaml': `name: Shots\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: scrape\n    urls: [${site.origin}/price]\n    scrapeOptions: {formats: [markdown, screenshot]}\n  - type: scrape\n    urls: [${site.origin}/stable]\n    scrapeOptions: {actions: [{type: screenshot}]}\n`,
    });
    assert.equal((await run(['monitor', 'apply', '-f', dir], { env })).code, 0);
    const check = async () =>
      JSON.parse((await run(['monitor', 'run', 'Shots', '--wait', '--json'], { env })).stdout) as { id: string; summary: Record<string, number> };
    const pages = async (id: string) => (JSON.parse((await run(['monitor', 'check', 'Shots', id, '--json'], { env })).stdout) as { pages: PageResult[] }).pages;
    const kept = join(home, 'artifacts', 'local', 'kept');

    const first = await check();
    assert.deepEqual(first.summary, { changed: 0, error: 0, new: 2, removed: 0, same: 0, totalPages: 2 });
    const firstPages = await pages(first.id);
    for (const result of firstPages) {
      assert.ok(result.screenshot?.startsWith('file:'), `${result.url}: ${result.screenshot}`);
      const path = fileURLToPath(result.screenshot!);
      assert.equal(join(path, '..'), kept, 'kept apart from the artifacts pruned after 24 hours');
      assert.deepEqual(readFileSync(path).subarray(0, 4), PNG);
      assert.equal(statSync(kept).mode & 0o777, 0o700, "the kept directory is its owner's only");
    }
    // A person reading the check sees where each screenshot is.
    const shown = await run(['monitor', 'check', 'Shots', first.id], { env });
    for (const result of firstPages) assert.ok(shown.stdout.includes(fileURLToPath(result.screenshot!)), shown.stdout);

    const second = await check();
    assert.deepEqual(second.summary, { changed: 0, error: 0, new: 0, removed: 0, same: 2, totalPages: 2 });
    assert.deepEqual(
      (await pages(second.id)).map((result) => result.screenshot),
      [undefined, undefined],
      'nothing new to show: no screenshot kept',
    );
    assert.doesNotMatch((await run(['monitor', 'check', 'Shots', second.id], { env })).stdout, /kept/);

    price = '$12';
    const third = await check();
    assert.deepEqual(third.summary, { changed: 1, error: 0, new: 0, removed: 0, same: 1, totalPages: 2 });
    const [changed, same] = await pages(third.id);
    assert.equal(changed!.status, 'changed');
    assert.ok(existsSync(fileURLToPath(changed!.screenshot!)));
    assert.notEqual(changed!.screenshot, firstPages[0]!.screenshot);
    assert.equal(same!.screenshot, undefined);
  });

  it("a kept screenshot goes with its check at the end of the monitor's retention", async () => {
    const home = tempDir();
    const db = await openDatabase(join(home, 'webwatch.db'));
    const artifactsDir = join(home, 'artifacts', 'acme');
    let now = new Date('2026-11-01T12:00:00Z');
    const definition = {
      name: 'Kept',
      schedule: { cron: '0 * * * *', timezone: 'UTC' },
      goal: null,
      judgeEnabled: false,
      retentionDays: 7,
      webhook: { url: 'http://127.0.0.1:9/hook' },
      targets: [{ type: 'scrape', urls: [`${site.origin}/price`], scrapeOptions: { formats: ['markdown', 'screenshot'] } }],
    } as unknown as NormalizedMonitor;
    const monitor = await monitorStore(db).insert('acme', definition, now);
    const context = { checks: checkStore(db), now: () => now, scrape: { version: 'test', now: () => now, browser: { env: process.env, artifactsDir } } };

    price = '$20';
    const first = await runCheck(context, monitor, 'manual');
    const [kept] = await checkStore(db).pages(first.id);
    assert.ok(kept!.screenshot, 'the store holds the kept file name');
    const path = join(artifactsDir, 'kept', kept!.screenshot!);
    assert.ok(existsSync(path));
    // The webhook's page event leaves the kept file out: it names a file of this machine.
    const [event] = await db.query.selectFrom('outbox').select('body').where('check_id', '=', first.id).where('event', '=', 'monitor.page').execute();
    const sent = JSON.parse(event!.body) as { data: Record<string, unknown>[] };
    assert.equal(sent.data[0]!.status, 'new');
    assert.equal('screenshot' in sent.data[0]!, false);

    now = new Date('2026-11-05T12:00:00Z');
    await runCheck(context, monitor, 'manual');
    assert.ok(existsSync(path), 'within the retention the screenshot stays');

    now = new Date('2026-11-10T12:00:00Z');
    await runCheck(context, monitor, 'manual');
    assert.equal(await checkStore(db).get(monitor.id, first.id), undefined, 'the first check is past the retention');
    assert.equal(existsSync(path), false, 'and its screenshot went with it');
    await db.close();
  });
});
