/** Crawl jobs in the store: pages of bounded size, teams, expiry, recovery; on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { it } from 'node:test';
import { CRAWL_RESULTS_TTL_MS, crawlJobStore } from '../../src/engine/crawl/crawl-jobs.js';
import type { ScrapeDocument } from '../../src/engine/scrape/document.js';
import { forEachDatabase } from '../helpers/postgres.js';
import { sqlRow } from '../helpers/sql.js';

const documentOf = (url: string, size: number): ScrapeDocument => ({
  markdown: 'x'.repeat(size),
  metadata: { sourceURL: url, url, statusCode: 200, scrapeId: url, cacheState: 'miss', creditsUsed: 1 },
});

forEachDatabase('crawl job store', ({ open }) => {
  it('answers documents in pages of at most maxBytes, at least one each, and lists errors apart', async () => {
    const db = await open();
    const jobs = crawlJobStore(db);
    const now = new Date('2026-11-22T10:00:00Z');
    const job = await jobs.start('acme', 'https://example.com/', { limit: 10 }, now);
    for (let i = 0; i < 5; i++) await jobs.addPage(job.id, { url: `https://example.com/${i}`, document: documentOf(`https://example.com/${i}`, 400) }, now);
    await jobs.addPage(job.id, { url: 'https://example.com/broken', error: 'connection refused by example.com', code: 'SCRAPE_CONNECTION_FAILED' }, now);
    await jobs.finish(job.id, 'completed');

    const record = (await jobs.get('acme', job.id, now))!;
    assert.deepEqual([record.status, record.total, record.completed, record.creditsUsed], ['completed', 6, 5, 5]);
    const seen: string[] = [];
    let skip: number | null = 0;
    let answers = 0;
    while (skip !== null) {
      const page: { data: ScrapeDocument[]; nextSkip: number | null } = await jobs.documents(job.id, skip, 1000);
      assert.ok(page.data.length >= 1 && page.data.length <= 2, 'a 400-character document and its metadata take about 550 bytes: one or two an answer');
      seen.push(...page.data.map((d) => d.metadata.sourceURL));
      skip = page.nextSkip;
      answers++;
    }
    assert.equal(answers, 5);
    assert.deepEqual(
      seen,
      [0, 1, 2, 3, 4].map((i) => `https://example.com/${i}`),
    );
    assert.equal((await jobs.documents(job.id, 0, 10)).data.length, 1, 'one document even when it alone is over the bound');
    assert.deepEqual(
      (await jobs.errors(job.id)).map((e) => [e.url, e.code]),
      [['https://example.com/broken', 'SCRAPE_CONNECTION_FAILED']],
    );

    assert.equal(await jobs.get('rival', job.id, now), undefined, "another team's job is unknown");
    await jobs.finish(job.id, 'failed', 'too late');
    assert.equal((await jobs.get('acme', job.id, now))!.status, 'completed', 'an ended job keeps its status');

    const later = new Date(now.getTime() + CRAWL_RESULTS_TTL_MS);
    assert.equal(await jobs.get('acme', job.id, later), undefined, 'expired');
    assert.equal(await jobs.purgeExpired(later), 1);
    assert.equal(Number((await sqlRow<{ n: number }>(db, 'SELECT count(*) AS n FROM crawl_pages'))!.n), 0);
    await db.close();
  });

  it('reads more than a batch of pages in order; fails jobs of stopped workers, and only theirs', async () => {
    const db = await open();
    const jobs = crawlJobStore(db);
    const now = new Date();
    const job = await jobs.start('acme', 'https://example.com/', {}, now);
    for (let i = 0; i < 150; i++) await jobs.addPage(job.id, { url: `https://example.com/${i}`, document: documentOf(`https://example.com/${i}`, 10) }, now);
    const all = await jobs.documentTexts(job.id, 0);
    assert.equal(all.texts.length, 150);
    assert.equal(all.nextSkip, null);
    assert.equal(JSON.parse(all.texts[149]!).metadata.url, 'https://example.com/149');

    const stopped = await jobs.start('acme', 'https://example.com/a', {}, now);
    const elsewhere = await jobs.start('acme', 'https://example.com/b', {}, now);
    const renewed = await jobs.start('acme', 'https://example.com/c', {}, now);
    const past = new Date(now.getTime() - 1000).toISOString();
    const future = new Date(now.getTime() + 60_000).toISOString();
    // A worker of this machine whose process is gone; another machine's worker whose lease ran
    // out; another machine's worker that renews its lease.
    await sqlRow(db, 'UPDATE crawl_jobs SET lease_owner = ?, owner_pid = 99999999 WHERE id = ?', `${hostname()}:99999999:dead`, stopped.id);
    await sqlRow(db, "UPDATE crawl_jobs SET lease_owner = 'other-host:1:x', owner_pid = 1, lease_expires_at = ? WHERE id = ?", past, elsewhere.id);
    await sqlRow(db, "UPDATE crawl_jobs SET lease_owner = 'other-host:2:y', owner_pid = 2, lease_expires_at = ? WHERE id = ?", future, renewed.id);
    assert.equal(await jobs.recoverInterrupted(now), 2);
    for (const id of [stopped.id, elsewhere.id]) {
      const failed = (await jobs.get('acme', id, now))!;
      assert.deepEqual([failed.status, failed.error], ['failed', 'interrupted: the process running the crawl ended before it finished']);
    }
    assert.equal((await jobs.get('acme', renewed.id, now))!.status, 'scraping', 'a held lease is left alone');
    assert.equal((await jobs.get('acme', job.id, now))!.status, 'scraping', "this worker's own job is left alone");
    await db.close();
  });
});
