/**
 * The rules of scrape options and the closed request bodies, against `webwatch serve` on loopback:
 * each refusal is a §7.1 body, 400 `Bad Request` with a detail naming the field, answered before
 * any page is fetched, on every route that takes what the rule is about.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

describe('request rules on serve', () => {
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

  const send = (method: string, path: string, body?: unknown) => call(served, key, method, path, body);

  const monitor = (target: Record<string, unknown>) => ({ name: `m-${Math.random()}`, schedule: { cron: '0 * * * *' }, targets: [target] });

  /** Each route that takes scrape options, with the prefix of their paths in its details. */
  const withScrapeOptions = (options: Record<string, unknown>): [string, string, unknown, string][] => [
    ['POST', '/scrape', { url: site.url, ...options }, ''],
    ['POST', '/batch/scrape', { urls: [site.url], ...options }, ''],
    ['POST', '/crawl', { url: site.url, limit: 1, scrapeOptions: options }, 'scrapeOptions.'],
    ['POST', '/search', { query: 'webwatch', scrapeOptions: options }, 'scrapeOptions.'],
    ['POST', '/monitor', monitor({ type: 'scrape', urls: [site.url], scrapeOptions: options }), 'targets[0].scrapeOptions.'],
    ['POST', '/monitor', monitor({ type: 'crawl', url: site.url, scrapeOptions: options }), 'targets[0].scrapeOptions.'],
  ];

  /** The answer is exactly the §7.1 body of a 400 whose details are `expected` (messages matched). */
  function assertRefused(answer: { status: number; body: Body }, expected: [string, RegExp][], label: string) {
    assert.equal(answer.status, 400, `${label}: ${JSON.stringify(answer.body)}`);
    assert.deepEqual(Object.keys(answer.body).sort(), ['code', 'details', 'error', 'success'], label);
    assert.equal(answer.body.success, false, label);
    assert.equal(answer.body.error, 'Bad Request', label);
    assert.equal(answer.body.code, 'BAD_REQUEST', label);
    assert.deepEqual(
      answer.body.details.map((detail: Body) => Object.keys(detail).sort()),
      expected.map(() => ['message', 'path']),
      `${label}: ${JSON.stringify(answer.body.details)}`,
    );
    assert.deepEqual(
      answer.body.details.map((detail: Body) => detail.path),
      expected.map(([path]) => path),
      label,
    );
    expected.forEach(([, message], index) => assert.match(answer.body.details[index].message, message, label));
  }

  it('waitFor over half of the timeout is 400 before any fetch, on every route that takes scrape options', async () => {
    const fetched = site.requests.length;
    for (const waitFor of [8000, 15000, 20000]) {
      for (const [method, path, body, prefix] of withScrapeOptions({ waitFor, timeout: 15000 })) {
        assertRefused(
          await send(method, path, body),
          [
            [
              `${prefix}waitFor`,
              new RegExp(`^waitFor must not exceed half of timeout: ${waitFor} ms is more than half of the timeout of 15000 ms \\(7500 ms\\)`),
            ],
          ],
          `${path} waitFor ${waitFor}`,
        );
      }
    }
    assert.equal(site.requests.length, fetched, 'no page was fetched');
  });

  it('without a timeout, waitFor is held to half of the default one, and the message says so', async () => {
    for (const [method, path, body, prefix] of withScrapeOptions({ waitFor: 40000 })) {
      assertRefused(
        await send(method, path, body),
        [
          [
            `${prefix}waitFor`,
            /^waitFor must not exceed half of timeout: 40000 ms is more than half of the default timeout of 60000 ms, which applies as timeout is not given \(30000 ms\); a timeout of at least 80000 ms allows it$/,
          ],
        ],
        path,
      );
    }
  });

  it('waitFor within half of the timeout passes validation', async () => {
    // lockdown answers from the cache alone: the request is judged, then nothing is fetched.
    for (const [waitFor, timeout] of [
      [5000, 15000],
      [7500, 15000],
      [30000, undefined],
    ]) {
      const answer = await send('POST', '/scrape', { url: `${site.origin}/never-cached`, waitFor, timeout, lockdown: true });
      assert.equal(answer.status, 404, JSON.stringify(answer.body));
      assert.equal(answer.body.code, 'SCRAPE_LOCKDOWN_CACHE_MISS');
    }
    const created = await send('POST', '/monitor', monitor({ type: 'scrape', urls: [site.url], scrapeOptions: { waitFor: 5000, timeout: 15000 } }));
    assert.equal(created.status, 200, JSON.stringify(created.body));
  });

  it('a screenshot viewport over 7680 x 4320 is 400 naming width and height, in the format and in the action', async () => {
    const fetched = site.requests.length;
    const viewport = { width: 8000, height: 5000 };
    const refusals: [Record<string, unknown>, string][] = [
      [{ formats: [{ type: 'screenshot', viewport }] }, 'formats[0].viewport'],
      [{ actions: [{ type: 'screenshot', viewport }] }, 'actions[0].viewport'],
    ];
    for (const [options, at] of refusals) {
      for (const [method, path, body, prefix] of withScrapeOptions(options)) {
        assertRefused(
          await send(method, path, body),
          [
            [`${prefix}${at}.width`, /^must be at most 7680 \(got 8000\)$/],
            [`${prefix}${at}.height`, /^must be at most 4320 \(got 5000\)$/],
          ],
          `${path} ${at}`,
        );
      }
    }
    assertRefused(
      await send('POST', '/scrape', { url: site.url, formats: [{ type: 'screenshot', viewport: { width: 7681, height: 4320 } }] }),
      [['formats[0].viewport.width', /at most 7680/]],
      'one pixel wider',
    );
    assert.equal(site.requests.length, fetched, 'no page was fetched');
    const largest = await send('POST', '/scrape', {
      url: `${site.origin}/never-cached`,
      lockdown: true,
      formats: [{ type: 'screenshot', viewport: { width: 7680, height: 4320 } }],
    });
    assert.equal(largest.status, 404, JSON.stringify(largest.body));
  });

  it("format objects are closed: an unknown key is 400 naming it, json's systemPrompt included", async () => {
    const fetched = site.requests.length;
    const formats: [Record<string, unknown>, string][] = [
      [{ type: 'json', prompt: 'the price', systemPrompt: 'be brief' }, 'systemPrompt'],
      [{ type: 'json', schema: { type: 'object' }, mode: 'llm' }, 'mode'],
      [{ type: 'screenshot', fullPage: true, waitFor: 100 }, 'waitFor'],
      [{ type: 'changeTracking', modes: ['git-diff'], systemPrompt: 'x' }, 'systemPrompt'],
      [{ type: 'question', question: 'why?', prompt: 'x' }, 'prompt'],
      [{ type: 'highlights', query: 'price', prompt: 'x' }, 'prompt'],
      [{ type: 'markdown', onlyMainContent: true }, 'onlyMainContent'],
    ];
    for (const [format, field] of formats) {
      for (const [method, path, body, prefix] of withScrapeOptions({ formats: [format] })) {
        assertRefused(
          await send(method, path, body),
          [[`${prefix}formats[0].${field}`, new RegExp(`^unknown field "${field}"`)]],
          `${path} ${format.type}.${field}`,
        );
      }
    }
    assert.equal(site.requests.length, fetched, 'no page was fetched');
  });

  it('every v2 request body is closed: an unknown field is 400 naming it, at the top and deep inside', async () => {
    const created = await send('POST', '/monitor', monitor({ type: 'scrape', urls: [site.url] }));
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.data.id;
    const fetched = site.requests.length;
    const cases: [string, string, unknown, string][] = [
      ['POST', '/scrape', { url: site.url, onlyMainContnt: false }, 'onlyMainContnt'],
      ['POST', '/scrape', { url: site.url, location: { country: 'DE', city: 'Berlin' } }, 'location.city'],
      ['POST', '/scrape', { url: site.url, actions: [{ type: 'click', selector: 'a', delay: 5 }] }, 'actions[0].delay'],
      ['POST', '/scrape', { url: site.url, parsers: [{ type: 'pdf', ocr: true }] }, 'parsers[0].ocr'],
      ['POST', '/batch/scrape', { urls: [site.url], concurrency: 2 }, 'concurrency'],
      ['POST', '/crawl', { url: site.url, depth: 2 }, 'depth'],
      ['POST', '/crawl', { url: site.url, scrapeOptions: { formts: ['html'] } }, 'scrapeOptions.formts'],
      ['POST', '/map', { url: site.url, subdomains: true }, 'subdomains'],
      ['POST', '/map', { url: site.url, location: { country: 'DE', city: 'Berlin' } }, 'location.city'],
      ['POST', '/search', { query: 'webwatch', lang: 'en' }, 'lang'],
      ['POST', '/search', { query: 'webwatch', sources: [{ type: 'web', limit: 3 }] }, 'sources[0].limit'],
      ['POST', '/search', { query: 'webwatch', scrapeOptions: { formts: ['html'] } }, 'scrapeOptions.formts'],
      ['POST', '/agent', { prompt: 'find the price', temperature: 0 }, 'temperature'],
      ['POST', '/monitor', { ...monitor({ type: 'scrape', urls: [site.url] }), paused: true }, 'paused'],
      ['POST', '/monitor', monitor({ type: 'scrape', urls: [site.url], scrapeOptions: { formts: ['html'] } }), 'targets[0].scrapeOptions.formts'],
      ['POST', '/monitor', monitor({ type: 'crawl', url: site.url, crawlOptions: { depth: 2 } }), 'targets[0].crawlOptions.depth'],
      ['POST', '/monitor', { ...monitor({ type: 'scrape', urls: [site.url] }), schedule: { cron: '0 * * * *', tz: 'UTC' } }, 'schedule.tz'],
      ['POST', '/monitor', { ...monitor({ type: 'scrape', urls: [site.url] }), webhook: { url: 'https://example.com/h', secret: 's' } }, 'webhook.secret'],
      ['PATCH', `/monitor/${id}`, { paused: true }, 'paused'],
      ['PATCH', `/monitor/${id}`, { notification: { email: { enabled: true, cc: [] } } }, 'notification.email.cc'],
    ];
    for (const [method, path, body, field] of cases) {
      const last = field
        .split('.')
        .at(-1)!
        .replace(/\[\d+\]$/, '');
      assertRefused(await send(method, path, body), [[field, new RegExp(`^unknown field "${last}"`)]], `${method} ${path} ${field}`);
    }
    assert.equal(site.requests.length, fetched, 'no page was fetched');
    assert.equal((await send('GET', `/monitor/${id}`)).body.data.name, created.body.data.name, 'the monitor is unchanged');
  });

  it('a misspelt field is named with the one it was probably meant to be', async () => {
    const answer = await send('POST', '/scrape', { url: site.url, onlyMainContnt: false });
    assert.equal(answer.body.details[0].message, 'unknown field "onlyMainContnt" (did you mean "onlyMainContent"?)');
  });
});
