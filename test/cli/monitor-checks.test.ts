/** Checks end to end on a local site whose pages change between checks. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { html, readBody, startServer, type TestServer } from '../helpers/server.js';

const BIN = fileURLToPath(new URL('../../../bin/webwatch.js', import.meta.url));

describe('monitor run, checks, check', () => {
  let server: TestServer;
  const site = {
    a: '<main><h1>A</h1><p>Price: $10</p></main>',
    b: '<main><h1>B</h1><p>Stable</p></main>',
    oldStatus: 200,
    links: ['/site/one', '/site/two'],
  };
  /** Requests of /slow so far: a check is surely running while one is unanswered. */
  let slowAsked = 0;
  /** Webhook deliveries received. */
  const hooks: { type: string; id: string; data: { status?: string; error?: string }[] }[] = [];
  before(async () => {
    server = await startServer({
      '/a': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end(site.a),
      '/b': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end(site.b),
      '/old': (_q, r) => void r.writeHead(site.oldStatus, { 'content-type': 'text/html' }).end('<main><p>Old page</p></main>'),
      '/slow': (_q, r) => {
        slowAsked++;
        setTimeout(() => r.writeHead(200, { 'content-type': 'text/html' }).end('<p>slow</p>'), 1500);
      },
      '/site/': (_q, r) =>
        void r.writeHead(200, { 'content-type': 'text/html' }).end(`<main>${site.links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main>`),
      '/hook': async (q, r) => {
        hooks.push(JSON.parse(await readBody(q)));
        r.writeHead(200).end();
      },
      '/site/one': html('<main><p>One</p></main>'),
      '/site/two': html('<main><p>Two</p></main>'),
    });
  });
  after(() => server.close());

  function monitorFile(name: string, urls: string[], crawl = true) {
    return writeFiles({
      'm.yaml': `name: ${name}\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: scrape\n    urls: [${urls.join(', ')}]\n${crawl ? `  - type: crawl\n    url: ${server.origin}/site/\n    crawlOptions: {sitemap: skip, ignoreRobotsTxt: true}\n` : ''}`,
    });
  }

  it('says its counts in the number they take: 1 error, 1 page', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    await run(['monitor', 'apply', '-f', monitorFile('One', ['http://127.0.0.1:1/down'], false)], { env });
    const result = await run(['monitor', 'run', 'One'], { env });
    assert.match(result.stdout + result.stderr, /: 0 changed, 0 new, 0 removed, 0 same, 1 error \(1 page\)\n/);
  });

  it('reports new, same, changed, removed and error pages with counts and diffs', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    const dir = monitorFile('Site', [`${server.origin}/a`, `${server.origin}/b`, `${server.origin}/old`, 'http://127.0.0.1:1/down']);
    await run(['monitor', 'apply', '-f', dir], { env });

    const first = JSON.parse((await run(['monitor', 'run', 'Site', '--wait', '--json'], { env })).stdout);
    assert.equal(first.status, 'partial'); // one URL cannot be reached
    assert.deepEqual(first.summary, { changed: 0, error: 1, new: 6, removed: 0, same: 0, totalPages: 7 });

    const second = JSON.parse((await run(['monitor', 'run', 'Site', '--json'], { env })).stdout);
    assert.deepEqual(second.summary, { changed: 0, error: 1, new: 0, removed: 0, same: 6, totalPages: 7 });

    site.a = '<main><h1>A</h1>\n\n<p>Price:   $12</p></main>';
    site.b = '<main>\n<h1>B</h1>\n   <p>Stable</p>\n</main>'; // whitespace only: same
    site.oldStatus = 410;
    site.links = ['/site/one'];
    const third = await run(['monitor', 'run', 'Site', '--json'], { env });
    const check = JSON.parse(third.stdout);
    // /a changed, and so did /site/, which lost its link to /site/two.
    assert.deepEqual(check.summary, { changed: 2, error: 1, new: 0, removed: 2, same: 2, totalPages: 7 });
    assert.equal(check.trigger, 'manual');

    const changed = JSON.parse((await run(['monitor', 'check', 'Site', check.id, '--status', 'changed', '--json'], { env })).stdout);
    assert.deepEqual(
      changed.pages.map((p: { url: string }) => p.url.replace(server.origin, '')),
      ['/a', '/site/'],
    );
    const page = changed.pages[0];
    assert.equal(page.url, `${server.origin}/a`);
    assert.equal(page.statusCode, 200);
    assert.ok(page.previousScrapeId && page.currentScrapeId && page.previousScrapeId !== page.currentScrapeId);
    assert.equal(page.judgment, null);
    assert.match(page.diff.text, /^--- previous\.md\n\+\+\+ current\.md\n@@ -1,3 \+1,3 @@\n # A\n \n-Price: \$10\n\+Price: \$12/);
    assert.equal(page.diff.json.files[0].additions, 1);

    const all = JSON.parse((await run(['monitor', 'check', 'Site', check.id, '--json'], { env })).stdout);
    const byUrl = Object.fromEntries(all.pages.map((p: { url: string; status: string }) => [p.url.replace(server.origin, ''), p.status]));
    assert.deepEqual(byUrl, {
      '/a': 'changed',
      '/b': 'same',
      '/old': 'removed',
      'http://127.0.0.1:1/down': 'error',
      '/site/': 'changed',
      '/site/one': 'same',
      '/site/two': 'removed',
    });

    const history = JSON.parse((await run(['monitor', 'checks', 'Site', '--json'], { env })).stdout);
    assert.deepEqual(
      history.map((c: { id: string }) => c.id),
      [check.id, second.id, first.id],
    );
    const monitor = JSON.parse((await run(['monitor', 'get', 'Site', '--json'], { env })).stdout);
    assert.deepEqual(monitor.lastCheckSummary, check.summary);
    assert.equal(monitor.currentCheckId, null);
    site.a = '<main><h1>A</h1><p>Price: $10</p></main>';
    site.b = '<main><h1>B</h1><p>Stable</p></main>';
    site.oldStatus = 200;
    site.links = ['/site/one', '/site/two'];
  });

  it('shows pages as rows, and coloured diffs on a terminal', async () => {
    const env = { WEBWATCH_HOME: tempDir(), NO_COLOR: '' };
    await run(['monitor', 'apply', '-f', monitorFile('Colours', [`${server.origin}/a`], false)], { env });
    await run(['monitor', 'run', 'Colours'], { env });
    site.a = '<main><h1>A</h1><p>Price: $99</p></main>';
    const check = JSON.parse((await run(['monitor', 'run', 'Colours', '--json'], { env })).stdout);
    site.a = '<main><h1>A</h1><p>Price: $10</p></main>';
    const piped = await run(['monitor', 'check', 'Colours', check.id], { env });
    assert.equal(piped.stdout, `changed\t200\t\t${server.origin}/a\t\n`);
    const tty = await run(['monitor', 'check', 'Colours', check.id], { env, tty: true });
    assert.match(tty.stdout, /\u001b\[32m\+Price: \$99/);
    assert.match(tty.stdout, /\u001b\[31m-Price: \$10/);
  });

  it('gives every error whole on a terminal: a reason cut to fit the table is listed in full under it', async () => {
    const env = { WEBWATCH_HOME: tempDir(), NO_COLOR: '1' };
    const down = 'http://127.0.0.1:1/down';
    await run(['monitor', 'apply', '-f', monitorFile('Errors', [`${server.origin}/a`, down], false)], { env });
    const check = JSON.parse((await run(['monitor', 'run', 'Errors', '--json'], { env })).stdout);
    const pages = JSON.parse((await run(['monitor', 'check', 'Errors', check.id, '--json'], { env })).stdout).pages as { url: string; error?: string }[];
    const reason = pages.find((page) => page.url === down)!.error!;
    assert.match(reason, /^connection refused by 127\.0\.0\.1/);
    const narrow = await run(['monitor', 'check', 'Errors', check.id], { env, tty: true, columns: 60 });
    const [table, full] = narrow.stdout.split('\nerrors in full:\n');
    assert.match(table!, /…/, 'the row is cut to the terminal');
    assert.equal(full!.trim(), `${down}: ${reason}`);
    const wide = await run(['monitor', 'check', 'Errors', check.id], { env, tty: true, columns: 400 });
    assert.ok(wide.stdout.includes(reason), 'a row that fits is whole');
    assert.doesNotMatch(wide.stdout, /errors in full/);
  });

  it('refuses a paused monitor and a second check at once with 409', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    await run(['monitor', 'apply', '-f', monitorFile('Slow', [`${server.origin}/slow`], false)], { env });
    const firstRun = run(['monitor', 'run', 'Slow', '--json'], { env });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const second = await run(['monitor', 'run', 'Slow', '--json'], { env });
    assert.equal(second.code, 5);
    assert.equal(JSON.parse(second.stdout).error, 'Conflict');
    assert.equal((await firstRun).code, 0);
    await run(['monitor', 'pause', 'Slow'], { env });
    assert.equal((await run(['monitor', 'run', 'Slow'], { env })).code, 5);
  });

  it('a check killed midway is marked failed at the next start and announced, and nothing half-written remains', async () => {
    const home = tempDir();
    const env = { WEBWATCH_HOME: home };
    const file = writeFiles({
      'm.yaml': `name: Crash\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${server.origin}/a", "${server.origin}/slow"]}]\nwebhook: {url: "${server.origin}/hook", events: [monitor.check.completed]}\n`,
    });
    await run(['monitor', 'apply', '-f', file], { env });
    const asked = slowAsked;
    const child = spawn(process.execPath, [BIN, 'monitor', 'run', 'Crash'], { env: { ...process.env, ...env }, stdio: 'ignore' });
    // Killed while /slow is being fetched (a fixed wait missed it when the machine was busy).
    const deadline = Date.now() + 15_000;
    while (slowAsked === asked && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    const db = new Database(join(home, 'webwatch.db'), { readonly: true });
    const interrupted = db.prepare('SELECT id, status FROM checks').all() as { id: string; status: string }[];
    assert.deepEqual(
      interrupted.map((c) => c.status),
      ['running'],
    );
    assert.equal((db.prepare('SELECT count(*) AS n FROM page_results').get() as { n: number }).n, 0);
    assert.equal((db.prepare('SELECT count(*) AS n FROM snapshots').get() as { n: number }).n, 0);
    db.close();
    const next = JSON.parse((await run(['monitor', 'run', 'Crash', '--json'], { env })).stdout);
    assert.equal(next.status, 'completed');
    assert.equal(next.summary.new, 2);
    const checks = JSON.parse((await run(['monitor', 'checks', 'Crash', '--json'], { env })).stdout);
    const old = checks.find((c: { id: string }) => c.id === interrupted[0]!.id);
    assert.equal(old.status, 'failed');
    assert.match(old.error, /interrupted/);
    // The receiver hears of the interrupted check as of any other: its completed event, failed, with the reason.
    const announced = hooks.filter((hook) => hook.type === 'monitor.check.completed' && hook.id === old.id);
    assert.equal(announced.length, 1, JSON.stringify(hooks));
    assert.deepEqual([announced[0]!.data[0]!.status, announced[0]!.data[0]!.error], ['failed', old.error]);
    assert.equal(hooks.filter((hook) => hook.id === next.id).length, 1);
  });
});

