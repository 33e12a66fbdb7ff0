import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { monitorStore } from '../../src/engine/monitors/monitor-store.js';
import { openDatabase } from '../../src/engine/store/database.js';
import { WebwatchError } from '../../src/errors/webwatch-error.js';
import type { NormalizedMonitor } from '../../src/spec/monitor.js';
import { tempDir } from '../helpers/files.js';

const definition = (name: string) =>
  ({ name, schedule: { cron: '0 * * * *', timezone: 'UTC' }, goal: null, judgeEnabled: false, targets: [{ type: 'scrape', urls: ['https://example.com/'] }], retentionDays: 30 }) as unknown as NormalizedMonitor;

const conflict = (error: unknown) => {
  assert.ok(error instanceof WebwatchError, String(error));
  assert.equal(error.status, 409);
  assert.equal(error.message, 'Conflict');
  assert.deepEqual(error.details, { name: 'Pricing', reason: 'a monitor with this name exists' });
  return true;
};

describe('monitor store', () => {
  it('refuses a name the team already uses with 409 Conflict, as the API does, on insert and on update', () => {
    const path = join(tempDir(), 'webwatch.db');
    // Two connections, as two processes: each may have looked the name up before the other wrote.
    const [db, other] = [openDatabase(path), openDatabase(path)];
    const now = new Date('2026-11-21T12:00:00Z');
    monitorStore(other).insert('local', definition('Pricing'), now);
    assert.throws(() => monitorStore(db).insert('local', definition('Pricing'), now), conflict);
    const news = monitorStore(db).insert('local', definition('News'), now);
    assert.throws(() => monitorStore(db).update('local', news.id, definition('Pricing'), now), conflict);
    // Another team may use the name.
    assert.equal(monitorStore(db).insert('acme', definition('Pricing'), now).definition.name, 'Pricing');
    db.close();
    other.close();
  });
});
