/** Batch scrape: the routes, the hosted clients, the command line, cancel, and a serve killed mid-batch. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { tempDir } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { serveProcess } from '../helpers/serve-process.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

describe('batch scrape', () => {
  let site: TestServer;
  let served: ServingWebwatch;
  let acme: string;
  let rival: string;
  const held: (() => void)[] = [];
  before(async () => {
    site = await startServer(
      {
        '/broken': (_q, r) => void r.destroy(),
        '/slow': (_q, r) => void held.push(() => r.writeHead(200, { 'content-type': 'text/html' }).end('<main>slow</main>')),
      },
      (request, response) =>
        void response.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${request.url}</title><main><p>page ${request.url}</p></main>`),
    );
    served = await serveWebwatch();
    acme = (await served.keys.create('acme', new Date())).key;
    rival = (await served.keys.create('rival', new Date())).key;
  });
  after(async () => {
    for (const release of held) release();
    await served.stop();
    await site.close();
  });
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 300; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('timed out');
  };

  it('scrapes the URLs, lists the invalid ones, stores pages and errors, and keeps them to the team', async () => {
    const urls = [`${site.origin}/one`, 'not a url', `${site.origin}/two`, `${site.origin}/broken`];
    const started = await call(served, acme, 'POST', '/batch/scrape', { urls, ignoreInvalidURLs: true, formats: ['markdown'] });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.deepEqual(started.body.invalidURLs, ['not a url']);
    assert.equal(started.body.url, `${served.origin}/v2/batch/scrape/${started.body.id}`);
    let status: Body;
    await until(async () => (status = (await call(served, acme, 'GET', `/batch/scrape/${started.body.id}`)).body).status !== 'scraping');
    assert.deepEqual([status.status, status.total, status.completed, status.creditsUsed, status.next], ['completed', 3, 2, 2, null]);
    assert.deepEqual(status.data.map((d: Body) => d.markdown.trim()).sort(), ['page /one', 'page /two']);
    assert.ok(Date.parse(status.expiresAt) > Date.now());
    const errors = (await call(served, acme, 'GET', `/batch/scrape/${started.body.id}/errors`)).body;
    assert.deepEqual(
      errors.errors.map((e: Body) => [e.url, e.code]),
      [[`${site.origin}/broken`, 'SCRAPE_CONNECTION_FAILED']],
    );
    assert.deepEqual(errors.robotsBlocked, []);
    const other = await call(served, rival, 'GET', `/batch/scrape/${started.body.id}`);
    assert.equal(other.status, 404);
    assert.match(other.body.details.reason, /no batch scrape job with this id for this key's team/);
    assert.equal((await call(served, acme, 'GET', `/crawl/${started.body.id}`)).status, 404, 'a batch is not a crawl');
  });

  it('counts the URLs asked for in total from the first poll, while pages are held, and after a cancel', async () => {
    const urls = [...Array.from({ length: 6 }, (_, i) => `${site.origin}/slow?${i}`), `${site.origin}/broken`];
    const started = await call(served, acme, 'POST', '/batch/scrape', { urls, maxConcurrency: 2 });
    const first = (await call(served, acme, 'GET', `/batch/scrape/${started.body.id}`)).body;
    assert.deepEqual([first.status, first.total, first.completed], ['scraping', 7, 0]);
    await until(async () => held.length >= 2);
    held.splice(0, 1)[0]!();
    await until(async () => (await call(served, acme, 'GET', `/batch/scrape/${started.body.id}`)).body.completed === 1);
    assert.equal((await call(served, acme, 'DELETE', `/batch/scrape/${started.body.id}`)).status, 200);
    const ended = (await call(served, acme, 'GET', `/batch/scrape/${started.body.id}`)).body;
    assert.deepEqual([ended.status, ended.total, ended.completed], ['cancelled', 7, 1]);
    for (const release of held.splice(0)) release();
  });

  it('names what it refuses: an invalid URL, a malformed webhook, appendToId, a bad option; private hosts on a guarded server', async () => {
    const invalidUrl = await call(served, acme, 'POST', '/batch/scrape', { urls: [`${site.origin}/a`, 'ftp://x/'] });
    assert.equal(invalidUrl.status, 400);
    assert.equal(invalidUrl.body.details[0].path, 'urls[1]');
    // Webhooks are delivered (job-webhooks.test.ts); one that is not a URL is refused by name.
    const webhook = await call(served, acme, 'POST', '/batch/scrape', { urls: [`${site.origin}/a`], webhook: { url: 'hooks.example/x' } });
    assert.equal(webhook.status, 400);
    assert.deepEqual(webhook.body.details, [{ path: 'webhook.url', message: 'must be an absolute URL starting with http:// or https://' }]);
    assert.match(
      JSON.stringify((await call(served, acme, 'POST', '/batch/scrape', { urls: [`${site.origin}/a`], appendToId: 'x' })).body.details),
      /appendToId/,
    );
    assert.match(JSON.stringify((await call(served, acme, 'POST', '/batch/scrape', { urls: [`${site.origin}/a`], timeout: 5 })).body.details), /timeout/);
    assert.equal((await call(served, acme, 'POST', '/batch/scrape', { urls: [] })).status, 400);
    const cleaned = await call(served, acme, 'POST', '/batch/scrape', { urls: [`${site.origin}/a`], zeroDataRetention: true, onlyCleanContent: true });
    assert.equal(cleaned.status, 400);
    assert.deepEqual(cleaned.body.details, [{ path: 'onlyCleanContent', message: 'is not supported with zeroDataRetention' }]);
    const guarded = await serveWebwatch({ allowPrivateTargets: false });
    try {
      assert.equal(
        (await call(guarded, (await guarded.keys.create('acme', new Date())).key, 'POST', '/batch/scrape', { urls: [`${site.origin}/a`] })).status,
        403,
      );
    } finally {
      await guarded.stop();
    }
  });

  it('cancel stops the fetching at once; a second cancel is a conflict', async () => {
    const urls = Array.from({ length: 20 }, (_, i) => `${site.origin}/slow?${i}`);
    const started = await call(served, acme, 'POST', '/batch/scrape', { urls, maxConcurrency: 2 });
    await until(async () => held.length >= 2);
    const cancelled = await call(served, acme, 'DELETE', `/batch/scrape/${started.body.id}`);
    assert.deepEqual(cancelled.body, { success: true, status: 'cancelled' });
    const asked = site.requests.filter((r) => r.path === '/slow').length;
    for (const release of held.splice(0)) release();
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(site.requests.filter((r) => r.path === '/slow').length, asked, 'no page fetched after the cancel');
    const status = (await call(served, acme, 'GET', `/batch/scrape/${started.body.id}`)).body;
    assert.equal(status.status, 'cancelled');
    assert.equal((await call(served, acme, 'DELETE', `/batch/scrape/${started.body.id}`)).status, 409);
  });

  it('the hosted JS SDK starts, waits for, reads, cancels and lists errors of batch scrapes', async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const job = await client.batchScrape([`${site.origin}/sdk-1`, `${site.origin}/sdk-2`], { options: { formats: ['markdown'] }, pollInterval: 0.1 } as never);
    assert.equal(job.status, 'completed');
    assert.deepEqual(job.data.map((d) => d.markdown?.trim()).sort(), ['page /sdk-1', 'page /sdk-2']);
    const started = await client.startBatchScrape([`${site.origin}/sdk-3`, `${site.origin}/broken`], { ignoreInvalidURLs: true });
    await until(async () => (await client.getBatchScrapeStatus(started.id)).status === 'completed');
    assert.deepEqual(
      (await client.getBatchScrapeErrors(started.id)).errors.map((e) => e.url),
      [`${site.origin}/broken`],
    );
    const slow = await client.startBatchScrape([`${site.origin}/slow?sdk`]);
    assert.equal(await client.cancelBatchScrape(slow.id), true);
  });

  it('webwatch scrape --input: one batch job on an API, the same pages on the engine, in the order given', async () => {
    const list = join(tempDir(), 'urls.txt');
    writeFileSync(list, `# pages\n${site.origin}/c1\n\n${site.origin}/c2  # second\n${site.origin}/broken\n`);
    const env = { WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: acme };
    const before = (await call(served, acme, 'GET', '/team/queue-status')).body;
    const remote = await run(['scrape', '--input', list, '--json'], { env });
    assert.equal(remote.code, 1, 'a page failed');
    const lines = remote.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.map((l) => (l.success ? l.data.markdown.trim() : `error ${l.url}`)),
      ['page /c1', 'page /c2', `error ${site.origin}/broken`],
    );
    assert.ok(before);
    const local = await run(['scrape', '--input', list, '--json']);
    assert.deepEqual(
      local.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).success),
      [true, true, false],
    );
    const empty = await run(['scrape', '--input', join(tempDir(), 'missing.txt')]);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /cannot read --input .*missing\.txt: no such file/);
  });

  it('a batch whose serve was killed is failed, with the reason, when serve comes back', async () => {
    const home = tempDir();
    const key = JSON.parse((await run(['keys', 'create', '--team', 'acme', '--json'], { env: { WEBWATCH_HOME: home } })).stdout).key;
    const startServe = () => serveProcess(['--quiet'], { WEBWATCH_HOME: home });
    const first = await startServe();
    const slowBefore = site.requests.filter((r) => r.path === '/slow').length;
    const { body } = await call(first, key, 'POST', '/batch/scrape', { urls: [`${site.origin}/slow?killed`] });
    // The serve took the batch from the queue and is fetching its page.
    await until(async () => site.requests.filter((r) => r.path === '/slow').length > slowBefore);
    await first.kill();
    const second = await startServe();
    try {
      const status = (await call(second, key, 'GET', `/batch/scrape/${body.id}`)).body;
      assert.equal(status.status, 'failed');
      assert.match(status.error, /interrupted: the process running the batch scrape ended before it finished/);
    } finally {
      await second.stop();
    }
  });
});