describe('monitor run --due', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ '/p': html('<main><p>page</p></main>') });
  });
  after(() => server.close());

  it('runs each due monitor once, as scheduled, and then waits for the next slot', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    const dir = writeFiles({
      'm.yaml': `- name: Hourly\n  schedule: {cron: "0 * * * *"}\n  targets: [{type: scrape, urls: ["${server.origin}/p"]}]\n- name: Daily\n  schedule: {cron: "0 9 * * *"}\n  targets: [{type: scrape, urls: ["${server.origin}/p"]}]\n`,
    });
    await run(['monitor', 'apply', '-f', dir], { env, now: new Date('2026-11-21T12:00:00Z') });
    const early = await run(['monitor', 'run', '--due', '--json'], { env, now: new Date('2026-11-21T12:30:00Z') });
    assert.deepEqual(JSON.parse(early.stdout), []);
    // Down for three hours: the hourly monitor runs once, not once per missed slot.
    const late = JSON.parse((await run(['monitor', 'run', '--due', '--json'], { env, now: new Date('2026-11-21T15:05:00Z') })).stdout);
    assert.equal(late.length, 1);
    assert.equal(late[0].trigger, 'scheduled');
    const hourly = JSON.parse((await run(['monitor', 'get', 'Hourly', '--json'], { env, now: new Date('2026-11-21T15:05:00Z') })).stdout);
    assert.equal(hourly.nextRunAt, '2026-11-21T16:00:00.000Z');
    assert.equal(hourly.lastRunAt, '2026-11-21T15:05:00.000Z');
    assert.deepEqual(JSON.parse((await run(['monitor', 'run', '--due', '--json'], { env, now: new Date('2026-11-21T15:06:00Z') })).stdout), []);
  });

  it('takes a monitor or --due, not both or neither', async () => {
    assert.equal((await run(['monitor', 'run'])).code, 2);
    assert.equal((await run(['monitor', 'run', 'X', '--due'])).code, 2);
  });
});

