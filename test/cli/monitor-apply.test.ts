/** The monitor life cycle on the local engine: apply, diff, create, list, get, pause, resume, delete. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run, type FakeIoOptions } from '../helpers/io.js';
import { readBody, startServer } from '../helpers/server.js';

const PRICING = `name: Pricing
schedule: {cron: "0 * * * *"}
targets:
  - type: scrape
    urls: [https://example.com/a, https://example.com/b]
webhook:
  url: https://hooks.example.com/x
  headers:
    Authorization: Bearer \${TOKEN}
`;
const NEWS = `name: News
schedule: {text: daily at 9 am, timezone: Europe/Paris}
goal: product launches
targets: [{type: search, queries: [webwatch launch]}]
`;

function workspace(files: Record<string, string> = { 'pricing.yaml': PRICING, 'news.yaml': NEWS }) {
  const dir = writeFiles(files);
  const env = { WEBWATCH_HOME: tempDir(), TOKEN: 'secret-token-1' };
  const ww = (args: string[], options: FakeIoOptions = {}) => run(args, { now: new Date('2026-11-21T12:00:00Z'), ...options, env: { ...env, ...options.env } });
  return { dir, env, ww };
}

describe('monitor apply', () => {
  it('creates, then is a no-op on the same files; --detailed-exitcode says 8 only when something changes', async () => {
    const { dir, ww } = workspace();
    const first = await ww(['monitor', 'apply', '-f', dir, '--json', '--detailed-exitcode']);
    assert.equal(first.code, 8);
    const plan = JSON.parse(first.stdout);
    assert.deepEqual(Object.keys(plan), ['plan', 'applied', 'summary']);
    assert.equal(plan.applied, true);
    assert.deepEqual(plan.summary, { created: 2, updated: 0, unchanged: 0, deleted: 0 });
    assert.ok(plan.plan.every((entry: { id: string }) => /^[0-9a-f-]{36}$/.test(entry.id)));
    const second = await ww(['monitor', 'apply', '-f', dir, '--json', '--detailed-exitcode']);
    assert.equal(second.code, 0);
    assert.deepEqual(JSON.parse(second.stdout).summary, { created: 0, updated: 0, unchanged: 2, deleted: 0 });
  });

  it('takes the files as plain arguments or with -f, mixed; none at all is a usage error showing both ways', async () => {
    const { dir, ww } = workspace({ 'pricing.yaml': PRICING });
    const other = writeFiles({ 'news.yaml': NEWS });
    const plain = await ww(['monitor', 'diff', dir, '--json']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.deepEqual(
      JSON.parse(plain.stdout).plan.map((entry: { name: string }) => entry.name),
      ['Pricing'],
    );
    const mixed = await ww(['monitor', 'apply', join(dir, 'pricing.yaml'), '-f', other, '--json']);
    assert.equal(mixed.code, 0, mixed.stderr);
    assert.deepEqual(JSON.parse(mixed.stdout).summary, { created: 2, updated: 0, unchanged: 0, deleted: 0 });
    for (const args of [
      ['monitor', 'apply'],
      ['monitor', 'diff', '--json'],
      ['monitor', 'create'],
      ['monitor', 'validate'],
    ]) {
      const none = await ww(args);
      assert.equal(none.code, 2, args.join(' '));
      assert.match(none.stderr + none.stdout, /name the definition files: .* \(e\.g\. monitors\/ or -f monitors\/\)/, args.join(' '));
    }
    const validated = await ww(['monitor', 'validate', '-f', dir, '-f', other, '--json']);
    assert.equal(JSON.parse(validated.stdout).files.length, 2);
  });

  it('updates with field-level changes and keeps target ids; secrets stay redacted', async () => {
    const { dir, ww } = workspace();
    await ww(['monitor', 'apply', '-f', dir]);
    const before = JSON.parse((await ww(['monitor', 'get', 'Pricing', '--json'])).stdout);
    writeFileSync(join(dir, 'pricing.yaml'), PRICING.replace('0 * * * *', '*/30 * * * *').replace('https://example.com/b', 'https://example.com/c'));
    const result = await ww(['monitor', 'apply', '-f', dir, '--json'], { env: { TOKEN: 'rotated-token-2' } });
    const entry = JSON.parse(result.stdout).plan.find((e: { name: string }) => e.name === 'Pricing');
    assert.equal(entry.action, 'update');
    assert.deepEqual(entry.changes, [
      { path: 'schedule.cron', from: '0 * * * *', to: '*/30 * * * *' },
      { path: 'targets[0].urls[1]', from: 'https://example.com/b', to: 'https://example.com/c' },
      { path: 'webhook.headers.Authorization', from: '<redacted>', to: '<redacted>' },
    ]);
    assert.ok(!result.stdout.includes('token'));
    const after = JSON.parse((await ww(['monitor', 'get', 'Pricing', '--json'])).stdout);
    assert.equal(after.targets[0].id, before.targets[0].id);
    assert.equal(after.schedule.cron, '*/30 * * * *');
  });

  it('a webhook or target that appears in the plan whole keeps its header values out of it', async () => {
    const { dir, ww } = workspace({ 'news.yaml': NEWS });
    await ww(['monitor', 'apply', '-f', dir]);
    const grown = `${NEWS}  - type: scrape
    urls: [https://example.com/members]
    scrapeOptions: {headers: {Cookie: "session=\${TOKEN}"}}
webhook: {url: https://hooks.example.com/x, headers: {Authorization: "Bearer \${TOKEN}"}}
`.replace('targets: [{type: search, queries: [webwatch launch]}]', 'targets:\n  - {type: search, queries: [webwatch launch]}');
    writeFileSync(join(dir, 'news.yaml'), grown);
    const text = await ww(['monitor', 'diff', '-f', dir]);
    const json = await ww(['monitor', 'diff', '-f', dir, '--json']);
    for (const output of [text.stdout, json.stdout]) {
      assert.ok(!output.includes('secret-token-1'), output);
      assert.match(output, /<redacted>/);
    }
    const changes = JSON.parse(json.stdout).plan[0].changes;
    assert.deepEqual(changes.find((c: { path: string }) => c.path === 'webhook').to.headers, { Authorization: '<redacted>' });
    assert.deepEqual(changes.find((c: { path: string }) => c.path === 'targets[1]').to.scrapeOptions.headers, { Cookie: '<redacted>' });
  });

  it('--dry-run and diff change nothing', async () => {
    const { dir, ww } = workspace();
    const dry = await ww(['monitor', 'apply', '-f', dir, '--dry-run', '--json']);
    assert.equal(JSON.parse(dry.stdout).applied, false);
    assert.equal(JSON.parse((await ww(['monitor', 'list', '--json'])).stdout).length, 0);
    const diff = await ww(['monitor', 'diff', '-f', dir, '--detailed-exitcode']);
    assert.equal(diff.code, 8);
    assert.match(diff.stdout, /^\+ create +Pricing$/m);
    assert.match(diff.stderr, /Plan: 2 to create, 0 to update, 0 unchanged, 0 to delete\./);
  });

  it('--prune deletes what the files no longer have, only when confirmed', async () => {
    const { dir, ww } = workspace();
    await ww(['monitor', 'apply', '-f', dir]);
    const only = writeFiles({ 'pricing.yaml': PRICING });
    const refused = await ww(['monitor', 'apply', '-f', only, '--prune']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--prune would delete News/);
    const declined = await ww(['monitor', 'apply', '-f', only, '--prune'], { tty: true, answers: ['n'], env: { NO_COLOR: '1' } });
    assert.equal(declined.code, 2);
    assert.equal(JSON.parse((await ww(['monitor', 'list', '--json'])).stdout).length, 2);
    const pruned = await ww(['monitor', 'apply', '-f', only, '--prune', '--yes', '--json']);
    assert.deepEqual(JSON.parse(pruned.stdout).summary, { created: 0, updated: 0, unchanged: 1, deleted: 1 });
    assert.deepEqual(
      JSON.parse((await ww(['monitor', 'list', '--json'])).stdout).map((m: { name: string }) => m.name),
      ['Pricing'],
    );
    const all = JSON.parse((await ww(['monitor', 'list', '--all', '--json'])).stdout);
    assert.deepEqual(all.map((m: { name: string; status: string }) => `${m.name}:${m.status}`).sort(), ['News:deleted', 'Pricing:active']);
  });

  it('refuses invalid files with located errors, exit 2, and changes nothing', async () => {
    const { ww } = workspace();
    const dir = writeFiles({
      'bad.yaml': 'name: Bad\nschedule: {cron: "*/2 * * * *"}\ntargets: [{type: scrape, urls: [https://x.example]}]\n',
      'ok.yaml': NEWS,
    });
    const result = await ww(['monitor', 'apply', '-f', dir]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /bad\.yaml:2:18 {2}schedule\.cron {2}runs more often than every 5 minutes/);
    assert.equal(JSON.parse((await ww(['monitor', 'list', '--json'])).stdout).length, 0);
  });
});

