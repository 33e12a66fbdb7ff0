import assert from 'node:assert/strict';
import { it } from 'node:test';
import { checkStore, type PageResult, type Snapshot } from '../../src/engine/monitors/check-store.js';
import { monitorStore } from '../../src/engine/monitors/monitor-store.js';
import type { NormalizedMonitor } from '../../src/spec/monitor.js';
import { forEachDatabase } from '../helpers/postgres.js';

const URLS = Array.from({ length: 650 }, (_, n) => `https://example.com/page/${n}`);
const definition = {
  name: 'Many',
  schedule: { cron: '0 * * * *', timezone: 'UTC' },
  goal: null,
  judgeEnabled: false,
  targets: [{ id: 't1', type: 'scrape', urls: URLS }],
  retentionDays: 30,
} as unknown as NormalizedMonitor;
const summary = (pages: number) => ({ changed: 0, error: 0, new: pages, removed: 0, same: 0, totalPages: pages });

forEachDatabase('check store', ({ open }) => {
  it('writes a large check in batches and reads back the newest snapshot of each page at once', { timeout: 60_000 }, async () => {
    const db = await open();
    try {
      const monitor = await monitorStore(db).insert('local', definition, new Date('2026-11-21T12:00:00Z'));
      const checks = checkStore(db);
      const run = async (at: string, tag: string, urls: readonly string[]) => {
        const check = await checks.start(monitor, 'manual', new Date(at));
        const snapshots: Snapshot[] = urls.map((url, n) => ({
          targetId: 't1',
          url,
          scrapeId: `${tag}-${n}`,
          markdown: `${tag} ${url}`,
          fingerprint: `f-${tag}-${n}`,
          contentHash: `h-${tag}-${n}`,
          ...(n % 100 === 7 && { gone: true }),
        }));
        const pages: PageResult[] = urls.map((url, n) => ({
          url,
          targetId: 't1',
          status: 'new',
          statusCode: 200,
          previousScrapeId: null,
          currentScrapeId: `${tag}-${n}`,
          diff: null,
          judgment: null,
          error: null,
        }));
        return checks.finish(
          monitor,
          check.id,
          { status: 'completed', pages, snapshots, fingerprints: [], summary: summary(urls.length), error: null },
          new Date(at),
        );
      };
      const first = await run('2026-11-21T12:00:00Z', 'a', URLS);
      // A later check that saw only some pages again, twice in the same millisecond: the one written last is the newest.
      await run('2026-11-21T13:00:00Z', 'b', URLS.slice(0, 300));
      await run('2026-11-21T13:00:00Z', 'c', URLS.slice(0, 10));

      const pages = await checks.pages(first.id);
      assert.equal(pages.length, URLS.length);
      assert.deepEqual(
        pages.map((page) => page.url),
        URLS,
        'results keep their order across batches',
      );

      const asked = [...URLS, 'https://example.com/never-seen', URLS[0]!];
      const last = await checks.lastSnapshots(monitor.id, 't1', asked);
      assert.equal(last.size, URLS.length);
      assert.equal(last.has('https://example.com/never-seen'), false);
      for (const url of [URLS[0]!, URLS[9]!, URLS[10]!, URLS[107]!, URLS[299]!, URLS[300]!, URLS[649]!]) {
        assert.deepEqual(last.get(url), await checks.lastSnapshot(monitor.id, 't1', url), url);
      }
      assert.equal(last.get(URLS[5]!)?.scrapeId, 'c-5');
      assert.equal(last.get(URLS[200]!)?.scrapeId, 'b-200');
      assert.deepEqual(last.get(URLS[507]!), { scrapeId: 'a-507', fingerprint: 'f-a-507', contentHash: 'h-a-507', gone: true });
      assert.equal((await checks.lastSnapshots(monitor.id, 'other-target', URLS)).size, 0);
      assert.equal(await checks.snapshotMarkdown('a-649'), `a ${URLS[649]}`);
    } finally {
      await db.close();
    }
  });
});

forEachDatabase('check store, diffs written before', ({ open }) => {
  it('reads a stored unified diff without the rule of = that diffs once began with', async () => {
    const db = await open();
    try {
      const monitor = await monitorStore(db).insert(
        'local',
        { ...definition, targets: [{ id: 't1', type: 'scrape', urls: [URLS[0]] }] } as unknown as NormalizedMonitor,
        new Date('2026-11-21T12:00:00Z'),
      );
      const checks = checkStore(db);
      const check = await checks.start(monitor, 'manual', new Date('2026-11-21T12:00:00Z'));
      const text = '--- previous.md\n+++ current.md\n@@ -1,1 +1,1 @@\n-a\n+b\n';
      const diff = { text: `${'='.repeat(67)}\n${text}`, json: { files: [] } };
      const page: PageResult = {
        url: URLS[0]!,
        targetId: 't1',
        status: 'changed',
        statusCode: 200,
        previousScrapeId: 'p',
        currentScrapeId: 'c',
        diff,
        judgment: null,
        error: null,
      };
      await checks.finish(
        monitor,
        check.id,
        { status: 'completed', pages: [page], snapshots: [], fingerprints: [], summary: { ...summary(1), new: 0, changed: 1 }, error: null },
        new Date('2026-11-21T12:00:00Z'),
      );
      const [read] = await checks.pages(check.id);
      assert.deepEqual(read?.diff, { text, json: { files: [] } });
    } finally {
      await db.close();
    }
  });
});