describe('two webwatch processes on one store', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({}, (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>page</p></main>'));
  });
  after(() => server.close());

  it('run checks at the same time without losing or corrupting anything', async () => {
    const home = tempDir();
    const env = { WEBWATCH_HOME: home };
    const urls = (prefix: string) => Array.from({ length: 30 }, (_, i) => `"${server.origin}/${prefix}/${i}"`).join(', ');
    const dir = writeFiles({
      'm.yaml': `- name: One\n  schedule: {cron: "0 * * * *"}\n  targets: [{type: scrape, urls: [${urls('one')}]}]\n- name: Two\n  schedule: {cron: "0 * * * *"}\n  targets: [{type: scrape, urls: [${urls('two')}]}]\n`,
    });
    await run(['monitor', 'apply', '-f', dir], { env });
    const runChild = (name: string) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [BIN, 'monitor', 'run', name], { env: { ...process.env, ...env }, stdio: 'ignore' });
        child.on('exit', resolve);
      });
    assert.deepEqual(await Promise.all([runChild('One'), runChild('Two')]), [0, 0]);
    const db = new Database(join(home, 'webwatch.db'), { readonly: true });
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    const counts = db
      .prepare(
        'SELECT m.name AS name, c.status AS status, (SELECT count(*) FROM page_results p WHERE p.check_id = c.id) AS pages FROM checks c JOIN monitors m ON m.id = c.monitor_id ORDER BY m.name',
      )
      .all();
    assert.deepEqual(counts, [
      { name: 'One', status: 'completed', pages: 30 },
      { name: 'Two', status: 'completed', pages: 30 },
    ]);
    db.close();
  });
});

