/**
 * Input that HTTP or the store cannot carry is the caller's mistake, refused by name when it is
 * given: header names and values of webhooks and scrapes, bodies that are not UTF-8, and text
 * with NUL characters or halves of surrogate pairs. Before, such headers failed every delivery
 * (left pending) or every fetch (a 502 the command line retried), and such text was stored
 * altered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EXIT } from '../../src/errors/exit-codes.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

const monitor = (webhookHeaders: Record<string, string>) => ({
  name: 'Headers',
  schedule: { cron: '0 * * * *' },
  targets: [{ type: 'scrape', urls: ['https://example.com/'] }],
  webhook: { url: 'https://example.com/hook', headers: webhookHeaders },
});

describe('bad input to serve', () => {
  let served: ServingWebwatch;
  let site: TestServer;
  let key: string;
  before(async () => {
    site = await startServer({}, (_request, response) => void response.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>fine</p></main>'));
    served = await serveWebwatch();
    key = (await served.keys.create('acme', new Date())).key;
  });
  after(async () => {
    await served.stop();
    await site.close();
  });
  const monitorNames = async () => (await call(served, key, 'GET', '/monitor')).body.data.map((m: Body) => m.name);

  it('refuses webhook headers HTTP cannot carry, naming each, and never quoting a value', async () => {
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ 'X-Token': 'secret-one\r\nX-Injected: 1' }, 'webhook.headers.X-Token', /line break \(U\+000D\)/],
      [{ 'X-Token': 'secret-two\u0007' }, 'webhook.headers.X-Token', /character a header cannot carry in its value \(U\+0007\)/],
      [{ 'X-Token': 'secret-three\0' }, 'webhook.headers.X-Token', /NUL character/],
      [{ 'Bad Name': 'x' }, 'webhook.headers["Bad Name"]', /not a valid header name/],
      [{ Host: 'internal.example' }, 'webhook.headers.Host', /set by webwatch/],
      [{ 'content-length': '5' }, 'webhook.headers.content-length', /set by webwatch/],
      [{ 'Transfer-Encoding': 'chunked' }, 'webhook.headers.Transfer-Encoding', /set by webwatch/],
    ];
    for (const [headers, path, message] of cases) {
      const answer = await call(served, key, 'POST', '/monitor', JSON.stringify(monitor(headers)));
      assert.equal(answer.status, 400, path);
      assert.equal(answer.body.code, 'BAD_REQUEST');
      const problem = answer.body.details.find((detail: Body) => detail.path === path);
      assert.ok(problem, `${path} in ${JSON.stringify(answer.body.details)}`);
      assert.match(problem.message, message);
      assert.doesNotMatch(JSON.stringify(answer.body), /secret-/);
    }
    assert.deepEqual(await monitorNames(), []);
    assert.equal(
      (await call(served, key, 'POST', '/monitor', JSON.stringify(monitor({ Authorization: 'Bearer x', 'X-Café': 'crème' })))).status,
      400,
      'a header name is ASCII',
    );
    assert.equal(
      (await call(served, key, 'POST', '/monitor', JSON.stringify(monitor({ Authorization: 'Bearer x', 'X-Note': 'crème brûlée' })))).status,
      200,
      'a Latin-1 value is sent as it is',
    );
  });

  it('refuses scrape headers HTTP cannot carry with 400 before any fetch, on every route that takes scrape options', async () => {
    const requests = site.requests.length;
    const bad = { 'X-A': 'a\r\nInjected: 1' };
    for (const [path, body] of [
      ['/scrape', { url: site.url, headers: bad }],
      ['/batch/scrape', { urls: [site.url], headers: bad }],
      ['/crawl', { url: site.url, scrapeOptions: { headers: bad } }],
      ['/scrape', { url: site.url, headers: { 'Not a name': 'x' } }],
      ['/scrape', { url: site.url, headers: { Connection: 'close' } }],
    ] as const) {
      const answer = await call(served, key, 'POST', path, JSON.stringify(body));
      assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.body.details[0].path, /headers/);
    }
    assert.equal(site.requests.length, requests);
    assert.equal(
      (await call(served, key, 'POST', '/scrape', JSON.stringify({ url: site.url, headers: { Host: 'vhost.example', 'X-A': 'b' } }))).status,
      200,
      'a scrape may name its virtual host',
    );
  });

  it('refuses a body that is not UTF-8, saying where, and stores nothing', async () => {
    const stored = await monitorNames();
    const json = Buffer.from(
      JSON.stringify({ name: 'x-----', schedule: { cron: '0 * * * *' }, targets: [{ type: 'scrape', urls: ['https://example.com/'] }] }),
    );
    const at = json.indexOf('-----');
    json.set([0xff, 0xfe, 0xc3, 0x28, 0x80], at);
    const answer = await call(served, key, 'POST', '/monitor', json);
    assert.equal(answer.status, 400);
    assert.deepEqual(answer.body.details, [{ path: '', message: `the body is not valid UTF-8 (at byte ${at})` }]);
    const scrape = Buffer.concat([Buffer.from(`{"url":"${site.origin}/p/`), Buffer.from([0xef, 0xbf]), Buffer.from('"}')]);
    assert.equal((await call(served, key, 'POST', '/scrape', scrape)).status, 400);
    assert.deepEqual(await monitorNames(), stored);
  });

  it('refuses NUL characters and halves of surrogate pairs in any string or key, naming the field', async () => {
    const stored = await monitorNames();
    const base = { schedule: { cron: '0 * * * *' }, targets: [{ type: 'scrape', urls: ['https://example.com/'] }] };
    const nul = await call(served, key, 'POST', '/monitor', JSON.stringify({ ...base, name: 'a\u0000b' }));
    assert.equal(nul.status, 400);
    assert.deepEqual(nul.body.details, [{ path: 'name', message: 'holds a NUL character (U+0000), which cannot be stored' }]);
    // JSON.stringify writes a lone surrogate as an escape, as a client's JSON would.
    const half = await call(served, key, 'POST', '/monitor', JSON.stringify({ ...base, name: 'price \ud83d' }));
    assert.equal(half.status, 400);
    assert.equal(half.body.details[0].path, 'name');
    assert.match(half.body.details[0].message, /half of a surrogate pair \(U\+D83D\)/);
    const inKey = await call(
      served,
      key,
      'POST',
      '/monitor',
      JSON.stringify({ ...base, name: 'ok', webhook: { url: 'https://example.com/h', metadata: { 'k\udc00': 1 } } }),
    );
    assert.equal(inKey.status, 400);
    assert.match(inKey.body.details[0].message, /^the key holds half of a surrogate pair/);
    assert.deepEqual(await monitorNames(), stored);
    const whole = await call(served, key, 'POST', '/monitor', JSON.stringify({ ...base, name: 'price 📉' }));
    assert.equal(whole.status, 200, 'a whole pair is text like any other');
    assert.deepEqual((await monitorNames()).sort(), [...stored, 'price 📉'].sort());
  });
});

describe('bad headers on the command line', () => {
  let api: TestServer;
  before(async () => {
    api = await startServer(
      {},
      (_request, response) => void response.writeHead(500, { 'content-type': 'application/json' }).end('{"success":false,"error":"Internal Server Error"}'),
    );
  });
  after(() => api.close());

  it('a scrape header with a line break is a usage error, exit 2, sent nowhere and never retried', async () => {
    const result = await run(['scrape', 'https://example.com/', '-H', 'X-A: one\ntwo', '--api-url', `${api.origin}/v2`, '--api-key', 'k'], {
      env: { WEBWATCH_HOME: tempDir() },
    });
    assert.equal(result.code, EXIT.usage);
    assert.match(result.stderr, /headers\.X-A: has a line break/);
    assert.equal(api.requests.length, 0);
  });

  it('monitor validate names a webhook header it would refuse', async () => {
    const file = writeFiles({
      'm.yaml':
        'name: Hook\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["https://example.com/"]}]\nwebhook: {url: "https://example.com/h", headers: {Host: "x", "X-Ok": "fine"}}\n',
    });
    const result = await run(['monitor', 'validate', `${file}/m.yaml`]);
    assert.equal(result.code, EXIT.usage);
    assert.match(result.stdout, /m\.yaml:4:\d+ +webhook\.headers\.Host +is set by webwatch for each request/);
  });
});
