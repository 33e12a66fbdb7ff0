/** Search targets against a fake SearXNG server on loopback. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SEARCH_UNAVAILABLE } from '../../src/engine/monitors/run-check.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { readBody, startServer, type TestServer } from '../helpers/server.js';

// The tests' clock stands at 2026-11-21T12:00:00Z.
const ago = (minutes: number) => new Date(Date.parse('2026-11-21T12:00:00Z') - minutes * 60_000).toISOString();

describe('search targets', () => {
  let searxng: TestServer;
  const results: Record<string, { url: string; title: string; content: string; publishedDate?: string | null }[]> = {
    'gpu launch': [
      { url: 'https://news.example/gpu-a', title: 'New GPU launched', content: 'The GPU launch happened today', publishedDate: ago(60) },
      { url: 'https://news.example/old', title: 'Old GPU story', content: 'From last week', publishedDate: ago(3 * 24 * 60) },
      { url: 'https://blog.example/undated', title: 'Undated GPU post', content: 'No date given', publishedDate: null },
      { url: 'https://spam.example/gpu', title: 'GPU deals', content: 'Buy now', publishedDate: ago(10) },
    ],
    'gpu benchmarks': [
      { url: 'https://news.example/gpu-a/', title: 'New GPU launched', content: 'Same page again', publishedDate: ago(60) },
      { url: 'https://bench.example/e', title: 'GPU benchmarks', content: 'Benchmarks are in', publishedDate: ago(30) },
    ],
  };
  const queries: string[] = [];
  before(async () => {
    searxng = await startServer({
      '/search': (request, response) => {
        const url = new URL(request.url!, 'http://x');
        const q = url.searchParams.get('q')!;
        queries.push(`${q}|${url.searchParams.get('format')}|${url.searchParams.get('time_range')}`);
        if (q === 'broken query') return void response.writeHead(500).end('oops');
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: q, results: results[q] ?? [] }));
      },
    });
  });
  after(() => searxng.close());

  const monitor = (queriesYaml: string) =>
    writeFiles({
      'm.yaml': `name: GPUs\ngoal: Tell me about GPU launches\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: search\n    queries: ${queriesYaml}\n    maxResults: 3\n    searchWindow: 24h\n    excludeDomains: [spam.example]\n`,
    });

  it('reports unseen results as new (judged), seen ones as same, de-duplicated, filtered and capped', async () => {
    const env = {
      WEBWATCH_HOME: tempDir(),
      XDG_CONFIG_HOME: writeFiles({ 'webwatch/config.yaml': `search: {provider: searxng, baseUrl: "${searxng.origin}"}\n` }),
    };
    await run(['monitor', 'apply', '-f', monitor('["gpu launch", "gpu benchmarks"]')], { env });
    const first = JSON.parse((await run(['monitor', 'run', 'GPUs', '--json'], { env })).stdout);
    assert.deepEqual(first.summary, { changed: 0, error: 0, new: 3, removed: 0, same: 0, totalPages: 3 });
    assert.deepEqual(queries.slice(0, 2), ['gpu launch|json|day', 'gpu benchmarks|json|day']);
    const pages = JSON.parse((await run(['monitor', 'check', 'GPUs', first.id, '--json'], { env })).stdout).pages;
    assert.deepEqual(
      pages.map((p: { url: string }) => p.url),
      ['https://news.example/gpu-a', 'https://blog.example/undated', 'https://bench.example/e'],
    );
    assert.equal(pages[0].judgment.meaningful, true, 'new results are judged against the goal');

    results['gpu benchmarks']!.push({ url: 'https://bench.example/f', title: 'More GPU numbers', content: 'x', publishedDate: ago(5) });
    results['gpu launch']!.splice(2, 1); // the undated post is gone: the cap now lets f in
    const second = JSON.parse((await run(['monitor', 'run', 'GPUs', '--json'], { env })).stdout);
    assert.deepEqual(second.summary, { changed: 0, error: 0, new: 1, removed: 0, same: 2, totalPages: 3 });
  });

  it('makes a failed query an error page and the check partial', async () => {
    const env = {
      WEBWATCH_HOME: tempDir(),
      XDG_CONFIG_HOME: writeFiles({ 'webwatch/config.yaml': `search: {provider: searxng, baseUrl: "${searxng.origin}"}\n` }),
    };
    await run(['monitor', 'apply', '-f', monitor('["gpu launch", "broken query"]')], { env });
    const check = JSON.parse((await run(['monitor', 'run', 'GPUs', '--json'], { env })).stdout);
    assert.equal(check.status, 'partial');
    const pages = JSON.parse((await run(['monitor', 'check', 'GPUs', check.id, '--status', 'error', '--json'], { env })).stdout).pages;
    assert.equal(pages[0].url, 'search:broken query');
    assert.match(pages[0].error, /SearXNG: the search provider answered HTTP 500/);
  });

  it("asks a v2 API's search route with the key and the window", async () => {
    const asked: { body: { query: string; limit: number; tbs: string }; authorization: string | undefined }[] = [];
    const api = await startServer({
      '/v2/search': async (request, response) => {
        asked.push({ body: JSON.parse(await readBody(request)), authorization: request.headers.authorization });
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ success: true, data: { web: [{ url: 'https://news.example/v2-result', title: 'GPU launch', description: 'via the API' }] } }));
      },
    });
    const env = {
      WEBWATCH_HOME: tempDir(),
      WEBWATCH_SEARCH_API_KEY: 'ww_search',
      XDG_CONFIG_HOME: writeFiles({ 'webwatch/config.yaml': `search: {provider: v2, apiUrl: "${api.origin}"}\n` }),
    };
    await run(['monitor', 'apply', '-f', monitor('["gpu launch"]')], { env });
    const check = JSON.parse((await run(['monitor', 'run', 'GPUs', '--json'], { env })).stdout);
    assert.equal(check.summary.new, 1);
    assert.deepEqual(asked, [{ body: { query: 'gpu launch', limit: 3, tbs: 'qdr:d' }, authorization: 'Bearer ww_search' }]);
    await api.close();
  });

  it('without a provider, says how to configure one', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    await run(['monitor', 'apply', '-f', monitor('["gpu launch"]')], { env });
    const check = JSON.parse((await run(['monitor', 'run', 'GPUs', '--json'], { env })).stdout);
    assert.equal(check.status, 'failed');
    const pages = JSON.parse((await run(['monitor', 'check', 'GPUs', check.id, '--json'], { env })).stdout).pages;
    assert.equal(pages[0].error, SEARCH_UNAVAILABLE);
  });
});
