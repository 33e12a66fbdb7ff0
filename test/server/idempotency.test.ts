/**
 * The hosted clients' idempotency key (x-idempotency-key) on job starts: a key the team used is
 * 409 `Idempotency key already used` and starts nothing; two starts sent at once with one key
 * make one job; another team's key is its own; a start refused for its body leaves the key free.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { sqlRows } from '../helpers/sql.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

describe('idempotency keys of job starts', () => {
  let site: TestServer;
  let served: ServingWebwatch;
  let key: string;
  let client: Firecrawl;
  const jobCount = async () => Number((await sqlRows<{ n: number }>(served.db, 'SELECT count(*) AS n FROM crawl_jobs'))[0]!.n);

  before(async () => {
    site = await startServer({ '/': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<title>home</title><p>home</p>') });
    served = await serveWebwatch();
    key = (await served.keys.create('acme', new Date())).key;
    client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
  });
  after(async () => {
    await served.stop();
    await site.close();
  });

  it("a batch scrape started twice with the SDK's idempotencyKey runs once; the second start is 409", async () => {
    const idempotencyKey = randomUUID();
    const first = await client.startBatchScrape([`${site.origin}/`], { idempotencyKey });
    assert.match(first.id, /^[0-9a-f-]{36}$/);
    const before = await jobCount();
    await assert.rejects(client.startBatchScrape([`${site.origin}/`], { idempotencyKey }), /Idempotency key already used/);
    assert.equal(await jobCount(), before, 'no second job');
    const again = await call(served, key, 'POST', '/batch/scrape', { urls: [`${site.origin}/`] }, { headers: { 'x-idempotency-key': idempotencyKey } });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'IDEMPOTENCY_KEY_USED');
  });

  it('two crawls sent at once with one key make one job; another team has keys of its own', async () => {
    const idempotencyKey = randomUUID();
    const start = (apiKey: string) =>
      call(served, apiKey, 'POST', '/crawl', { url: `${site.origin}/`, limit: 1 }, { headers: { 'x-idempotency-key': idempotencyKey } });
    const answers = await Promise.all([start(key), start(key)]);
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 409]);
    const other = (await served.keys.create('globex', new Date())).key;
    assert.equal((await start(other)).status, 200, "the key is the team's");
  });

  it('a start refused for its body leaves the key free; an empty or overlong key is 400', async () => {
    const idempotencyKey = randomUUID();
    const headers = { 'x-idempotency-key': idempotencyKey };
    assert.equal((await call(served, key, 'POST', '/crawl', { url: `${site.origin}/`, limit: 'many' }, { headers })).status, 400);
    assert.equal(
      (await call(served, key, 'POST', '/crawl', { url: `${site.origin}/`, limit: 1 }, { headers })).status,
      200,
      'the refused start did not take it',
    );
    const overlong = await call(served, key, 'POST', '/crawl', { url: `${site.origin}/` }, { headers: { 'x-idempotency-key': 'k'.repeat(256) } });
    assert.equal(overlong.status, 400);
    assert.match(JSON.stringify(overlong.body.details), /x-idempotency-key/);
  });

  it('keys are forgotten after a day, with the results of the jobs they started', async () => {
    const idempotencyKey = randomUUID();
    const headers = { 'x-idempotency-key': idempotencyKey };
    assert.equal((await call(served, key, 'POST', '/crawl', { url: `${site.origin}/`, limit: 1 }, { headers })).status, 200);
    await sqlRows(served.db, "UPDATE idempotency_keys SET taken_at = '2000-01-01T00:00:00.000Z'");
    assert.equal((await call(served, key, 'POST', '/crawl', { url: `${site.origin}/`, limit: 1 }, { headers })).status, 200);
  });
});
