/**
 * The key, usage and outbox stores on both databases: the same calls give the same answers on
 * the embedded SQLite file and on PostgreSQL, scoped to a team, and an outbox claim is a lease
 * that another worker takes over only once it has run out.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { keyStore } from '../../src/engine/keys/key-store.js';
import { checkStore } from '../../src/engine/monitors/check-store.js';
import { monitorStore } from '../../src/engine/monitors/monitor-store.js';
import { outboxStore, type NewDelivery } from '../../src/engine/notify/outbox.js';
import type { Db } from '../../src/engine/store/database.js';
import { WORKER_ID } from '../../src/engine/store/leases.js';
import { usageStore } from '../../src/engine/usage/usage-store.js';
import type { NormalizedMonitor } from '../../src/spec/monitor.js';
import { forEachDatabase } from '../helpers/postgres.js';
import { sqlRows } from '../helpers/sql.js';

const now = new Date('2026-03-10T12:00:00Z');

async function checkOf(db: Db, team: string) {
  const definition = {
    name: 'prices',
    goal: null,
    judgeEnabled: false,
    retentionDays: 30,
    schedule: { cron: '0 * * * *', timezone: 'UTC' },
    targets: [{ type: 'scrape', urls: ['https://example.com/'] }],
  } as unknown as NormalizedMonitor;
  const monitor = await monitorStore(db).insert(team, definition, now);
  return { monitor, check: await checkStore(db).start(monitor, 'manual', now) };
}

const delivery = (id: string, team: string, monitorId: string, checkId: string): NewDelivery => ({
  id,
  team,
  privateTargetsAllowed: false,
  monitorId,
  checkId,
  channel: 'webhook',
  event: 'monitor.check.completed',
  target: 'https://hooks.example/in',
  headers: { 'x-secret': 's' },
  body: `{"webhookId":"${id}"}`,
  nextAttemptAt: now.toISOString(),
});

forEachDatabase('key store', ({ open }) => {
  it('identifies a key by its hash, per team, until revoked', async () => {
    const db = await open();
    const keys = keyStore(db);
    const acme = await keys.create('acme', now);
    const globex = await keys.create('globex', new Date(now.getTime() + 1000));
    assert.deepEqual(await keys.identify(acme.key), { id: acme.id, team: 'acme', grantsLocalTeam: false });
    assert.equal((await keys.identify(globex.key))?.team, 'globex');
    assert.equal(await keys.identify('ww_unknown'), undefined);
    const stored = await sqlRows<{ key_hash: string }>(db, 'SELECT key_hash FROM api_keys');
    assert.ok(
      stored.every((row) => row.key_hash !== acme.key && row.key_hash !== globex.key),
      'only hashes are stored',
    );
    assert.equal((await keys.revoke(acme.id, now)).revokedAt, now.toISOString());
    assert.equal(await keys.identify(acme.key), undefined);
    assert.deepEqual(
      (await keys.list()).map((key) => [key.team, key.revokedAt !== null]),
      [
        ['acme', true],
        ['globex', false],
      ],
    );
    await assert.rejects(keys.revoke('no-such-id', now), /Not Found/);
    await db.close();
  });
});

forEachDatabase('usage store', ({ open }) => {
  it('sums credits and tokens per team, per month and per key', async () => {
    const db = await open();
    const usage = usageStore(db);
    await usage.record('acme', { kind: 'scrape', credits: 1 }, new Date('2026-02-27T00:00:00Z'));
    await usage.record('acme', { kind: 'check', credits: 5, tokens: 1200, keyId: 'k1' }, now);
    await usage.record('acme', { kind: 'scrape', credits: 2 }, now);
    await usage.record('globex', { kind: 'scrape', credits: 100 }, now);
    await usage.record('acme', { kind: 'scrape', credits: 0 }, now);
    assert.deepEqual(await usage.totals('acme', new Date('2026-03-01T00:00:00Z'), new Date('2026-04-01T00:00:00Z')), { credits: 7, tokens: 1200 });
    assert.deepEqual(await usage.totals('nobody', new Date(0), now), { credits: 0, tokens: 0 });
    assert.deepEqual(
      (await usage.byMonth('acme', false)).map((period) => [period.startDate.slice(0, 7), period.creditsUsed, period.tokensUsed]),
      [
        ['2026-03', 7, 1200],
        ['2026-02', 1, 0],
      ],
    );
    const byKey = await usage.byMonth('acme', true);
    assert.deepEqual(
      byKey
        .filter((period) => period.startDate.startsWith('2026-03'))
        .map((period) => [period.keyId, period.creditsUsed])
        .sort(),
      [
        ['k1', 5],
        [null, 2],
      ].sort(),
    );
    assert.equal((await sqlRows(db, 'SELECT 1 FROM usage')).length, 4, 'a record of nothing is not written');
    await db.close();
  });
});

forEachDatabase('outbox', ({ open }) => {
  it('queues deliveries, claims each once under a lease, and records attempts', async () => {
    const db = await open();
    const outbox = outboxStore(db);
    const { monitor, check } = await checkOf(db, 'acme');
    await outbox.enqueue([delivery('d1', 'acme', monitor.id, check.id), delivery('d2', 'acme', monitor.id, check.id)], now);
    const claimed = await outbox.claimDue(now);
    assert.deepEqual(
      claimed.map((entry) => [entry.id, entry.headers['x-secret'], entry.status]),
      [
        ['d1', 's', 'pending'],
        ['d2', 's', 'pending'],
      ],
    );
    const held = await sqlRows<{ lease_owner: string; lease_expires_at: string }>(db, 'SELECT lease_owner, lease_expires_at FROM outbox');
    assert.ok(held.every((row) => row.lease_owner === WORKER_ID && row.lease_expires_at > now.toISOString()));
    await outbox.delivered('d1', now);
    await outbox.attemptFailed('d2', 'HTTP 500', new Date(now.getTime() + 60_000));
    assert.deepEqual(
      (await outbox.claimDue(now)).map((entry) => entry.id),
      [],
      'd2 waits for its retry',
    );
    assert.equal(await outbox.nextAttemptAt(), new Date(now.getTime() + 60_000).toISOString());
    await outbox.attemptFailed('d2', 'HTTP 500 again', undefined);
    assert.deepEqual(await outbox.notificationStatus(check.id), { webhook: { pending: 0, delivered: 1, failed: 1, lastError: 'HTTP 500 again', attempts: 2 } });
    await db.close();
  });

  it("leaves another worker's claim alone until its lease runs out, then takes it over", async () => {
    const db = await open();
    const outbox = outboxStore(db);
    const { monitor, check } = await checkOf(db, 'acme');
    await outbox.enqueue([delivery('live', 'acme', monitor.id, check.id), delivery('lapsed', 'acme', monitor.id, check.id)], now);
    const later = new Date(now.getTime() + 10_000).toISOString();
    const earlier = new Date(now.getTime() - 10_000).toISOString();
    // Another machine's workers: one renewing its lease, one that stopped.
    await sqlRows(db, 'UPDATE outbox SET lease_owner = ?, lease_expires_at = ? WHERE id = ?', 'elsewhere:1:aaaa', later, 'live');
    await sqlRows(db, 'UPDATE outbox SET lease_owner = ?, lease_expires_at = ? WHERE id = ?', 'elsewhere:2:bbbb', earlier, 'lapsed');
    assert.deepEqual(
      (await outbox.claimDue(now)).map((entry) => entry.id),
      ['lapsed'],
    );
    await outbox.release(['lapsed', 'live']);
    const rows = await sqlRows<{ id: string; lease_owner: string | null }>(db, 'SELECT id, lease_owner FROM outbox ORDER BY id');
    assert.deepEqual(
      rows.map((row) => [row.id, row.lease_owner]),
      [
        ['lapsed', null],
        ['live', 'elsewhere:1:aaaa'],
      ],
      'release gives back only its own claims',
    );
    await db.close();
  });
});

forEachDatabase('check store: extracted JSON, credits and kept screenshots', ({ open }) => {
  it("keeps a snapshot's JSON, a page's JSON and screenshot, and the check's credits; pruning hands back the screenshots", async () => {
    const db = await open();
    const checks = checkStore(db);
    const { monitor, check } = await checkOf(db, 'acme');
    const summary = { changed: 0, error: 0, new: 1, removed: 0, same: 0, totalPages: 1 };
    const page = {
      url: 'https://example.com/',
      targetId: 't',
      status: 'new' as const,
      statusCode: 200,
      previousScrapeId: null,
      currentScrapeId: 's1',
      diff: null,
      judgment: null,
      error: null,
      snapshot: { json: { price: 10 } },
      screenshot: 'kept-1.png',
    };
    const snapshot = {
      targetId: 't',
      url: 'https://example.com/',
      scrapeId: 's1',
      markdown: 'Pro $10',
      fingerprint: null,
      contentHash: 'h',
      json: { price: 10 },
    };
    const finished = await checks.finish(
      monitor,
      check.id,
      { status: 'completed', pages: [page], snapshots: [snapshot], fingerprints: [], credits: 5, summary, error: null },
      now,
    );
    assert.equal(finished.actualCredits, 5, 'the credits the check wrote, not 1 a page');
    assert.deepEqual(await checks.snapshotJson('s1'), { price: 10 });
    assert.equal(await checks.snapshotJson('unknown'), null);
    const [stored] = await checks.pages(check.id);
    assert.deepEqual([stored!.snapshot, stored!.screenshot], [{ json: { price: 10 } }, 'kept-1.png']);

    // A check finished without credits (as before they were kept) counts 1 a page.
    const second = await checks.start(monitor, 'manual', new Date(now.getTime() + 1000));
    const plain = await checks.finish(
      monitor,
      second.id,
      {
        status: 'completed',
        pages: [{ ...page, currentScrapeId: 's2', snapshot: null, screenshot: undefined }],
        snapshots: [],
        fingerprints: [],
        summary,
        error: null,
      },
      new Date(now.getTime() + 1000),
    );
    assert.equal(plain.actualCredits, 1);
    assert.deepEqual(
      Object.keys((await checks.pages(second.id))[0]!).filter((key) => key === 'snapshot' || key === 'screenshot'),
      [],
    );

    const later = new Date(now.getTime() + 31 * 24 * 60 * 60 * 1000);
    assert.deepEqual(await checks.prune(monitor.id, 30, later), ['kept-1.png']);
    assert.equal(await checks.get(monitor.id, check.id), undefined);
    await db.close();
  });
});