describe('retention', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({}, (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>steady page</p></main>'));
  });
  after(() => server.close());

  it('prunes checks older than retentionDays but keeps the snapshot the next comparison needs', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    const dir = writeFiles({
      'm.yaml': `name: Kept\nretentionDays: 1\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${server.origin}/p"]}]\n`,
    });
    const at = (day: number) => ({ env, now: new Date(Date.UTC(2026, 10, day, 12)) });
    await run(['monitor', 'apply', '-f', dir], at(20));
    const first = JSON.parse((await run(['monitor', 'run', 'Kept', '--json'], at(20))).stdout);
    assert.equal(first.summary.new, 1);
    const later = JSON.parse((await run(['monitor', 'run', 'Kept', '--json'], at(25))).stdout);
    assert.equal(later.summary.same, 1, 'the old snapshot survived pruning');
    const history = JSON.parse((await run(['monitor', 'checks', 'Kept', '--json'], at(25))).stdout);
    assert.deepEqual(
      history.map((c: { id: string }) => c.id),
      [later.id],
    );
  });
});

describe('unchanged responses', () => {
  let server: TestServer;
  let nonce = 1;
  let text = 'steady';
  before(async () => {
    server = await startServer(
      {},
      (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end(`<script>var nonce = ${nonce};</script><main><p>${text} page</p></main>`),
    );
  });
  after(() => server.close());

  const snapshots = (home: string) => {
    const db = new Database(join(home, 'webwatch.db'));
    try {
      return db.prepare('SELECT scrape_id, fingerprint, content_hash FROM snapshots').all() as {
        scrape_id: string;
        fingerprint: string;
        content_hash: string;
      }[];
    } finally {
      db.close();
    }
  };

  it('are same without converting again; new bytes with the same content update the fingerprint', async () => {
    const home = tempDir();
    const env = { WEBWATCH_HOME: home };
    await run(
      [
        'monitor',
        'apply',
        '-f',
        writeFiles({ 'm.yaml': `name: Steady\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${server.origin}/p"]}]\n` }),
      ],
      { env },
    );
    assert.equal(JSON.parse((await run(['monitor', 'run', 'Steady', '--json'], { env })).stdout).summary.new, 1);
    const [first] = snapshots(home);
    assert.ok(first?.fingerprint && first.content_hash);

    // Other kept text shows whether the content was compared: the same bytes are not.
    const db = new Database(join(home, 'webwatch.db'));
    db.prepare("UPDATE snapshots SET markdown = 'other text', content_hash = 'not-the-hash'").run();
    db.close();
    assert.equal(JSON.parse((await run(['monitor', 'run', 'Steady', '--json'], { env })).stdout).summary.same, 1);

    // New bytes are converted and compared: the other text now makes the page changed.
    nonce++;
    assert.equal(JSON.parse((await run(['monitor', 'run', 'Steady', '--json'], { env })).stdout).summary.changed, 1);

    // Another nonce with the same content: same, and the snapshot learns the new fingerprint.
    const before = snapshots(home).find((s) => s.content_hash !== 'not-the-hash')!;
    nonce++;
    assert.equal(JSON.parse((await run(['monitor', 'run', 'Steady', '--json'], { env })).stdout).summary.same, 1);
    const after = snapshots(home).find((s) => s.scrape_id === before.scrape_id)!;
    assert.notEqual(after.fingerprint, before.fingerprint);
    assert.equal(after.content_hash, before.content_hash);

    text = 'moved';
    assert.equal(JSON.parse((await run(['monitor', 'run', 'Steady', '--json'], { env })).stdout).summary.changed, 1);
  });
});

describe('a page that is gone', () => {
  let server: TestServer;
  const page = { status: 200, body: '<main><p>Offer: $10</p></main>', linked: true, deadLinked: true };
  before(async () => {
    server = await startServer({
      '/offer': (_q, r) =>
        void r.writeHead(page.status, { 'content-type': 'text/html' }).end(page.status === 200 ? page.body : `<p>Not here (${page.status})</p>`),
      '/hub/': (_q, r) =>
        void r
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<main><p>Hub</p>${page.linked ? '<a href="/hub/leaf">leaf</a>' : ''}${page.deadLinked ? '<a href="/hub/dead">dead</a>' : ''}</main>`),
      '/hub/leaf': html('<main><p>Leaf</p></main>'),
    });
  });
  after(() => server.close());

  it('is removed once, same while it stays gone, and new when it comes back', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    let minute = 0;
    const at = () => ({ env, now: new Date(Date.UTC(2026, 10, 21, 12, minute++)) });
    const dir = writeFiles({
      'm.yaml': `name: Gone\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: scrape\n    urls: ["${server.origin}/offer"]\n  - type: crawl\n    url: ${server.origin}/hub/\n    crawlOptions: {sitemap: skip, ignoreRobotsTxt: true}\n`,
    });
    await run(['monitor', 'apply', '-f', dir], at());
    const check = async () => {
      const done = JSON.parse((await run(['monitor', 'run', 'Gone', '--json'], at())).stdout);
      const pages = JSON.parse((await run(['monitor', 'check', 'Gone', done.id, '--json'], at())).stdout).pages as {
        url: string;
        status: string;
        statusCode: number | null;
        previousScrapeId: string | null;
      }[];
      return {
        summary: done.summary,
        pages: Object.fromEntries(pages.map((p) => [p.url.replace(server.origin, ''), `${p.status} ${p.statusCode}`])),
        raw: pages,
      };
    };

    // A link to a page that answers 404 from the start: never seen, so not removed but an error, once.
    const first = await check();
    assert.deepEqual(first.pages, { '/offer': 'new 200', '/hub/': 'new 200', '/hub/leaf': 'new 200', '/hub/dead': 'error 404' });
    assert.deepEqual(first.summary, { changed: 0, error: 1, new: 3, removed: 0, same: 0, totalPages: 4 });
    assert.match(
      (first.raw.find((p) => p.url.endsWith('/hub/dead')) as { error?: string }).error ?? '',
      /^HTTP 404: the page does not exist \(first check of this address/,
    );

    page.status = 404;
    page.linked = false;
    page.deadLinked = false; // its link goes too: it was gone already, so it is not removed again
    const removed = await check();
    assert.deepEqual(removed.pages, { '/offer': 'removed 404', '/hub/': 'changed 200', '/hub/leaf': 'removed null' });
    assert.equal(removed.summary.removed, 2);

    // Still gone: nothing new to report. The scraped URL is still fetched (same, 404); the
    // crawl no longer finds its page, which is not listed again.
    const stillGone = await check();
    assert.deepEqual(stillGone.pages, { '/offer': 'same 404', '/hub/': 'same 200' });
    assert.deepEqual(stillGone.summary, { changed: 0, error: 0, new: 0, removed: 0, same: 2, totalPages: 2 });
    page.status = 410; // another answer that says gone, with other bytes
    assert.deepEqual((await check()).pages, { '/offer': 'same 410', '/hub/': 'same 200' });

    // Back with exactly the content it had before it went: new again, with nothing to compare to.
    page.status = 200;
    page.linked = true;
    const back = await check();
    assert.deepEqual(back.pages, { '/offer': 'new 200', '/hub/': 'changed 200', '/hub/leaf': 'new 200' });
    assert.ok(back.raw.filter((p) => p.status === 'new').every((p) => p.previousScrapeId === null));
    assert.deepEqual((await check()).pages, { '/offer': 'same 200', '/hub/': 'same 200', '/hub/leaf': 'same 200' });
  });
});
