/**
 * A job's webhook deliveries in the outbox, on SQLite and PostgreSQL: queued with what they
 * announce, delivered in the order written, a retry holding back what follows it, and no body
 * kept once they ended. A receiver on loopback; the clock is the test's.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, it } from 'node:test';
import { crawlJobStore } from '../../src/engine/crawl/crawl-jobs.js';
import { deliverDue } from '../../src/engine/notify/deliver.js';
import { outboxStore } from '../../src/engine/notify/outbox.js';
import type { ScrapeDocument } from '../../src/engine/scrape/document.js';
import { forEachDatabase } from '../helpers/postgres.js';
import { readBody, startServer, type TestServer } from '../helpers/server.js';
import { sqlRows } from '../helpers/sql.js';

const documentOf = (url: string): ScrapeDocument => ({
  markdown: `page ${url}`,
  metadata: { sourceURL: url, url, statusCode: 200, scrapeId: `scrape-${url}`, cacheState: 'miss', creditsUsed: 1 },
});

let receiver: TestServer;
let received: { type: string; webhookId: string; data: ScrapeDocument[] }[] = [];
let answers: ((response: ServerResponse) => void)[] = [];
before(async () => {
  receiver = await startServer({}, async (request, response) => {
    received.push(JSON.parse(await readBody(request)));
    const answer = answers.shift();
    if (answer) answer(response);
    else response.writeHead(204).end();
  });
});
after(() => receiver.close());

forEachDatabase('job deliveries', ({ open }) => {
  it('go out in the order written; one waiting for a retry holds back the rest, even those queued later', async () => {
    received = [];
    answers = [(response) => void response.writeHead(503).end()];
    const db = await open();
    const jobs = crawlJobStore(db);
    const outbox = outboxStore(db);
    let now = new Date('2026-11-22T10:00:00Z');
    const deliver = () => deliverDue({ outbox, now: () => now, version: 'test', random: () => 0 });
    const context = { keyId: 'k', origin: 'http://127.0.0.1', privateTargetsAllowed: true };
    const webhook = { url: `${receiver.origin}/hook`, headers: {}, metadata: {}, events: ['started', 'page', 'completed', 'failed'] as const };
    const job = await jobs.enqueue('acme', 'https://example.com/', {}, now, context, 0, { ...webhook, events: [...webhook.events] });
    await jobs.addPage(job.id, { url: 'https://example.com/a', document: documentOf('https://example.com/a') }, now);

    // started gets a 503: retried in 2 s (2^1, no jitter); the page claimed with it waits as long.
    await deliver();
    assert.deepEqual(
      received.map((r) => r.type),
      ['crawl.started'],
    );
    await jobs.addPage(job.id, { url: 'https://example.com/broken', error: 'refused', code: 'SCRAPE_CONNECTION_FAILED' }, now);
    await jobs.addPage(job.id, { url: 'https://example.com/b', document: documentOf('https://example.com/b') }, now);
    await jobs.finish(job.id, 'completed', null, now);
    const pending = await sqlRows<{ event: string; next_attempt_at: string; lease_owner: string | null }>(
      db,
      "SELECT event, next_attempt_at, lease_owner FROM outbox WHERE job_id = ? AND status = 'pending'",
      job.id,
    );
    assert.deepEqual(pending.map((row) => [row.event, row.next_attempt_at, row.lease_owner]).sort(), [
      ['crawl.completed', '2026-11-22T10:00:02.000Z', null],
      ['crawl.page', '2026-11-22T10:00:02.000Z', null],
      ['crawl.page', '2026-11-22T10:00:02.000Z', null],
      ['crawl.started', '2026-11-22T10:00:02.000Z', null],
    ]);
    now = new Date('2026-11-22T10:00:01Z');
    assert.equal(await deliver(), 0, 'nothing is due before the retry');

    now = new Date('2026-11-22T10:00:02Z');
    await deliver();
    assert.deepEqual(
      received.map((r) => r.type),
      ['crawl.started', 'crawl.started', 'crawl.page', 'crawl.page', 'crawl.completed'],
    );
    assert.deepEqual(
      received.filter((r) => r.type === 'crawl.page').map((r) => r.data[0]!.metadata.scrapeId),
      ['scrape-https://example.com/a', 'scrape-https://example.com/b'],
    );
    assert.deepEqual(await sqlRows(db, "SELECT count(*) AS n FROM outbox WHERE job_id = ? AND (status != 'delivered' OR body != '')", job.id), [{ n: 0 }]);
    await db.close();
  });

  it('a cancel, or a job its worker left, is announced as failed, once; expiry takes the deliveries with the job', async () => {
    received = [];
    const db = await open();
    const jobs = crawlJobStore(db, 'batch');
    let now = new Date('2026-11-22T10:00:00Z');
    const deliver = () => deliverDue({ outbox: outboxStore(db), now: () => now, version: 'test', random: () => 0 });
    const context = { keyId: 'k', origin: 'http://127.0.0.1', privateTargetsAllowed: true };
    const webhook = { url: `${receiver.origin}/hook`, headers: {}, metadata: {}, events: ['failed' as const] };
    const cancelled = await jobs.enqueue('acme', 'https://example.com/', {}, now, context, 1, webhook);
    assert.equal(await jobs.cancel(cancelled.id, now), true);
    assert.equal(await jobs.cancel(cancelled.id, now), false);
    await jobs.finish(cancelled.id, 'failed', 'too late', now);
    await deliver();
    assert.deepEqual(
      received.map((r) => [r.type, (r as unknown as { error: string }).error]),
      [['batch_scrape.failed', 'cancelled']],
    );

    const left = await jobs.enqueue('acme', 'https://example.com/', {}, now, context, 1, { ...webhook, url: 'http://127.0.0.1:9/closed' });
    await sqlRows(db, "UPDATE crawl_jobs SET lease_owner = 'elsewhere:1:x', lease_expires_at = ? WHERE id = ?", '2026-11-22T09:00:00.000Z', left.id);
    assert.equal(await jobs.recoverInterrupted(now), 1);
    assert.deepEqual(
      (await sqlRows<{ event: string; body: string }>(db, 'SELECT event, body FROM outbox WHERE job_id = ?', left.id)).map((row) => [
        row.event,
        JSON.parse(row.body).error,
      ]),
      [['batch_scrape.failed', 'interrupted: the process running the batch scrape ended before it finished']],
    );
    now = new Date('2026-11-24T10:00:00Z');
    await jobs.purgeExpired(now);
    assert.deepEqual(await sqlRows(db, 'SELECT job_id FROM outbox'), [], 'the deliveries went with their jobs');
    await db.close();
  });
});
