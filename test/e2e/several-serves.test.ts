/**
 * Several `webwatch serve` processes on one PostgreSQL (a real server from Debian's package,
 * started by the test): each slot runs exactly once across them, a worker killed with SIGKILL
 * mid-burst loses and doubles nothing, each notification is delivered once, and limits and key
 * revocation hold across processes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { keyStore } from '../../src/engine/keys/key-store.js';
import { monitorStore } from '../../src/engine/monitors/monitor-store.js';
import { openDatabase, type Db } from '../../src/engine/store/database.js';
import { LATEST_VERSION } from '../../src/engine/store/migrations.js';
import type { NormalizedMonitor } from '../../src/spec/monitor.js';
import { run } from '../helpers/io.js';
import { POSTGRES_SKIP, postgresServer, stopPostgresServer } from '../helpers/postgres.js';
import { readBody, startServer, type TestServer } from '../helpers/server.js';
import { serveProcess, type ServeProcess } from '../helpers/serve-process.js';
import { call } from '../helpers/webwatch-server.js';
import { sqlRows } from '../helpers/sql.js';

/** A site whose pages answer after `delayMs`, counting the requests of each path. */
async function slowSite(delayMs: number) {
  const hits = new Map<string, number>();
  const server = await startServer({}, (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    setTimeout(() => response.writeHead(200, { 'content-type': 'text/html' }).end(`<main><h1>${path}</h1><p>content of ${path}</p></main>`), delayMs);
  });
  return { server, hits };
}

/** A webhook receiver counting deliveries by webhookId. */
async function receiver(): Promise<{ server: TestServer; received: Map<string, number> }> {
  const received = new Map<string, number>();
  const server = await startServer({
    '/hook': async (request, response) => {
      const body = JSON.parse(await readBody(request)) as { webhookId: string };
      received.set(body.webhookId, (received.get(body.webhookId) ?? 0) + 1);
      response.writeHead(200).end('ok');
    },
  });
  return { server, received };
}

/** `count` monitors of team acme, one page each, their slot `slot` due now. */
async function dueMonitors(db: Db, count: number, site: string, hook: string, slot: string): Promise<string[]> {
  const monitors = monitorStore(db);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const definition = {
      name: `M${i}`,
      goal: null,
      judgeEnabled: false,
      retentionDays: 30,
      // Yearly: no second slot comes during the test.
      schedule: { cron: '0 0 1 1 *', timezone: 'UTC' },
      targets: [{ type: 'scrape', urls: [`${site}/m${i}`] }],
      webhook: { url: hook, events: ['monitor.check.completed'] },
    } as unknown as NormalizedMonitor;
    ids.push((await monitors.insert('acme', definition, new Date())).id);
  }
  await db.query.updateTable('monitors').set({ next_run_at: slot }).execute();
  return ids;
}

