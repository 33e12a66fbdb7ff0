import assert from 'node:assert/strict';
import { it } from 'node:test';
import { monitorStore } from '../../src/engine/monitors/monitor-store.js';
import { openDatabase } from '../../src/engine/store/database.js';
import { WebwatchError } from '../../src/errors/webwatch-error.js';
import type { NormalizedMonitor } from '../../src/spec/monitor.js';
import { forEachDatabase } from '../helpers/postgres.js';
import { sqlRow } from '../helpers/sql.js';

const definition = (name: string) =>
  ({
    name,
    schedule: { cron: '0 * * * *', timezone: 'UTC' },
    goal: null,
    judgeEnabled: false,
    targets: [{ type: 'scrape', urls: ['https://example.com/'] }],
    retentionDays: 30,
  }) as unknown as NormalizedMonitor;

const conflict = (error: unknown) => {
  assert.ok(error instanceof WebwatchError, String(error));
  assert.equal(error.status, 409);
  assert.equal(error.message, 'Conflict');
  assert.deepEqual(error.details, { name: 'Pricing', reason: 'a monitor with this name exists' });
  return true;
};

forEachDatabase('monitor store', ({ location }) => {
  it('refuses a name the team already uses with 409 Conflict, as the API does, on insert and on update', async () => {
    const at = await location();
    // Two connections, as two processes: each may have looked the name up before the other wrote.
    const [db, other] = [await openDatabase(at), await openDatabase(at)];
    try {
      const now = new Date('2026-11-21T12:00:00Z');
      await monitorStore(other).insert('local', definition('Pricing'), now);
      await assert.rejects(monitorStore(db).insert('local', definition('Pricing'), now), conflict);
      const news = await monitorStore(db).insert('local', definition('News'), now);
      await assert.rejects(monitorStore(db).update('local', news.id, definition('Pricing'), now), conflict);
      // Another team may use the name.
      assert.equal((await monitorStore(db).insert('acme', definition('Pricing'), now)).definition.name, 'Pricing');
      // A deleted monitor's name is free again; lists are per team and by name.
      const pricing = (await monitorStore(db).find('local', 'Pricing'))!;
      await monitorStore(db).setStatus('local', pricing.id, 'deleted', now);
      assert.equal((await monitorStore(other).insert('local', definition('Pricing'), now)).status, 'active');
      assert.deepEqual(
        (await monitorStore(db).list('local')).map((monitor) => monitor.definition.name),
        ['News', 'Pricing'],
      );
      assert.equal((await monitorStore(db).list('local', { includeDeleted: true })).length, 3);
      assert.equal((await monitorStore(db).find('local', pricing.id))?.status, 'deleted');
      assert.equal(await monitorStore(db).find('rival', pricing.id), undefined, 'another team does not see it');
    } finally {
      await db.close();
      await other.close();
    }
  });

  it('keeps the private-address rule a monitor was saved under, until a save under another rule; monitors written before allow them', async () => {
    const db = await openDatabase(await location());
    try {
      const now = new Date('2026-11-21T12:00:00Z');
      const store = monitorStore(db);
      const strict = await store.insert('local', definition('Written by a model'), now, { privateTargetsAllowed: false });
      assert.equal(strict.privateTargetsAllowed, false);
      assert.equal((await store.find('local', strict.id))?.privateTargetsAllowed, false);
      assert.equal((await store.list('local'))[0]?.privateTargetsAllowed, false);
      // Pausing and resuming are no save of the definition: the rule stays.
      await store.setStatus('local', strict.id, 'paused', now);
      assert.equal((await store.setStatus('local', strict.id, 'active', now)).privateTargetsAllowed, false);
      // A new definition takes the rule of the process that saves it.
      assert.equal(
        (await store.update('local', strict.id, definition('Written by a model'), now, { privateTargetsAllowed: true })).privateTargetsAllowed,
        true,
      );
      assert.equal(
        (await store.update('local', strict.id, definition('Written by a model'), now, { privateTargetsAllowed: false })).privateTargetsAllowed,
        false,
      );
      // The command line's rule when none is given; a row written without the column (before migration 23) allows them.
      assert.equal((await store.insert('local', definition('Mine'), now)).privateTargetsAllowed, true);
      await sqlRow(
        db,
        "INSERT INTO monitors (id, team, name, status, definition, created_at, updated_at) VALUES ('00000000-0000-4000-8000-000000000001', 'local', 'Old', 'active', ?, 't', 't')",
        JSON.stringify(definition('Old')),
      );
      assert.equal((await store.find('local', 'Old'))?.privateTargetsAllowed, true);
    } finally {
      await db.close();
    }
  });
});