describe('monitor apply progress and conflicts', () => {
  it('says on stderr what it has done, monitor by monitor; -q keeps it quiet and stdout is the same', async () => {
    const { dir, ww } = workspace();
    const first = await ww(['monitor', 'apply', '-f', dir]);
    assert.equal(first.code, 0);
    assert.match(first.stderr, /^\+ created News {2}\([0-9a-f-]{36}\)\n\+ created Pricing {2}\([0-9a-f-]{36}\)\nApplied: 2 created/);
    assert.doesNotMatch(first.stdout, /created/);
    writeFileSync(join(dir, 'pricing.yaml'), PRICING.replace('0 * * * *', '*/30 * * * *'));
    const quiet = await ww(['monitor', 'apply', '-f', dir, '-q', '--json']);
    assert.equal(quiet.stderr, '');
    assert.deepEqual(JSON.parse(quiet.stdout).summary, { created: 0, updated: 1, unchanged: 1, deleted: 0 });
    writeFileSync(join(dir, 'pricing.yaml'), PRICING);
    const updated = await ww(['monitor', 'apply', '-f', dir, '--json']);
    assert.match(updated.stderr, /^~ updated Pricing {2}\([0-9a-f-]{36}\)$/m);
    assert.doesNotMatch(updated.stderr, /News/, 'unchanged monitors are not reported');
    assert.equal(JSON.parse(updated.stdout).summary.updated, 1);
  });

  it('on a terminal says each monitor once, with its changes under it, as it is applied', async () => {
    const { dir, ww } = workspace();
    const first = await ww(['monitor', 'apply', '-f', dir], { tty: true, env: { NO_COLOR: '1' } });
    assert.equal(first.code, 0);
    const both = first.stderr + first.stdout;
    assert.equal(both.match(/Pricing/g)?.length, 1, both);
    assert.equal(both.match(/News/g)?.length, 1, both);
    assert.match(first.stderr, /\n\+ created News {2}\([0-9a-f-]{36}\)\n\+ created Pricing {2}\([0-9a-f-]{36}\)\n/);
    writeFileSync(join(dir, 'pricing.yaml'), PRICING.replace('0 * * * *', '*/30 * * * *'));
    const updated = await ww(['monitor', 'apply', '-f', dir], { tty: true, env: { NO_COLOR: '1' } });
    assert.match(updated.stderr, /\n~ updated Pricing {2}\([0-9a-f-]{36}\)\n {4}schedule\.cron: "0 \* \* \* \*" -> "\*\/30 \* \* \* \*"\n/);
    assert.equal((updated.stderr + updated.stdout).match(/Pricing/g)?.length, 1);
    assert.match(updated.stdout, /^= unchanged News/m, 'what was not applied is still in the plan');
    // Piped, stdout keeps the whole plan for scripts.
    const piped = await ww(['monitor', 'apply', '-f', dir, '--dry-run']);
    assert.match(piped.stdout, /^= unchanged Pricing/m);
  });

  it('stops with a conflict (exit 5) naming the monitor when it changes under the apply again', async (t) => {
    // An API on which another process keeps taking the name Pricing.
    const api = await startServer({
      '/v2/monitor': async (request, response) => {
        const reply = (status: number, body: unknown) => void response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (request.method === 'GET') return reply(200, { success: true, data: [] });
        const body = JSON.parse(await readBody(request)) as { name: string };
        if (body.name === 'Pricing')
          return reply(409, { success: false, error: 'Conflict', details: { name: 'Pricing', reason: 'a monitor with this name exists' } });
        reply(200, { success: true, data: { ...body, id: '0b6f5a3e-1a1b-4c1d-9e1f-2a3b4c5d6e7f', status: 'active' } });
      },
    });
    const { dir, ww } = workspace();
    const env = { WEBWATCH_API_URL: api.url, WEBWATCH_API_KEY: 'ww_test' };
    t.after(() => api.close());
    const human = await ww(['monitor', 'apply', '-f', dir], { env });
    assert.equal(human.code, 5);
    assert.equal(
      human.stderr,
      [
        '+ created News  (0b6f5a3e-1a1b-4c1d-9e1f-2a3b4c5d6e7f)',
        'error: another process created monitor "Pricing" while this apply ran',
        'hint: run the apply again: it plans from the monitors as they are then',
        '',
      ].join('\n'),
    );
    const json = await ww(['monitor', 'apply', '-f', dir, '--json'], { env });
    assert.equal(json.code, 5);
    assert.deepEqual(JSON.parse(json.stdout), {
      success: false,
      error: 'another process created monitor "Pricing" while this apply ran',
      code: 'APPLY_CONFLICT',
      details: { name: 'Pricing', reason: { name: 'Pricing', reason: 'a monitor with this name exists' } },
      hint: 'run the apply again: it plans from the monitors as they are then',
    });
  });
});

