/**
 * `webwatch serve` end to end: the CLI in remote mode against the server over real HTTP, two
 * teams' keys, the error catalog, limits, and the private-network rule.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/engine/store/database.js';
import { EXIT } from '../../src/errors/exit-codes.js';
import { SERVER_DEFAULTS } from '../../src/server/app.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { readBody, startServer, type TestServer } from '../helpers/server.js';
import { serveProcess } from '../helpers/serve-process.js';
import { call, serveWebwatch as serve, type ServingWebwatch } from '../helpers/webwatch-server.js';
import { sqlRow } from '../helpers/sql.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any

describe('webwatch serve with the CLI in remote mode', () => {
  let site: TestServer;
  let started: ServingWebwatch;
  let acme: string;
  let other: string;
  let price = '$10';
  before(async () => {
    site = await startServer({
      '/pricing': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end(`<main><h1>Pricing</h1><p>Pro plan: ${price} a month</p></main>`),
      '/about': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>About us</p></main>'),
    });
    started = await serve();
    acme = (await started.keys.create('acme', new Date())).key;
    other = (await started.keys.create('other', new Date())).key;
  });
  after(async () => {
    await started.stop();
    await site.close();
  });

  const as = (key: string) => ({ env: { WEBWATCH_API_URL: started.url, WEBWATCH_API_KEY: key } });

  it('runs the whole monitor life cycle, each team seeing only its own monitors', async () => {
    const file = writeFiles({
      'm.yaml': `name: Pricing\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: scrape\n    urls: ["${site.origin}/pricing", "${site.origin}/about"]\n`,
    });
    const applied = JSON.parse((await run(['monitor', 'apply', '-f', file, '--json'], as(acme))).stdout);
    assert.deepEqual(applied.summary, { created: 1, updated: 0, unchanged: 0, deleted: 0 });
    const again = JSON.parse((await run(['monitor', 'apply', '-f', file, '--json'], as(acme))).stdout);
    assert.deepEqual(again.summary, { created: 0, updated: 0, unchanged: 1, deleted: 0 }, 'apply is idempotent over HTTP');

    // The other team has no such monitor, and may use the same name.
    assert.equal((await run(['monitor', 'get', 'Pricing'], as(other))).code, EXIT.notFound);
    assert.equal((await run(['monitor', 'get', applied.plan[0].id], as(other))).code, EXIT.notFound);
    assert.deepEqual(JSON.parse((await run(['monitor', 'list', '--json'], as(other))).stdout), []);
    assert.equal((await run(['monitor', 'apply', '-f', file], as(other))).code, EXIT.ok);

    const first = JSON.parse((await run(['monitor', 'run', 'Pricing', '--wait', '--json'], as(acme))).stdout);
    assert.equal(first.status, 'completed');
    assert.deepEqual(first.summary, { changed: 0, error: 0, new: 2, removed: 0, same: 0, totalPages: 2 });
    price = '$12';
    const second = JSON.parse((await run(['monitor', 'run', 'Pricing', '--wait', '--json'], as(acme))).stdout);
    assert.deepEqual(second.summary, { changed: 1, error: 0, new: 0, removed: 0, same: 1, totalPages: 2 });
    const changed = JSON.parse((await run(['monitor', 'check', 'Pricing', second.id, '--status', 'changed', '--json'], as(acme))).stdout);
    assert.equal(changed.pages.length, 1);
    assert.match(changed.pages[0].diff.text, /-Pro plan: \$10 a month\n\+Pro plan: \$12 a month/);
    const history = JSON.parse((await run(['monitor', 'checks', 'Pricing', '--json'], as(acme))).stdout);
    assert.deepEqual(
      history.map((c: { id: string }) => c.id),
      [second.id, first.id],
    );
    assert.equal((await run(['monitor', 'checks', 'Pricing', '--json'], as(other))).stdout.includes(first.id), false);

    assert.equal((await run(['monitor', 'pause', 'Pricing'], as(acme))).code, EXIT.ok);
    assert.equal((await run(['monitor', 'run', 'Pricing', '--wait'], as(acme))).code, EXIT.conflict);
    assert.equal((await run(['monitor', 'resume', 'Pricing'], as(acme))).code, EXIT.ok);
    assert.equal((await run(['monitor', 'delete', 'Pricing', '--yes'], as(acme))).code, EXIT.ok);
    assert.equal((await run(['monitor', 'delete', applied.plan[0].id, '--yes'], as(acme))).code, EXIT.conflict);
    const all = JSON.parse((await run(['monitor', 'list', '--all', '--json'], as(acme))).stdout);
    assert.equal(all[0].status, 'deleted');
    // The other team's monitor of the same name is untouched.
    assert.equal(JSON.parse((await run(['monitor', 'get', 'Pricing', '--json'], as(other))).stdout).status, 'active');
  });

  it('scrapes over HTTP as the local engine does', async () => {
    const local = await run(['scrape', `${site.origin}/about`], { env: {} });
    const remote = await run(['scrape', `${site.origin}/about`], as(acme));
    assert.equal(remote.code, EXIT.ok);
    assert.equal(remote.stdout, local.stdout);
  });

  it('crawls over HTTP, the pages streaming back as JSON lines', async () => {
    const result = await run(['crawl', `${site.origin}/pricing`, '--limit', '2', '--sitemap', 'skip', '--ignore-robots-txt', '--json'], as(acme));
    assert.equal(result.code, EXIT.ok, result.stderr);
    const pages = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(pages.length, 1);
    assert.match(pages[0].data.markdown, /Pro plan/);
  });

  it('answers with the error catalog of spec §7', async () => {
    const unauthorized = await call(started, 'ww_wrong', 'GET', '/monitor');
    assert.equal(unauthorized.status, 401);
    assert.deepEqual(unauthorized.body, { success: false, error: 'Unauthorized: Invalid token', code: 'UNAUTHORIZED' });
    assert.equal((await call(started, undefined, 'GET', '/monitor')).status, 401);

    const badUrl = await call(started, acme, 'POST', '/scrape', { url: 'ftp://example.com' });
    assert.equal(badUrl.status, 400);
    assert.equal(badUrl.body.error, 'Invalid URL');

    const malformed = await call(started, acme, 'POST', '/monitor', '{"name": ');
    assert.equal(malformed.status, 400);
    const malformedBody = malformed.body;
    assert.equal(malformedBody.error, 'Bad Request');
    assert.ok(Array.isArray(malformedBody.details));

    const invalid = await call(started, acme, 'POST', '/monitor', { name: 'X', schedule: { cron: '* * * * *' }, targets: [] });
    assert.equal(invalid.status, 400);
    const invalidBody = invalid.body;
    assert.deepEqual(invalidBody.details.map((d: { path: string }) => d.path).sort(), ['schedule.cron', 'targets']);

    const missing = await call(started, acme, 'GET', '/nothing-here');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error, 'Not Found', '§7.2 as written');
    assert.equal(missing.body.code, 'ROUTE_NOT_FOUND');
    assert.deepEqual([missing.body.details.method, missing.body.details.path], ['GET', '/v2/nothing-here']);
    assert.match(missing.body.details.reason, /does not offer this method and path/);
    const created = await call(started, acme, 'POST', '/monitor', {
      name: 'Never checked',
      schedule: { cron: '0 * * * *' },
      targets: [{ type: 'scrape', urls: ['https://example.com/'] }],
    });
    assert.equal(created.status, 200);
    assert.deepEqual(
      created.body.data.lastCheckSummary,
      { changed: 0, error: 0, new: 0, removed: 0, same: 0, totalPages: 0 },
      '§2.6: a MonitorSummary, never null',
    );
    const unknownId = await call(started, acme, 'GET', '/monitor/00000000-0000-4000-8000-000000000000');
    assert.equal(unknownId.body.error, 'Not Found', 'an unknown id of an offered route is a plain Not Found');

    const tooLarge = await call(started, acme, 'POST', '/monitor', { name: 'x'.repeat(SERVER_DEFAULTS.bodyLimit) });
    assert.equal(tooLarge.status, 413);
    assert.equal(tooLarge.body.error, 'Payload Too Large');

    const health = await fetch(started.url.replace(/\/v2$/, '/health'));
    assert.equal(health.status, 200);
  });
});

describe('serve limits and the private-network rule', () => {
  it('limits requests per key per minute with 429 and Retry-After', async () => {
    const started = await serve({ rateLimitPerMinute: 3 });
    const key = (await started.keys.create('acme', new Date())).key;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(started, key, 'GET', '/monitor')).status);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    const limited = await call(started, key, 'GET', '/monitor');
    assert.equal(limited.body.error, 'Rate limit exceeded');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    // Another key has its own budget.
    assert.equal((await call(started, (await started.keys.create('acme', new Date())).key, 'GET', '/monitor')).status, 200);
    await started.stop();
  });

  it('limits concurrent scrapes per team with 429 Concurrency limit reached', async () => {
    const slow = await startServer({ '/slow': (_q, r) => void setTimeout(() => r.writeHead(200, { 'content-type': 'text/html' }).end('<p>slow</p>'), 400) });
    const started = await serve({ concurrencyPerTeam: 1 });
    const key = (await started.keys.create('acme', new Date())).key;
    const scrape = () => call(started, key, 'POST', '/scrape', { url: `${slow.origin}/slow` });
    const [a, b] = await Promise.all([scrape(), new Promise((r) => setTimeout(r, 100)).then(scrape)]);
    assert.deepEqual([a.status, b.status], [200, 429]);
    assert.equal(b.body.error, 'Concurrency limit reached');
    await started.stop();
    await slow.close();
  });

  it('refuses loopback and private targets unless allowed', async () => {
    const started = await serve({ allowPrivateTargets: false });
    const key = (await started.keys.create('acme', new Date())).key;
    for (const url of [
      'http://127.0.0.1:9/',
      'http://localhost:9/',
      'http://10.1.2.3/',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:9/',
      'http://[::ffff:192.168.0.1]/',
    ]) {
      const response = await call(started, key, 'POST', '/scrape', { url });
      assert.equal(response.status, 403, url);
      assert.match(JSON.stringify(response.body), /allow-private-targets/);
    }
    const monitor = await call(started, key, 'POST', '/monitor', {
      name: 'Inside',
      schedule: { cron: '0 * * * *' },
      targets: [{ type: 'scrape', urls: ['http://192.168.1.1/admin'] }],
    });
    assert.equal(monitor.status, 403);
    const hooked = await call(started, key, 'POST', '/monitor', {
      name: 'Hook',
      schedule: { cron: '0 * * * *' },
      targets: [{ type: 'scrape', urls: ['https://example.com/'] }],
      webhook: { url: 'http://127.0.0.1:9/hook' },
    });
    assert.equal(hooked.status, 403, 'a private webhook target is refused too');
    await started.stop();
  });
});

describe('the scheduler inside serve', () => {
  it("runs every team's due monitors as scheduled checks", async () => {
    const site = await startServer({}, (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>scheduled page</p></main>'));
    let now = new Date('2026-11-21T09:30:00Z');
    const started = await serve({ now: () => now, scheduler: { maxConcurrent: 2, jitterMs: 0 } });
    const keys = [(await started.keys.create('acme', now)).key, (await started.keys.create('other', now)).key];
    const ids: string[] = [];
    const hooks: string[] = [];
    const receiver = await startServer({}, async (request, response) => {
      hooks.push(JSON.parse(await readBody(request)).type);
      response.writeHead(204).end();
    });
    for (const key of keys) {
      const response = await call(started, key, 'POST', '/monitor', {
        name: 'Hourly',
        schedule: { cron: '0 * * * *' },
        targets: [{ type: 'scrape', urls: [`${site.origin}/p`] }],
        webhook: { url: `${receiver.origin}/hook`, events: ['monitor.check.completed'] },
      });
      ids.push(response.body.data.id);
    }
    now = new Date('2026-11-21T10:00:05Z');
    await started.server.scheduler!.tick();
    await Promise.all([...started.server.scheduler!.running.values()]);
    for (const [i, key] of keys.entries()) {
      const checks = (await call(started, key, 'GET', `/monitor/${ids[i]}/checks`)).body.data;
      assert.equal(checks.length, 1);
      assert.equal(checks[0].trigger, 'scheduled');
      assert.equal(checks[0].scheduledFor, '2026-11-21T10:00:00.000Z');
      assert.deepEqual(checks[0].summary, { changed: 0, error: 0, new: 1, removed: 0, same: 0, totalPages: 1 });
      assert.equal((await call(started, key, 'GET', `/monitor/${ids[i]}`)).body.data.nextRunAt, '2026-11-21T11:00:00.000Z');
    }
    await started.stop();
    assert.deepEqual(hooks, ['monitor.check.completed', 'monitor.check.completed'], 'each scheduled check announced itself');
    await site.close();
    await receiver.close();
  });
});

describe('the serve command', () => {
  it('creates keys, serves until SIGTERM, and lets a running check finish', async () => {
    const slow = await startServer(
      {},
      (_q, r) => void setTimeout(() => r.writeHead(200, { 'content-type': 'text/html' }).end('<main><p>slow page</p></main>'), 800),
    );
    const home = tempDir();
    const env = { WEBWATCH_HOME: home, XDG_CONFIG_HOME: tempDir() };
    const created = JSON.parse((await run(['keys', 'create', '--team', 'acme', '--json'], { env })).stdout);
    assert.match(created.key, /^ww_/);
    const listed = JSON.parse((await run(['keys', 'list', '--json'], { env })).stdout);
    assert.deepEqual(
      listed.map((k: { id: string; team: string }) => [k.id, k.team]),
      [[created.id, 'acme']],
    );
    assert.doesNotMatch(JSON.stringify(listed), new RegExp(created.key));

    const served = await serveProcess([], env);
    const remote = { env: { ...env, WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: created.key } };
    const file = writeFiles({ 'm.yaml': `name: Slow\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${slow.origin}/a"]}]\n` });
    assert.equal((await run(['monitor', 'apply', '-f', file], remote)).code, EXIT.ok);
    const running = JSON.parse((await run(['monitor', 'run', 'Slow', '--json'], remote)).stdout);
    assert.equal(running.status, 'queued', 'queued for the first worker with room: this process');
    assert.equal(await served.stop(), 0, served.stderr());
    // The check finished before the server stopped.
    assert.equal((await run(['monitor', 'checks', 'Slow'], { env })).code, EXIT.notFound, "the local engine's team is not the key's");
    const db = await openDatabase(join(home, 'webwatch.db'));
    const row = (await sqlRow<{ status: string }>(db, 'SELECT status FROM checks WHERE id = ?', running.id))!;
    await db.close();
    assert.equal(row.status, 'completed');
    assert.doesNotMatch(served.stderr(), new RegExp(created.key), 'request logs carry no key');

    const unknown = await run(['keys', 'revoke', 'ffff0000'], { env });
    assert.equal(unknown.code, EXIT.notFound);
    assert.equal(unknown.stderr, 'error: key "ffff0000": no key has this id or id prefix\nhint: webwatch keys list shows them\n');
    const revoked = await run(['keys', 'revoke', created.id.slice(0, 6)], { env });
    assert.equal(revoked.code, EXIT.ok, 'a unique prefix names the key, as it names a monitor');
    assert.match(revoked.stderr, new RegExp(`key ${created.id} of team \\S+ revoked`));
    assert.equal(JSON.parse((await run(['keys', 'list', '--json'], { env })).stdout)[0].revokedAt !== null, true);
    assert.equal((await run(['keys', 'create', '--team', 'bad team'], { env })).code, EXIT.usage);
    await slow.close();
  });

  it('login saves a key the API accepts, readable by the owner only, and logout forgets it', async () => {
    const started = await serve();
    const key = (await started.keys.create('acme', new Date())).key;
    const env = { XDG_CONFIG_HOME: tempDir(), WEBWATCH_API_URL: started.url };
    const refused = await run(['login'], { env, stdin: 'ww_not_a_key\n' });
    assert.equal(refused.code, EXIT.auth);
    const saved = await run(['login', '--json'], { env, stdin: `${key}\n` });
    assert.equal(saved.code, EXIT.ok);
    const file = JSON.parse(saved.stdout).file;
    assert.equal(statSync(file).mode & 0o777, 0o600);
    // Saved credentials are used without WEBWATCH_API_KEY.
    assert.equal((await run(['monitor', 'list', '--json'], { env })).code, EXIT.ok);
    assert.equal((await run(['logout'], { env })).code, EXIT.ok);
    assert.equal((await run(['monitor', 'list'], { env })).code, EXIT.auth);
    await started.stop();
  });
});
