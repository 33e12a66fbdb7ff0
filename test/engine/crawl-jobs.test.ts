/** Crawl jobs in the store: pages of bounded size, teams, expiry. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CRAWL_RESULTS_TTL_MS, crawlJobStore } from '../../src/engine/crawl/crawl-jobs.js';
import type { ScrapeDocument } from '../../src/engine/scrape/document.js';
import { databasePath, openDatabase } from '../../src/engine/store/database.js';
import { tempDir } from '../helpers/files.js';

const documentOf = (url: string, size: number): ScrapeDocument => ({
  markdown: 'x'.repeat(size),
  metadata: { sourceURL: url, url, statusCode: 200, scrapeId: url, cacheState: 'miss', creditsUsed: 1 },
});

describe('crawl job store', () => {
  it('answers documents in pages of at most maxBytes, at least one each, and lists errors apart', () => {
    const db = openDatabase(databasePath({ WEBWATCH_HOME: tempDir() }));
    const jobs = crawlJobStore(db);
    const now = new Date('2026-11-22T10:00:00Z');
    const job = jobs.start('acme', 'https://example.com/', { limit: 10 }, now);
    for (let i = 0; i < 5; i++) jobs.addPage(job.id, { url: `https://example.com/${i}`, document: documentOf(`https://example.com/${i}`, 400) }, now);
    jobs.addPage(job.id, { url: 'https://example.com/broken', error: 'connection refused by example.com', code: 'SCRAPE_CONNECTION_FAILED' }, now);
    jobs.finish(job.id, 'completed');

    const record = jobs.get('acme', job.id, now)!;
    assert.deepEqual([record.status, record.total, record.completed, record.creditsUsed], ['completed', 6, 5, 5]);
    const seen: string[] = [];
    let skip: number | null = 0;
    let answers = 0;
    while (skip !== null) {
      const page = jobs.documents(job.id, skip, 1000);
      assert.ok(page.data.length >= 1 && page.data.length <= 2, 'a 400-character document and its metadata take about 550 bytes: one or two an answer');
      seen.push(...page.data.map((d) => d.metadata.sourceURL));
      skip = page.nextSkip;
      answers++;
    }
    assert.equal(answers, 5);
    assert.deepEqual(seen, [0, 1, 2, 3, 4].map((i) => `https://example.com/${i}`));
    assert.equal(jobs.documents(job.id, 0, 10).data.length, 1, 'one document even when it alone is over the bound');
    assert.deepEqual(jobs.errors(job.id).map((e) => [e.url, e.code]), [['https://example.com/broken', 'SCRAPE_CONNECTION_FAILED']]);

    assert.equal(jobs.get('rival', job.id, now), undefined, "another team's job is unknown");
    jobs.finish(job.id, 'failed', 'too late');
    assert.equal(jobs.get('acme', job.id, now)!.status, 'completed', 'an ended job keeps its status');

    const later = new Date(now.getTime() + CRAWL_RESULTS_TTL_MS);
    assert.equal(jobs.get('acme', job.id, later), undefined, 'expired');
    assert.equal(jobs.purgeExpired(later), 1);
    assert.equal((db.prepare('SELECT count(*) AS n FROM crawl_pages').get() as { n: number }).n, 0);
    db.close();
  });
});
