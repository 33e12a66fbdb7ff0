/**
 * `webwatch serve` against bad input and careless sharing: the private-address rule before the
 * cache, the command line's own team, crawl results in the store, URL bounds, deliveries
 * queued by the command line, deep JSON, failures of the target site, non-standard error
 * bodies and what the request log holds.
 */
import assert from 'node:assert/strict';
import { request as rawRequest } from 'node:http';
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { openDatabase, databasePath } from '../../src/engine/store/database.js';
import { keyStore } from '../../src/engine/keys/key-store.js';
import { EXIT } from '../../src/errors/exit-codes.js';
import { MAX_JSON_DEPTH, SCRAPE_URLS_PER_MONITOR_MAX, SCRAPE_URLS_PER_TARGET_MAX } from '../../src/spec/limits.js';
import { watchConnections, type WatchedConnections } from '../helpers/connections.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { readBody, startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch as serve } from '../helpers/webwatch-server.js';
import { sqlRow } from '../helpers/sql.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

describe('the private-address rule comes before the cache', () => {
  let site: TestServer;
  before(async () => {
    site = await startServer({}, (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>internal dashboard</p></main>'));
  });
  after(() => site.close());

  it('a page the command line cached from 127.0.0.1 is not served to a key, plain, lockdown or minAge', async () => {
    const home = tempDir();
    const scraped = await run(['scrape', `${site.origin}/dash`], { env: { WEBWATCH_HOME: home } });
    assert.equal(scraped.code, EXIT.ok);
    assert.match(scraped.stdout, /internal dashboard/);
    const started = await serve({ home, allowPrivateTargets: false });
    const key = (await started.keys.create('acme', new Date())).key;
    for (const options of [{}, { lockdown: true }, { minAge: 1 }]) {
      const answer = await call(started.url, key, 'POST', '/scrape', { url: `${site.origin}/dash`, ...options });
      assert.equal(answer.status, 403, JSON.stringify(options));
      assert.match(answer.body.details.reason, /--allow-private-targets/);
      assert.doesNotMatch(JSON.stringify(answer.body), /internal dashboard/);
    }
    await started.stop();
  });

  it("a team's own cached private page is refused once serve no longer allows private targets", async () => {
    const home = tempDir();
    const open = await serve({ home, allowPrivateTargets: true });
    const key = (await open.keys.create('acme', new Date())).key;
    assert.equal((await call(open.url, key, 'POST', '/scrape', { url: `${site.origin}/dash` })).status, 200);
    assert.equal((await call(open.url, key, 'POST', '/scrape', { url: `${site.origin}/dash`, lockdown: true })).body.data.metadata.cacheState, 'hit');
    await open.stop();
    const closed = await serve({ home, allowPrivateTargets: false });
    assert.equal((await call(closed.url, key, 'POST', '/scrape', { url: `${site.origin}/dash`, lockdown: true })).status, 403);
    await closed.stop();
  });
});

describe('IPv6 spellings of a private address', () => {
  let site: TestServer;
  let connections: WatchedConnections;
  before(async () => {
    site = await startServer({}, (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>internal dashboard</p></main>'));
    connections = watchConnections();
  });
  after(() => {
    connections.stop();
    return site.close();
  });

  it('are refused with 403 before any connection: IPv4-compatible, mapped, translated, NAT64, 6to4 and ISATAP forms of 127.0.0.1', async () => {
    const started = await serve({ allowPrivateTargets: false });
    const key = (await started.keys.create('acme', new Date())).key;
    const port = Number(new URL(site.origin).port);
    const hosts = [
      '[::127.0.0.1]',
      '[0:0:0:0:0:0:127.0.0.1]',
      '[::7f00:1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:0:127.0.0.1]',
      '[64:ff9b::127.0.0.1]',
      '[2002:7f00:1::]',
      '[2606:4700::5efe:127.0.0.1]',
    ];
    try {
      for (const host of hosts) {
        const answer = await call(started.url, key, 'POST', '/scrape', { url: `http://${host}:${port}/dash` });
        assert.equal(answer.status, 403, `${host}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.error, 'Forbidden');
        assert.match(answer.body.details.reason, /--allow-private-targets/);
      }
      assert.deepEqual(
        connections.attempts.filter((attempt) => attempt.port === port),
        [],
        'no connection was attempted to the site, by any address',
      );
      assert.equal(site.requests.length, 0, 'the site saw no request');
    } finally {
      await started.stop();
    }
  });
});

describe("the command line's own team", () => {
  it('is refused to keys unless asked for, and an old key for it is refused', async () => {
    const home = tempDir();
    const env = { WEBWATCH_HOME: home };
    const refused = await run(['keys', 'create', '--team', 'local'], { env });
    assert.equal(refused.code, EXIT.usage);
    assert.match(refused.stderr, /command line's own monitors/);
    assert.match(refused.stderr, /--allow-local-team/);

    const file = writeFiles({
      'm.yaml':
        'name: Mine\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["https://example.com/"]}]\nwebhook: {url: "https://example.com/hook", headers: {Authorization: "Bearer cli-secret"}}\n',
    });
    assert.equal((await run(['monitor', 'apply', '-f', file], { env })).code, EXIT.ok);

    // A key made for "local" before the rule existed.
    const db = await openDatabase(databasePath(env));
    await sqlRow(
      db,
      "INSERT INTO api_keys (id, team, key_hash, created_at) VALUES ('old', 'local', ?, 't')",
      (await import('node:crypto')).createHash('sha256').update('ww_oldkey').digest('hex'),
    );
    await db.close();
    const started = await serve({ home });
    const old = await call(started.url, 'ww_oldkey', 'GET', '/monitor');
    assert.equal(old.status, 403);
    assert.match(old.body.details.reason, /--allow-local-team/);
    assert.doesNotMatch(JSON.stringify(old.body), /cli-secret|Mine/);

    const granted = JSON.parse((await run(['keys', 'create', '--team', 'local', '--allow-local-team', '--json'], { env })).stdout);
    const list = await call(started.url, granted.key, 'GET', '/monitor');
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.map((m: { name: string }) => m.name),
      ['Mine'],
    );
    await started.stop();
  });
});

describe('crawl results live in the store', () => {
  let site: TestServer;
  const big = `<main><h1>Big</h1>${'<p>paragraph of a long page</p>'.repeat(2000)}</main>`;
  before(async () => {
    site = await startServer({
      '/': (_q, r) =>
        void r.writeHead(200, { 'content-type': 'text/html' }).end(`<main><p>home</p><a href="/a">a</a><a href="/b">b</a><a href="/gone">gone</a></main>`),
      '/a': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end(big),
      '/b': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>page b</p></main>'),
    });
  });
  after(() => site.close());

  const finished = async (url: string, key: string, id: string) => {
    for (let i = 0; i < 200; i++) {
      const status = await call(url, key, 'GET', `/crawl/${id}`);
      if (status.body.status !== 'scraping') return status;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the crawl did not finish');
  };

  it('survive a restart, carry expiresAt and next, list their errors, and expire after a day', async () => {
    const home = tempDir();
    let now = Date.now();
    const first = await serve({ home, now: () => new Date(now) });
    const key = (await first.keys.create('acme', new Date())).key;
    const startedCrawl = await call(first.url, key, 'POST', '/crawl', { url: `${site.origin}/`, sitemap: 'skip', ignoreRobotsTxt: true, limit: 10 });
    const id = startedCrawl.body.id;
    const done = await finished(first.url, key, id);
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.total, 4);
    assert.equal(done.body.completed, 4, 'a 404 page is a document too');
    assert.equal(done.body.next, null);
    assert.equal(Date.parse(done.body.expiresAt) - now, 24 * 60 * 60 * 1000);
    await first.stop();

    // Another server on the same store reads the same results: nothing was kept in memory only.
    const second = await serve({ home, now: () => new Date(now) });
    const again = await call(second.url, key, 'GET', `/crawl/${id}`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.data.map((d: Body) => d.metadata.sourceURL).sort(), [
      `${site.origin}/`,
      `${site.origin}/a`,
      `${site.origin}/b`,
      `${site.origin}/gone`,
    ]);
    assert.match(again.body.data.find((d: Body) => d.metadata.sourceURL.endsWith('/a')).markdown, /paragraph of a long page/);
    const errors = await call(second.url, key, 'GET', `/crawl/${id}/errors`);
    assert.deepEqual(errors.body, { success: true, errors: [], robotsBlocked: [] });

    now += 24 * 60 * 60 * 1000 + 1;
    const expired = await call(second.url, key, 'GET', `/crawl/${id}`);
    assert.equal(expired.status, 404);
    assert.match(expired.body.details.reason, /kept for 24 hours/);
    await second.stop();
    const db = await openDatabase(databasePath({ WEBWATCH_HOME: home }));
    const third = await serve({ home, now: () => new Date(now) });
    await third.server.ready;
    assert.equal((await sqlRow<{ n: number }>(db, 'SELECT count(*) AS n FROM crawl_pages'))!.n, 0, 'expired pages are deleted');
    await db.close();
    await third.stop();
  });

  it('a crawl whose server died is failed, not left scraping', async () => {
    const home = tempDir();
    const db = await openDatabase(databasePath({ WEBWATCH_HOME: home }));
    // A pid that cannot be alive (pids are below 2^22 on Linux).
    await sqlRow(
      db,
      "INSERT INTO crawl_jobs (id, team, url, status, created_at, expires_at, owner_pid) VALUES ('00000000-0000-4000-8000-000000000001', 'acme', 'https://example.com/', 'scraping', ?, ?, 99999999)",
      new Date().toISOString(),
      new Date(Date.now() + 60_000).toISOString(),
    );
    await db.close();
    const started = await serve({ home });
    await started.server.ready;
    const key = (await started.keys.create('acme', new Date())).key;
    const status = await call(started.url, key, 'GET', '/crawl/00000000-0000-4000-8000-000000000001');
    assert.equal(status.body.status, 'failed');
    assert.match(status.body.error, /interrupted/);
    await started.stop();
  });
});

describe('URLs of a monitor', () => {
  const monitor = (urls: string[][]) => ({ name: 'Many', schedule: { cron: '0 * * * *' }, targets: urls.map((list) => ({ type: 'scrape', urls: list })) });
  const urls = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `https://${prefix}${i}.example.com/`);

  it('are bounded per target and per monitor, answered at once', async () => {
    const started = await serve({ allowPrivateTargets: false });
    const key = (await started.keys.create('acme', new Date())).key;
    const t0 = performance.now();
    const perTarget = await call(started.url, key, 'POST', '/monitor', monitor([urls(SCRAPE_URLS_PER_TARGET_MAX + 1, 'a')]));
    assert.equal(perTarget.status, 400);
    assert.deepEqual(perTarget.body.details, [
      { path: 'targets[0].urls', message: `must have at most ${SCRAPE_URLS_PER_TARGET_MAX} items (this one has ${SCRAPE_URLS_PER_TARGET_MAX + 1})` },
    ]);
    const perMonitor = await call(started.url, key, 'POST', '/monitor', monitor([urls(1000, 'a'), urls(1000, 'b'), urls(1, 'c')]));
    assert.equal(perMonitor.status, 400);
    assert.match(perMonitor.body.details[0].message, new RegExp(`at most ${SCRAPE_URLS_PER_MONITOR_MAX}`));
    assert.ok(performance.now() - t0 < 5000, 'refused without looking anything up');
    await started.stop();
  });

  it('a file over the bound is invalid before anything is sent', async () => {
    const list = urls(SCRAPE_URLS_PER_TARGET_MAX + 1, 'a')
      .map((url) => `"${url}"`)
      .join(', ');
    const file = writeFiles({ 'm.yaml': `name: Many\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: [${list}]}]\n` });
    const result = await run(['monitor', 'validate', file]);
    assert.equal(result.code, EXIT.usage);
    assert.match(result.stdout, /targets\[0\]\.urls.*at most 1000 items/);
  });
});

describe('deliveries queued by the command line', () => {
  it('keep the command line’s rule: serve delivers them to a private address', async () => {
    const received: string[] = [];
    const receiver = await startServer({}, async (request, response) => {
      received.push(JSON.parse(await readBody(request)).type);
      response.writeHead(204).end();
    });
    const port = Number(new URL(receiver.origin).port);
    await receiver.close();
    const site = await startServer({}, (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>page</p></main>'));
    const home = tempDir();
    const config = tempDir();
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(`${config}/webwatch`, { recursive: true });
    writeFileSync(`${config}/webwatch/config.yaml`, 'deliveryWaitSeconds: 0\n');
    const env = { WEBWATCH_HOME: home, XDG_CONFIG_HOME: config };
    const file = writeFiles({
      'm.yaml': `name: Hooked\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${site.origin}/p"]}]\nwebhook: {url: "http://127.0.0.1:${port}/hook", events: [monitor.check.completed]}\n`,
    });
    assert.equal((await run(['monitor', 'apply', '-f', file], { env })).code, EXIT.ok);
    const check = JSON.parse((await run(['monitor', 'run', 'Hooked', '--json'], { env })).stdout);
    assert.deepEqual(
      { ...check.notificationStatus.webhook, lastError: undefined },
      { pending: 1, delivered: 0, failed: 0, attempts: 1, lastError: undefined },
      'the receiver is down: the delivery waits',
    );

    const back = await startServer(
      {},
      async (request, response) => {
        received.push(JSON.parse(await readBody(request)).type);
        response.writeHead(204).end();
      },
      port,
    ).catch(() => undefined);
    if (!back) return; // The port was taken meanwhile: nothing to learn this time.
    // serve, refusing private targets for its keys, delivers it when it is due (an hour on).
    const started = await serve({ home, allowPrivateTargets: false, now: () => new Date(Date.now() + 3_600_000) });
    for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await started.stop();
    await back.close();
    await site.close();
    assert.deepEqual(received, ['monitor.check.completed']);
  });
});

describe('bad requests get the §7.1 body', () => {
  it('deep JSON is a 400 naming the field', async () => {
    const started = await serve();
    const key = (await started.keys.create('acme', new Date())).key;
    const deep = `{"name":"Deep","schedule":{"cron":"0 * * * *"},"targets":[{"type":"scrape","urls":["https://example.com/"]}],"webhook":{"url":"https://example.com/h","metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}}`;
    const answer = await call(started.url, key, 'POST', '/monitor', deep);
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'Bad Request');
    assert.equal(answer.body.details[0].path, `webhook.metadata${'.a'.repeat(MAX_JSON_DEPTH - 2)}`);
    assert.match(answer.body.details[0].message, new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`));
    const proto = await call(started.url, key, 'POST', '/scrape', '{"url":"https://example.com/","__proto__":{"admin":true}}');
    assert.equal(proto.status, 400);
    await started.stop();
  });

  it('failures of the target site answer with their code and a message', async () => {
    const started = await serve();
    const key = (await started.keys.create('acme', new Date())).key;
    const closed = await startServer({});
    const port = new URL(closed.origin).port;
    await closed.close();
    const refused = await call(started.url, key, 'POST', '/scrape', { url: `http://127.0.0.1:${port}/` });
    assert.equal(refused.status, 502);
    assert.equal(refused.body.code, 'SCRAPE_CONNECTION_FAILED');
    assert.match(refused.body.error, /connection refused by 127\.0\.0\.1/);
    const unknown = await call(started.url, key, 'POST', '/scrape', { url: 'http://no-such-host.invalid/' });
    assert.equal(unknown.status, 502);
    assert.equal(unknown.body.code, 'SCRAPE_DNS_RESOLUTION_ERROR');
    await started.stop();
  });

  it('huge headers, long path segments, bad paths and /health with a query', async () => {
    const log = new PassThrough();
    let logged = '';
    log.on('data', (chunk) => (logged += chunk));
    const started = await serve({ log });
    const key = (await started.keys.create('acme', new Date())).key;

    const long = await call(started.url, key, 'GET', `/monitor/${'x'.repeat(300)}`);
    assert.equal(long.status, 414);
    assert.equal(long.body.success, false);
    assert.equal((await call(started.url, undefined, 'GET', '/monitor/%E0%A4%A')).status, 401, 'the key is checked first');
    const bad = await call(started.url, key, 'GET', '/monitor/%E0%A4%A');
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.body).sort(), ['code', 'details', 'error', 'success']);
    assert.equal((await call(started.url.replace(/\/v2$/, ''), undefined, 'GET', '/health?x=1')).status, 200);

    const { port } = new URL(started.origin);
    const raw = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(`GET /v2/monitor HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('close', () => resolve(text));
    });
    assert.match(raw, /^HTTP\/1\.1 431 /);
    assert.deepEqual(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)), {
      success: false,
      error: 'Request Header Fields Too Large',
      code: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
    });

    // The request log holds paths without their query strings.
    await new Promise<void>((resolve) => {
      rawRequest(`${started.url}/monitor?token=secret-in-query`, { headers: { authorization: `Bearer ${key}` } }, (response) =>
        response.resume().on('end', resolve),
      ).end();
    });
    await started.stop();
    assert.match(logged, /"path":"\/v2\/monitor"/);
    assert.doesNotMatch(logged, /secret-in-query/);
    assert.doesNotMatch(logged, new RegExp(key));
  });
});

describe('keys of the store', () => {
  it('keys of the command line team are refused by the store itself', async () => {
    const db = await openDatabase(databasePath({ WEBWATCH_HOME: tempDir() }));
    await assert.rejects(keyStore(db).create('local', new Date()), /command line's own monitors/);
    assert.equal((await keyStore(db).create('local', new Date(), { allowLocalTeam: true })).grantsLocalTeam, true);
    await db.close();
  });
});
