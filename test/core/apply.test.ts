/**
 * Carrying out an apply plan while another process changes the same monitors: each such monitor
 * is planned again and ends as the files define it; a second change under the apply is a
 * conflict. Two backends on one engine database stand for the two processes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { localBackend } from '../../src/backend/local/local-backend.js';
import { executePlan, loadDefinitions, makePlan } from '../../src/core/apply/apply.js';
import type { PlanEntry } from '../../src/core/apply/plan.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import type { NormalizedMonitor } from '../../src/spec/monitor.js';

const monitorYaml = (name: string, cron = '0 * * * *') =>
  `name: ${name}\nschedule: {cron: "${cron}"}\ntargets: [{type: scrape, urls: ["https://example.com/${name}"]}]\n`;

async function definitions(files: Record<string, string>): Promise<NormalizedMonitor[]> {
  return loadDefinitions([writeFiles(files)], { readStdinBytes: async () => new Uint8Array(), env: {} });
}

function twoProcesses() {
  const env = { WEBWATCH_HOME: tempDir() };
  const backend = () => localBackend({ version: 'test', env, now: () => new Date('2026-11-21T12:00:00Z') });
  return { ours: backend(), theirs: backend() };
}

const outline = (entry: PlanEntry) => ({ action: entry.action, name: entry.name, meanwhile: entry.meanwhile });

describe('executePlan beside another process', () => {
  it('leaves a monitor another process created as the files say, and updates one it created otherwise', async () => {
    const { ours, theirs } = twoProcesses();
    const desired = await definitions({ 'a.yaml': monitorYaml('A'), 'b.yaml': monitorYaml('B'), 'c.yaml': monitorYaml('C') });
    const plan = await makePlan(ours, desired, false);
    assert.deepEqual(
      plan.map((entry) => entry.action),
      ['create', 'create', 'create'],
    );
    const [a, b] = await definitions({ 'a.yaml': monitorYaml('A'), 'b.yaml': monitorYaml('B', '*/30 * * * *') });
    await theirs.monitors.create(a!);
    await theirs.monitors.create(b!);

    const reported: PlanEntry[] = [];
    const done = await executePlan(ours, plan, { onProgress: (entry) => reported.push(entry) });
    assert.deepEqual(done.map(outline), [
      { action: 'unchanged', name: 'A', meanwhile: 'created' },
      { action: 'update', name: 'B', meanwhile: 'created' },
      { action: 'create', name: 'C', meanwhile: undefined },
    ]);
    assert.deepEqual(done[1]!.changes, [{ path: 'schedule.cron', from: '*/30 * * * *', to: '0 * * * *' }]);
    assert.deepEqual(reported, done, 'each entry is reported as it is applied');
    const monitors = await theirs.monitors.list();
    assert.deepEqual(
      monitors.map((m) => `${m.name} ${m.schedule.cron}`),
      ['A 0 * * * *', 'B 0 * * * *', 'C 0 * * * *'],
    );
    assert.equal(done[0]!.id, monitors[0]!.id);
    await ours.close();
    await theirs.close();
  });

  it('creates again a monitor deleted under an update, and takes a deletion done meanwhile as done', async () => {
    const { ours, theirs } = twoProcesses();
    for (const definition of await definitions({ 'a.yaml': monitorYaml('A'), 'old.yaml': monitorYaml('Old') })) await ours.monitors.create(definition);
    const plan = await makePlan(ours, await definitions({ 'a.yaml': monitorYaml('A', '*/15 * * * *') }), true);
    assert.deepEqual(
      plan.map((entry) => `${entry.action} ${entry.name}`),
      ['update A', 'delete Old'],
    );
    await theirs.monitors.delete((await theirs.monitors.get('A')).id);
    await theirs.monitors.delete((await theirs.monitors.get('Old')).id);

    const done = await executePlan(ours, plan);
    assert.deepEqual(done.map(outline), [
      { action: 'create', name: 'A', meanwhile: 'changed' },
      { action: 'unchanged', name: 'Old', meanwhile: 'changed' },
    ]);
    assert.deepEqual(
      (await theirs.monitors.list()).map((m) => `${m.name} ${m.schedule.cron}`),
      ['A */15 * * * *'],
    );
    await ours.close();
    await theirs.close();
  });
});
