/** Usage: what each team did, counted in the ledger, read through serve's routes, the hosted clients and the CLI. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { AGENT_CREDITS } from '../../src/engine/agent/run-agent.js';
import { UNLIMITED } from '../../src/server/routes/usage.js';
import { tempDir } from '../helpers/files.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const FIRECRAWL_CLI = createRequire(import.meta.url).resolve('firecrawl-cli/dist/index.js');
const exec = promisify(execFile);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

describe('usage', () => {
  let site: TestServer;
  let searxng: TestServer;
  let model: FakeLlm;
  let served: ServingWebwatch;
  let acme: string;
  let acmeCi: string;
  let rival: string;
  let releaseSlow: () => void = () => undefined;
  before(async () => {
    const page = (body: string) => (_q: unknown, r: import('node:http').ServerResponse) => void r.writeHead(200, { 'content-type': 'text/html' }).end(body);
    site = await startServer({
      '/a': page('<main><p>a</p><a href="/b">b</a></main>'),
      '/b': page('<main><p>b</p><a href="/c">c</a></main>'),
      '/c': page('<main><p>c</p></main>'),
      '/slow': async (_q, r) => {
        await new Promise<void>((resolve) => (releaseSlow = resolve));
        r.writeHead(200, { 'content-type': 'text/html' }).end('<main>slow</main>');
      },
    });
    searxng = await startServer({
      '/search': (_q, r) =>
        void r
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ results: [1, 2, 3].map((n) => ({ url: `https://r${n}.example/`, title: `r${n}`, content: '' })) })),
    });
    model = await startFakeLlm(() => ({
      toolCalls: [{ name: 'finish', arguments: { result: { ok: true } } }],
      usage: { prompt_tokens: 100, completion_tokens: 20 },
    }));
    served = await serveWebwatch({ search: { provider: 'searxng', baseUrl: searxng.origin }, llm: { baseUrl: model.url, model: 'scripted', timeoutMs: 5000 } });
    acme = (await served.keys.create('acme', new Date())).key;
    acmeCi = (await served.keys.create('acme', new Date())).key;
    rival = (await served.keys.create('rival', new Date())).key;
  });
  after(async () => {
    releaseSlow();
    await served.stop();
    await model.close();
    await searxng.close();
    await site.close();
  });
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 200; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('timed out');
  };

  it('adds up what each team did: pages, a crawl, a map, a search, an agent job', async () => {
    assert.equal((await call(served, acme, 'POST', '/scrape', { url: `${site.origin}/a` })).status, 200);
    assert.equal((await call(served, acmeCi, 'POST', '/scrape', { url: `${site.origin}/c` })).status, 200);
    const crawl = await call(served, acme, 'POST', '/crawl', {
      url: `${site.origin}/a`,
      sitemap: 'skip',
      ignoreRobotsTxt: true,
      limit: 3,
      scrapeOptions: { maxAge: 0 },
    });
    await until(async () => (await call(served, acme, 'GET', `/crawl/${crawl.body.id}`)).body.status === 'completed');
    assert.equal((await call(served, acme, 'POST', '/map', { url: `${site.origin}/a`, sitemap: 'skip' })).status, 200);
    assert.equal((await call(served, acme, 'POST', '/search', { query: 'x' })).status, 200);
    const agent = await call(served, acme, 'POST', '/agent', { prompt: 'say ok' });
    await until(async () => (await call(served, acme, 'GET', `/agent/${agent.body.id}`)).body.status === 'completed');
    const agentCredits = AGENT_CREDITS.modelCall;

    // 2 pages + 3 crawled + 1 map + 2 search (3 results) + the agent's model call.
    const expected = 2 + 3 + 1 + 2 + agentCredits;
    const credits = await call(served, acme, 'GET', '/team/credit-usage');
    assert.equal(credits.body.data.creditsUsed, expected);
    assert.equal(credits.body.data.remainingCredits, UNLIMITED);
    assert.equal(credits.body.data.billingPeriodStart.slice(8), '01T00:00:00.000Z');
    const tokens = await call(served, acme, 'GET', '/team/token-usage');
    assert.equal(tokens.body.data.tokensUsed, 120);
    assert.equal((await call(served, rival, 'GET', '/team/credit-usage')).body.data.creditsUsed, 0, 'another team sees none of it');

    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    assert.equal((await client.getCreditUsage()).remainingCredits, UNLIMITED);
    const byKey = await client.getCreditUsageHistorical(true);
    const keyIds = (await served.keys.list()).filter((k) => k.team === 'acme').map((k) => k.id);
    const perKey = Object.fromEntries(byKey.periods.map((p) => [p.apiKey, p.creditsUsed]));
    assert.equal(perKey[keyIds.find((id) => perKey[id] === 1)!], 1, 'the second key did one page');
    assert.equal(
      byKey.periods.reduce((sum, p) => sum + p.creditsUsed, 0),
      expected,
    );
    assert.ok(!JSON.stringify(byKey).includes(acme), 'never a key itself');
    assert.equal((await client.getTokenUsageHistorical()).periods[0]!.tokensUsed, 120);

    const home = tempDir();
    const { stdout } = await exec(process.execPath, [FIRECRAWL_CLI, '--api-url', served.origin, '--api-key', acme, 'credit-usage', '--json'], {
      env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home },
      cwd: home,
    });
    assert.match(stdout, new RegExp(String(UNLIMITED)));

    const cli = await run(['usage', '--json'], { env: { WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: acme } });
    const report = JSON.parse(cli.stdout);
    assert.equal(report.credits.used, expected);
    assert.equal(report.tokens.used, 120);
    assert.deepEqual(
      report.months.map((m: Body) => [m.creditsUsed, m.tokensUsed]),
      [[expected, 120]],
    );
  });

  it('concurrency and queue status show the work running now', async () => {
    const client = new Firecrawl({ apiKey: rival, apiUrl: served.origin });
    const crawl = await call(served, rival, 'POST', '/crawl', { url: `${site.origin}/slow`, sitemap: 'skip', ignoreRobotsTxt: true, limit: 1 });
    assert.equal(crawl.status, 200);
    await until(async () => site.requests.some((r) => r.path === '/slow'));
    assert.deepEqual(await client.getConcurrency(), { concurrency: 1, maxConcurrency: 20 });
    const queue = await client.getQueueStatus();
    assert.equal(queue.activeJobsInQueue, 1);
    assert.equal(queue.waitingJobsInQueue, 0);
    releaseSlow();
    await until(async () => (await call(served, rival, 'GET', `/crawl/${crawl.body.id}`)).body.status === 'completed');
    assert.equal((await client.getQueueStatus()).activeJobsInQueue, 0);
  });

  it('a monthly budget runs out: 402, and remaining says so', async () => {
    const budget = await serveWebwatch({ monthlyCredits: 2 });
    try {
      const key = (await budget.keys.create('acme', new Date())).key;
      const scrape = () => call(budget, key, 'POST', '/scrape', { url: `${site.origin}/a`, maxAge: 0 });
      assert.equal((await scrape()).status, 200);
      assert.equal((await scrape()).status, 200);
      const refused = await scrape();
      assert.equal(refused.status, 402);
      const body = refused.body;
      assert.equal(body.error, 'Payment Required: Insufficient credits');
      assert.match(body.details.reason, /used its 2 credits of this month/);
      const usage = (await call(budget, key, 'GET', '/team/credit-usage')).body;
      assert.deepEqual([usage.data.remainingCredits, usage.data.planCredits, usage.data.creditsUsed], [0, 2, 2]);
    } finally {
      await budget.stop();
    }
  });

  it("webwatch usage on the embedded engine counts the command line's own work", async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    assert.equal((await run(['scrape', `${site.origin}/a`], { env })).code, 0);
    await run(['map', `${site.origin}/a`, '--sitemap', 'skip'], { env });
    const shown = await run(['usage'], { env });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /credits: 2 used, no limit/);
    assert.match(shown.stdout, /tokens: +0 used, no limit/);
  });
});