describe('monitor list, get, pause, resume, delete, create', () => {
  it('shows the resource of spec 2.6, with next run and estimated credits', async () => {
    const { dir, ww } = workspace();
    await ww(['monitor', 'apply', '-f', dir]);
    const pricing = JSON.parse((await ww(['monitor', 'get', 'Pricing', '--json'])).stdout);
    for (const key of [
      'id',
      'name',
      'status',
      'goal',
      'judgeEnabled',
      'schedule',
      'targets',
      'retentionDays',
      'createdAt',
      'updatedAt',
      'lastRunAt',
      'nextRunAt',
      'currentCheckId',
      'lastCheckSummary',
      'estimatedCreditsPerMonth',
    ]) {
      assert.ok(key in pricing, key);
    }
    // Typed MonitorSummary in §2.6, not nullable: zeros before the first check.
    assert.deepEqual(pricing.lastCheckSummary, { changed: 0, error: 0, new: 0, removed: 0, same: 0, totalPages: 0 });
    assert.equal(pricing.lastRunAt, null);
    assert.equal(pricing.nextRunAt, '2026-11-21T13:00:00.000Z');
    assert.equal(pricing.estimatedCreditsPerMonth, 720 * 2); // hourly for 30 days, two pages
    assert.equal(pricing.webhook.headers.Authorization, '<redacted>');
    const byId = JSON.parse((await ww(['monitor', 'get', pricing.id, '--json'])).stdout);
    assert.equal(byId.name, 'Pricing');
    const news = JSON.parse((await ww(['monitor', 'get', 'News', '--json'])).stdout);
    assert.equal(news.nextRunAt, '2026-11-22T08:00:00.000Z'); // 9:00 in Paris
    assert.equal(news.judgeEnabled, true);
  });

  it('pause and resume move nextRunAt; delete asks, then later changes are 409', async () => {
    const { dir, ww } = workspace();
    await ww(['monitor', 'apply', '-f', dir]);
    const paused = JSON.parse((await ww(['monitor', 'pause', 'Pricing', '--json'])).stdout);
    assert.deepEqual([paused.status, paused.nextRunAt], ['paused', null]);
    const resumed = JSON.parse((await ww(['monitor', 'resume', 'Pricing', '--json'])).stdout);
    assert.deepEqual([resumed.status, resumed.nextRunAt], ['active', '2026-11-21T13:00:00.000Z']);
    assert.equal((await ww(['monitor', 'delete', 'Pricing'])).code, 2); // no terminal, no --yes
    const deleted = JSON.parse((await ww(['monitor', 'delete', 'Pricing', '--yes', '--json'])).stdout);
    assert.equal(deleted.status, 'deleted');
    const conflict = await ww(['monitor', 'pause', paused.id, '--json']);
    assert.equal(conflict.code, 5);
    assert.equal(JSON.parse(conflict.stdout).error, 'Conflict');
  });

  it('get of an unknown monitor is 404 (exit 4); create of an existing name is 409 (exit 5)', async () => {
    const { dir, ww } = workspace();
    const missing = await ww(['monitor', 'get', 'Nope', '--json']);
    assert.equal(missing.code, 4);
    assert.equal(JSON.parse(missing.stdout).error, 'Not Found');
    assert.equal((await ww(['monitor', 'create', '-f', join(dir, 'news.yaml')])).code, 0);
    assert.equal((await ww(['monitor', 'create', '-f', join(dir, 'news.yaml')])).code, 5);
  });

  it('lists as a table on a terminal and tab-separated rows when piped', async () => {
    const { dir, ww } = workspace();
    await ww(['monitor', 'apply', '-f', dir]);
    const piped = await ww(['monitor', 'list']);
    const rows = piped.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t'));
    assert.deepEqual(
      rows.map((row) => [row[1], row[2], row[3]]),
      [
        ['News', 'active', '0 9 * * * Europe/Paris'],
        ['Pricing', 'active', '0 * * * * UTC'],
      ],
    );
    const tty = await ww(['monitor', 'list'], { tty: true, env: { NO_COLOR: '1' } });
    assert.match(tty.stdout, /^id {8}name +status +schedule +next run +last check\n/);
  });
});
