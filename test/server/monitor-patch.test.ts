/** A PATCH of a monitor names the field it refuses, whichever it is. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

describe('PATCH /v2/monitor/:id', () => {
  let served: ServingWebwatch;
  let key: string;
  let id: string;
  before(async () => {
    served = await serveWebwatch();
    key = (await served.keys.create('acme', new Date())).key;
    const created = await call(served, key, 'POST', '/monitor', {
      name: 'Patched',
      schedule: { cron: '0 * * * *' },
      targets: [{ type: 'scrape', urls: ['https://example.com/'] }],
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    id = created.body.data.id;
  });
  after(() => served.stop());

  for (const [field, patch, path] of [
    ['a bad cron', { schedule: { cron: 'every day' } }, 'schedule.cron'],
    ['a name of the wrong type', { name: 42 }, 'name'],
    ['an unknown status', { status: 'sleeping' }, 'status'],
  ] as const) {
    it(`names the field of ${field}, not a field it did not send`, async () => {
      const { status, body } = await call(served, key, 'PATCH', `/monitor/${id}`, patch);
      assert.equal(status, 400);
      assert.equal(body.success, false);
      const paths: string[] = body.details.map((d: { path: string }) => d.path);
      assert.ok(!paths.includes('name') || path === 'name', `no "name is required": ${JSON.stringify(body.details)}`);
      assert.ok(
        paths.some((p) => p === path || p.startsWith(`${path}.`) || p.startsWith(`${path}[`)),
        `${path} in ${JSON.stringify(body.details)}`,
      );
    });
  }

  it('applies a good field and keeps the rest', async () => {
    const { status, body } = await call(served, key, 'PATCH', `/monitor/${id}`, { goal: 'a new goal' });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.data.goal, 'a new goal');
    assert.equal(body.data.name, 'Patched');
  });
});