async function until(what: string, condition: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface CheckRow {
  monitor_id: string;
  status: string;
  scheduled_for: string;
  error: string | null;
  owner_pid: number;
}

describe('several serve processes on one PostgreSQL', { skip: POSTGRES_SKIP, timeout: 180_000 }, () => {
  let url: string;
  let db: Db;
  const processes: ServeProcess[] = [];
  const started = async (args: string[], env: Record<string, string> = {}) => {
    const serve = await serveProcess(args, { WEBWATCH_DATABASE_URL: url, WEBWATCH_LEASE_SECONDS: '2', ...env });
    processes.push(serve);
    return serve;
  };
  before(async () => {
    url = await (await postgresServer()).createDatabase();
    db = await openDatabase(url);
  });
  after(async () => {
    for (const serve of processes) await serve.kill().catch(() => undefined);
    await db?.close();
    await stopPostgresServer();
  });
  const fresh = async () => {
    for (const table of ['page_results', 'outbox', 'checks', 'snapshots', 'monitors']) await sqlRows(db, `DELETE FROM ${table}`);
  };

  it('three processes run each due slot exactly once, share the work, and deliver each notification once', async () => {
    await fresh();
    const site = await slowSite(50);
    const hooks = await receiver();
    const slot = new Date(Date.now() - 60_000).toISOString();
    const ids = await dueMonitors(db, 60, site.server.origin, `${hooks.server.origin}/hook`, slot);
    const serves = await Promise.all([0, 1, 2].map(() => started(['--check-concurrency', '4'])));
    await until(
      'every check finished and delivered',
      async () => (await sqlRows(db, "SELECT 1 FROM checks WHERE status = 'completed'")).length === 60 && hooks.received.size === 60,
    );
    // Time for a double run or a second delivery to show, were there one.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const checks = await sqlRows<CheckRow>(db, 'SELECT monitor_id, status, scheduled_for, error, owner_pid FROM checks');
    assert.equal(checks.length, 60, 'one check per slot');
    assert.deepEqual(new Set(checks.map((check) => check.monitor_id)), new Set(ids));
    assert.ok(checks.every((check) => check.scheduled_for === slot && check.status === 'completed'));
    assert.deepEqual(
      [...site.hits.values()].filter((n) => n !== 1),
      [],
      'each page fetched once',
    );
    assert.equal(site.hits.size, 60);
    assert.deepEqual(
      [...hooks.received.values()].filter((n) => n !== 1),
      [],
      'each webhook delivered once',
    );
    const pids = new Set(checks.map((check) => check.owner_pid));
    assert.ok(pids.size >= 2, `the work went to more than one process (${[...pids].join(', ')})`);
    const outbox = await sqlRows<{ status: string; attempts: number }>(db, 'SELECT status, attempts FROM outbox');
    assert.ok(outbox.length === 60 && outbox.every((row) => row.status === 'delivered' && row.attempts === 1));
    for (const serve of serves) assert.equal(await serve.stop(), 0, serve.stderr());
    await site.server.close();
    await hooks.server.close();
  });

  it('SIGKILL of a worker mid-burst: its checks are failed as interrupted, none lost, none run twice', async () => {
    await fresh();
    const site = await slowSite(1500);
    const hooks = await receiver();
    const slot = new Date(Date.now() - 60_000).toISOString();
    const ids = await dueMonitors(db, 24, site.server.origin, `${hooks.server.origin}/hook`, slot);
    const [victim, survivor] = await Promise.all([
      started(['--role', 'worker', '--check-concurrency', '4']),
      started(['--role', 'worker', '--check-concurrency', '4']),
    ]);
    // Both are fetching: the victim has checks running.
    await until('both workers running checks', async () => {
      const owners = await sqlRows<{ owner_pid: number }>(db, "SELECT DISTINCT owner_pid FROM checks WHERE status = 'running'");
      return owners.some((row) => row.owner_pid === victim.child.pid) && owners.length === 2;
    });
    await victim.kill();
    await until(
      'no check left queued or running',
      async () =>
        (await sqlRows(db, "SELECT 1 FROM checks WHERE status IN ('queued', 'running')")).length === 0 &&
        (await sqlRows(db, 'SELECT DISTINCT monitor_id FROM checks')).length === 24,
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const checks = await sqlRows<CheckRow>(db, 'SELECT monitor_id, status, scheduled_for, error, owner_pid FROM checks');
    assert.equal(checks.length, 24, 'one check per slot: none lost, none doubled');
    assert.deepEqual(new Set(checks.map((check) => check.monitor_id)), new Set(ids));
    const interrupted = checks.filter((check) => check.status === 'failed');
    assert.ok(interrupted.length >= 1, 'the killed worker had checks running');
    assert.ok(interrupted.every((check) => check.owner_pid === victim.child.pid && /^interrupted/.test(check.error ?? '')));
    assert.ok(checks.filter((check) => check.status === 'completed').every((check) => check.owner_pid === survivor.child.pid));
    assert.deepEqual(
      [...site.hits.values()].filter((n) => n > 1),
      [],
      'no page fetched twice',
    );
    // Every check announced itself once: the survivor's when they finished, the interrupted ones when they were found.
    await until('deliveries done', async () => hooks.received.size === 24);
    assert.deepEqual(
      [...hooks.received.values()].filter((n) => n !== 1),
      [],
    );
    assert.equal(await survivor.stop(), 0, survivor.stderr());
    await site.server.close();
    await hooks.server.close();
  });

  it('across processes: a slot that comes while another worker checks the monitor is skipped, a manual run is 409, and a change made through the API reaches the workers at once', async () => {
    await fresh();
    const site = await slowSite(2500);
    const hooks = await receiver();
    const key = (await keyStore(db).create('acme', new Date())).key;
    const [id] = await dueMonitors(db, 1, site.server.origin, `${hooks.server.origin}/hook`, new Date(Date.now() - 60_000).toISOString());
    // The API first: the workers check the due slot as soon as they start, and it lasts 2.5 s.
    const api = await started(['--role', 'api']);
    const workers = await Promise.all([started(['--role', 'worker']), started(['--role', 'worker'])]);
    await until('the first slot is being checked', async () => (await sqlRows(db, "SELECT 1 FROM checks WHERE status = 'running'")).length === 1);
    // A second slot comes due while the first check runs: whichever worker claims it skips it.
    const second = new Date(Date.now() - 1000).toISOString();
    await sqlRows(db, 'UPDATE monitors SET next_run_at = $1 WHERE id = $2', second, id);
    await sqlRows(db, "SELECT pg_notify('webwatch_schedule', '')");
    await until('the second slot recorded', async () => (await sqlRows(db, "SELECT 1 FROM checks WHERE status = 'skipped_overlap'")).length === 1, 10_000);
    const manual = await call(api, key, 'POST', `/monitor/${id}/run`);
    assert.equal(manual.status, 409, 'the monitor is being checked by a worker');
    await until('the first check finished', async () => (await sqlRows(db, "SELECT 1 FROM checks WHERE status = 'completed'")).length === 1);
    const checks = await sqlRows<CheckRow>(db, 'SELECT monitor_id, status, scheduled_for, error, owner_pid FROM checks ORDER BY scheduled_for');
    assert.deepEqual(
      checks.map((check) => [check.status, check.scheduled_for]),
      [
        ['completed', checks[0]!.scheduled_for],
        ['skipped_overlap', second],
      ],
    );
    assert.equal(site.hits.get('/m0'), 1, 'the page was fetched once');

    // A monitor changed through the API process: the workers hear of it at once (NOTIFY) and
    // plan again, instead of at the end of their sleep (up to a minute). Here the change is a
    // new monitor, and the slot it makes them see is the first monitor's, moved two seconds ahead.
    const third = new Date(Date.now() + 2000).toISOString();
    await sqlRows(db, 'UPDATE monitors SET next_run_at = $1 WHERE id = $2', third, id);
    const created = await call(api, key, 'POST', '/monitor', {
      name: 'Other',
      schedule: { cron: '0 0 1 1 *' },
      targets: [{ type: 'scrape', urls: [`${site.server.origin}/other`] }],
    });
    assert.equal(created.status, 200);
    const ran = await until(
      'the moved slot checked',
      async () => (await sqlRows(db, 'SELECT 1 FROM checks WHERE scheduled_for = $1', third)).length === 1,
      15_000,
    ).then(async () => (await sqlRows<{ started_at: string }>(db, 'SELECT started_at FROM checks WHERE scheduled_for = $1', third))[0]!);
    assert.ok(Date.parse(ran.started_at) - Date.parse(third) < 2000, `started ${Date.parse(ran.started_at) - Date.parse(third)} ms after its slot`);
    for (const serve of [...workers, api]) assert.equal(await serve.stop(), 0, serve.stderr());
    await site.server.close();
    await hooks.server.close();
  });

  it('roles, the health route, the rate limit and key revocation hold across processes', async () => {
    const created = await keyStore(db).create('acme', new Date());
    const [api, other] = await Promise.all([started(['--role', 'api', '--rate-limit', '6']), started(['--role', 'api', '--rate-limit', '6'])]);
    const worker = await started(['--role', 'worker']);
    const health = (await (await fetch(`${api.origin}/health`)).json()) as { role: string; database: { kind: string; ok: boolean; schemaVersion: number } };
    assert.deepEqual([health.role, health.database.kind, health.database.ok, health.database.schemaVersion], ['api', 'postgres', true, LATEST_VERSION]);
    assert.equal(((await (await fetch(`${worker.origin}/v2/health`)).json()) as { role: string }).role, 'worker');
    assert.equal((await call(worker, created.key, 'GET', '/monitor')).status, 404, 'a worker serves no API route');

    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await call(api, created.key, 'GET', '/monitor')).status, (await call(other, created.key, 'GET', '/monitor')).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200]);
    const refused = await call(other, created.key, 'GET', '/monitor');
    assert.equal(refused.status, 429, 'the seventh request in the minute, whichever process takes it');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);

    const second = await keyStore(db).create('acme', new Date());
    const revoke = await run(['keys', 'revoke', second.id, '--database', url, '--json']);
    assert.equal(revoke.code, 0, revoke.stderr);
    for (const serve of [api, other]) {
      const answer = await call(serve, second.key, 'GET', '/monitor');
      assert.equal(answer.status, 401, 'revoked in one process, refused by all at the next request');
    }
    for (const serve of [api, other, worker]) assert.equal(await serve.stop(), 0, serve.stderr());
  });
});
