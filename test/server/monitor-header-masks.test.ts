/**
 * Header values of monitors are secrets: serve answers them masked to every key of the team,
 * and a client that sends back what it read (an SDK's get-then-update, `monitor apply` against
 * serve) neither overwrites the stored values with the mask nor sees a change in them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { sqlRows } from '../helpers/sql.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const HOOK_SECRET = 'Bearer hook-secret-4711';
const COOKIE = 'session=cookie-secret-4712';

const monitorBody = (name: string) => ({
  name,
  schedule: { cron: '0 * * * *' },
  targets: [{ type: 'scrape', urls: ['https://example.com/account'], scrapeOptions: { headers: { Cookie: COOKIE } } }],
  webhook: { url: 'https://hooks.example.com/monitor', headers: { Authorization: HOOK_SECRET, 'X-Team': 'blue' }, metadata: { ticket: '42' } },
});

describe('header values of monitors, through serve', { timeout: 120_000 }, () => {
  let served: ServingWebwatch;
  let key: string;
  /** The definition as stored, read from the database itself. */
  const stored = async (id: string) =>
    JSON.parse((await sqlRows<{ definition: string }>(served.db, 'SELECT definition FROM monitors WHERE id = ?', id))[0]!.definition);
  before(async () => {
    served = await serveWebwatch();
    key = (await served.keys.create('acme', new Date())).key;
  });
  after(() => served.stop());

  it('are masked in every answer: create, list, get, update, delete', async () => {
    const created = await call(served, key, 'POST', '/monitor', monitorBody('Masked'));
    assert.equal(created.status, 200);
    const id = created.body.data.id;
    const answers = [
      created,
      await call(served, key, 'GET', '/monitor'),
      await call(served, key, 'GET', `/monitor/${id}`),
      await call(served, key, 'PATCH', `/monitor/${id}`, { goal: 'account changes' }),
    ];
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.doesNotMatch(answer.text, /hook-secret|cookie-secret|blue/, answer.text);
    }
    const one = answers[2]!.body.data;
    assert.deepEqual(one.webhook.headers, { Authorization: '<redacted>', 'X-Team': '<redacted>' });
    assert.deepEqual(one.targets[0].scrapeOptions.headers, { Cookie: '<redacted>' });
    assert.deepEqual(one.webhook.metadata, { ticket: '42' }, 'metadata is not a header: it stays');
    const deleted = await call(served, key, 'DELETE', `/monitor/${id}`);
    assert.equal(deleted.status, 200);
    assert.doesNotMatch(deleted.text, /hook-secret|cookie-secret/);
  });

  it('sent back masked keep the values stored; a value sent anew replaces its own', async () => {
    const id = (await call(served, key, 'POST', '/monitor', monitorBody('Round trip'))).body.data.id;
    const read = (await call(served, key, 'GET', `/monitor/${id}`)).body.data;
    // What a client does with an SDK, or with what `monitor get --json` printed: read the
    // monitor, change a field, send the rest as it read it, masked values and all.
    const { name, schedule, targets, webhook } = read;
    const maskedTargets = [{ ...targets[0], scrapeOptions: { ...targets[0].scrapeOptions, headers: { Cookie: '<redacted>' } } }];
    const updated = await call(served, key, 'PATCH', `/monitor/${id}`, {
      name,
      schedule,
      targets: maskedTargets,
      webhook: { ...webhook, headers: { Authorization: '<redacted>', 'X-Team': 'green' } },
      retentionDays: 7,
    });
    assert.equal(updated.status, 200, updated.text);
    const definition = await stored(id);
    assert.equal(definition.webhook.headers.Authorization, HOOK_SECRET);
    assert.equal(definition.webhook.headers['X-Team'], 'green');
    assert.equal(definition.targets[0].scrapeOptions.headers.Cookie, COOKIE);
    assert.equal(definition.retentionDays, 7);
  });

  it('refuse a masked value that stands for nothing stored, naming it', async () => {
    const body = monitorBody('Masked from the start');
    const created = await call(served, key, 'POST', '/monitor', { ...body, webhook: { ...body.webhook, headers: { Authorization: '<redacted>' } } });
    assert.equal(created.status, 400);
    assert.deepEqual(
      created.body.details.map((detail: { path: string }) => detail.path),
      ['webhook.headers.Authorization'],
    );
    const id = (await call(served, key, 'POST', '/monitor', body)).body.data.id;
    const patched = await call(served, key, 'PATCH', `/monitor/${id}`, { webhook: { url: body.webhook.url, headers: { 'X-Other': '<redacted>' } } });
    assert.equal(patched.status, 400);
    assert.deepEqual(
      patched.body.details.map((detail: { path: string }) => detail.path),
      ['webhook.headers.X-Other'],
    );
    assert.equal((await stored(id)).webhook.headers.Authorization, HOOK_SECRET);
  });

  it('monitor apply against serve: the same files are no change, and a change elsewhere keeps the secrets', async () => {
    const file = `name: Applied
schedule: {cron: "0 * * * *"}
targets:
  - type: scrape
    urls: [https://example.com/account]
    scrapeOptions: {headers: {Cookie: "\${COOKIE}"}}
webhook:
  url: https://hooks.example.com/monitor
  headers: {Authorization: "\${HOOK}"}
`;
    const dir = writeFiles({ 'applied.yaml': file });
    const env = { WEBWATCH_HOME: tempDir(), HOOK: HOOK_SECRET, COOKIE, WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: key };
    const apply = (args: string[]) => run(['monitor', 'apply', '-f', dir, '--json', '--detailed-exitcode', ...args], { env });
    const first = await apply([]);
    assert.equal(first.code, 8, first.stderr);
    assert.deepEqual(JSON.parse(first.stdout).summary, { created: 1, updated: 0, unchanged: 0, deleted: 0 });
    const id = JSON.parse(first.stdout).plan[0].id;

    const again = await apply([]);
    assert.equal(again.code, 0, again.stdout);
    assert.deepEqual(JSON.parse(again.stdout).summary, { created: 0, updated: 0, unchanged: 1, deleted: 0 });

    writeFiles({ 'applied.yaml': file.replace('0 * * * *', '30 * * * *') }, dir);
    const changed = await apply([]);
    assert.equal(changed.code, 8);
    assert.deepEqual(
      JSON.parse(changed.stdout).plan[0].changes.map((change: { path: string }) => change.path),
      ['schedule.cron'],
    );
    const definition = await stored(id);
    assert.equal(definition.schedule.cron, '30 * * * *');
    assert.equal(definition.webhook.headers.Authorization, HOOK_SECRET);
    assert.equal(definition.targets[0].scrapeOptions.headers.Cookie, COOKIE);
  });
});
