/**
 * Fair shares between teams hold across serve processes on one PostgreSQL: two workers, three
 * slots each; team crowd has far more work waiting than the six slots, team lone as much as one
 * worker's slots, and all of crowd's is older. The fair first wave is half each: lone's work all
 * starts, although each worker alone would think giving crowd two of its three slots fair, and
 * an order by age would give crowd all six. That takes each worker counting what the *other* one
 * runs (runningByTeam), which is what is tested here, for scheduled checks (scheduler claimDue)
 * and for queued crawls (work-queue claimQueued).
 *
 * The site is a gate: it holds every page request until the test opens it, so no slot frees
 * before the first wave is looked at; what is asserted is which work holds the slots, never how
 * long anything took.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { keyStore } from '../../src/engine/keys/key-store.js';
import { monitorStore } from '../../src/engine/monitors/monitor-store.js';
import { openDatabase, type Db } from '../../src/engine/store/database.js';
import type { NormalizedMonitor } from '../../src/spec/monitor.js';
import { tempDir } from '../helpers/files.js';
import { POSTGRES_SKIP, postgresServer, stopPostgresServer } from '../helpers/postgres.js';
import { startServer } from '../helpers/server.js';
import { serveProcess, type ServeProcess } from '../helpers/serve-process.js';
import { sqlRows } from '../helpers/sql.js';
import { waitFor } from '../helpers/wait.js';
import { call } from '../helpers/webwatch-server.js';

/** Slots of each worker: check slots in the first test, job slots in the second. */
const SLOTS = 3;
const WORKERS = 2;
/** More than every slot of both workers. */
const CROWD = 30;
/** As much as one worker's slots: its fair half of the two workers' six. */
const LONE = SLOTS;

/** A site that holds each page request until open() (robots.txt and sitemaps are answered at once: 404). */
async function gateSite() {
  const held: { path: string; response: ServerResponse }[] = [];
  const hits = new Map<string, number>();
  let opened = false;
  const page = (path: string, response: ServerResponse) =>
    void response
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<html><head><title>${path}</title></head><body><main><h1>${path}</h1><p>The page at ${path}.</p></main></body></html>`);
  const server = await startServer({}, (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path === '/robots.txt' || path.startsWith('/sitemap')) return void response.writeHead(404).end();
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (opened) page(path, response);
    else held.push({ path, response });
  });
  return {
    server,
    held,
    hits,
    open() {
      opened = true;
      for (const { path, response } of held.splice(0)) page(path, response);
    },
    async close() {
      for (const { response } of held.splice(0)) response.destroy();
      await server.close();
    },
  };
}

/** `probe`'s answer once it has one (false and undefined: not yet), within a minute. */
const until = <T>(what: string, probe: () => Promise<T | undefined | false>) => waitFor(async () => (await probe()) || undefined, 60_000, what);

/** How many of `rows` each process holds, by pid. */
const perProcess = (rows: { owner_pid: number | string }[]) => {
  const counts = new Map<number, number>();
  for (const row of rows) counts.set(Number(row.owner_pid), (counts.get(Number(row.owner_pid)) ?? 0) + 1);
  return counts;
};

/** What each process holds, by team, for a failure to tell: `pid: crowd crowd lone`. */
const heldBy = <T extends { owner_pid: number | string }>(rows: T[], teamOf: (row: T) => string | undefined) =>
  [...new Set(rows.map((row) => Number(row.owner_pid)))]
    .map(
      (pid) =>
        `${pid}: ${rows
          .filter((row) => Number(row.owner_pid) === pid)
          .map(teamOf)
          .sort()
          .join(' ')}`,
    )
    .join('; ');

describe('fair shares of check and job slots across serve processes on one PostgreSQL', { skip: POSTGRES_SKIP, timeout: 240_000 }, () => {
  const processes: ServeProcess[] = [];
  const databases: Db[] = [];
  const gates: Awaited<ReturnType<typeof gateSite>>[] = [];
  let home: string;
  const started = (url: string, args: string[]) =>
    serveProcess(['--quiet', ...args], { WEBWATCH_DATABASE_URL: url, WEBWATCH_HOME: home }).then((serve) => {
      processes.push(serve);
      return serve;
    });
  /** A fresh database of the test's PostgreSQL, and a handle on it to seed and look. */
  const freshDatabase = async () => {
    const url = await (await postgresServer()).createDatabase();
    const db = await openDatabase(url);
    databases.push(db);
    return { url, db };
  };
  const gate = async () => {
    const site = await gateSite();
    gates.push(site);
    return site;
  };

  before(() => {
    home = tempDir();
  });
  after(async () => {
    for (const serve of processes) await serve.kill().catch(() => undefined);
    for (const site of gates) await site.close();
    for (const db of databases) await db.close();
    await stopPostgresServer();
    rmSync(home, { recursive: true, force: true });
  });

  it("check slots: lone's due monitors all start in the first wave, beside crowd's older thirty", async () => {
    const { url, db } = await freshDatabase();
    const site = await gate();
    const monitors = monitorStore(db);
    /** Each monitor's team and page. */
    const teamOf = new Map<string, string>();
    const pageOf = new Map<string, string>();
    const seed = async (team: string, name: string, slot: Date) => {
      const definition = {
        name,
        goal: null,
        judgeEnabled: false,
        retentionDays: 30,
        // Yearly: no second slot comes during the test.
        schedule: { cron: '0 0 1 1 *', timezone: 'UTC' },
        targets: [{ type: 'scrape', urls: [`${site.server.origin}/${name}`] }],
      } as unknown as NormalizedMonitor;
      const { id } = await monitors.insert(team, definition, new Date());
      await sqlRows(db, 'UPDATE monitors SET next_run_at = ? WHERE id = ?', slot.toISOString(), id);
      teamOf.set(id, team);
      pageOf.set(id, `/${name}`);
      return id;
    };
    // Every slot distinct, so that the order of ties is not left to the database: crowd's all
    // overdue by more than lone's, so an order by age alone would give crowd every slot.
    const base = Date.now() - 10 * 60_000;
    for (let i = 0; i < CROWD; i++) await seed('crowd', `crowd-${i}`, new Date(base + i * 1000));
    const lone: string[] = [];
    for (let i = 0; i < LONE; i++) lone.push(await seed('lone', `lone-${i}`, new Date(base + 5 * 60_000 + i * 1000)));

    // Both workers at once: each claims while the other may be claiming too.
    const workers = await Promise.all(Array.from({ length: WORKERS }, () => started(url, ['--role', 'worker', '--check-concurrency', String(SLOTS)])));

    type Running = { monitor_id: string; owner_pid: number; status: string };
    const unfinished = () => sqlRows<Running>(db, "SELECT monitor_id, owner_pid, status FROM checks WHERE status IN ('queued', 'running')");
    // The first wave: every slot of both workers holds a check whose page the gate holds, so none can free.
    const wave = await until(`${WORKERS * SLOTS} checks holding every slot`, async () => {
      if (site.held.length < WORKERS * SLOTS) return undefined;
      const rows = await unfinished();
      return rows.length >= WORKERS * SLOTS && rows;
    });
    assert.equal(wave.length, WORKERS * SLOTS, 'no more checks than slots');
    assert.equal(new Set(wave.map((row) => row.monitor_id)).size, wave.length, 'no slot taken twice');
    assert.deepEqual(
      wave
        .map((row) => row.monitor_id)
        .filter((id) => teamOf.get(id) === 'lone')
        .sort(),
      [...lone].sort(),
      `all of lone's checks run in the first wave; the workers held ${heldBy(wave, (row) => teamOf.get(row.monitor_id))}`,
    );
    assert.deepEqual([...perProcess(wave)].sort(), workers.map((serve) => [serve.child.pid!, SLOTS]).sort(), 'each worker holds its slots, no more');
    assert.deepEqual(
      site.held.map((request) => request.path).sort(),
      wave.map((row) => pageOf.get(row.monitor_id)).sort(),
      "the pages held are the running checks' pages",
    );

    // Then every slot runs, each exactly once.
    site.open();
    const total = CROWD + LONE;
    await until('every check finished', async () => (await sqlRows(db, "SELECT 1 FROM checks WHERE status NOT IN ('queued', 'running')")).length >= total);
    const checks = await sqlRows<{ monitor_id: string; status: string; error: string | null }>(db, 'SELECT monitor_id, status, error FROM checks');
    assert.equal(checks.length, total, 'one check per slot');
    assert.deepEqual(new Set(checks.map((check) => check.monitor_id)), new Set(teamOf.keys()));
    assert.deepEqual(
      checks.filter((check) => check.status !== 'completed'),
      [],
      'every check completed',
    );
    assert.equal(site.hits.size, total);
    assert.deepEqual(
      [...site.hits].filter(([, n]) => n !== 1),
      [],
      'each page fetched once',
    );
    for (const serve of workers) assert.equal(await serve.stop(), 0, serve.stderr());
  });

  it("job slots: lone's queued crawls all start in the first wave, beside crowd's older thirty", async () => {
    const { url, db } = await freshDatabase();
    const site = await gate();
    const keys = { crowd: (await keyStore(db).create('crowd', new Date())).key, lone: (await keyStore(db).create('lone', new Date())).key };
    // Queued through an API-only process before any worker runs, so that all of it waits when
    // the workers start: crowd's first, lone's last (the newest).
    const api = await started(url, ['--role', 'api']);
    const submit = async (team: 'crowd' | 'lone', i: number) => {
      const answer = await call(api, keys[team], 'POST', '/crawl', { url: `${site.server.origin}/${team}-${i}`, limit: 1, scrapeOptions: { maxAge: 0 } });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.id as string;
    };
    const crowd: string[] = [];
    for (let i = 0; i < CROWD; i++) crowd.push(await submit('crowd', i));
    const lone: string[] = [];
    for (let i = 0; i < LONE; i++) lone.push(await submit('lone', i));
    const teamOf = new Map([...crowd.map((id) => [id, 'crowd'] as const), ...lone.map((id) => [id, 'lone'] as const)]);
    assert.equal((await sqlRows(db, 'SELECT 1 FROM crawl_jobs WHERE owner_pid IS NULL')).length, CROWD + LONE, 'all of it waits for a worker');

    const workers = await Promise.all(Array.from({ length: WORKERS }, () => started(url, ['--role', 'worker', '--job-concurrency', String(SLOTS)])));

    type Running = { id: string; owner_pid: number };
    const claimed = () => sqlRows<Running>(db, "SELECT id, owner_pid FROM crawl_jobs WHERE status = 'scraping' AND owner_pid IS NOT NULL");
    // The first wave: every job slot of both workers holds a crawl whose start page the gate holds.
    const wave = await until(`${WORKERS * SLOTS} crawls holding every slot`, async () => {
      if (site.held.length < WORKERS * SLOTS) return undefined;
      const rows = await claimed();
      return rows.length >= WORKERS * SLOTS && rows;
    });
    assert.equal(wave.length, WORKERS * SLOTS, 'no more crawls than slots');
    assert.deepEqual(
      wave
        .map((row) => row.id)
        .filter((id) => teamOf.get(id) === 'lone')
        .sort(),
      [...lone].sort(),
      `all of lone's crawls run in the first wave; the workers held ${heldBy(wave, (row) => teamOf.get(row.id))}`,
    );
    assert.deepEqual(
      [...perProcess(wave)].sort(),
      workers.map((serve) => [serve.child.pid!, SLOTS]).sort(),
      'each worker holds its slots, no more, and the API process none',
    );
    assert.equal(new Set(site.held.map((request) => request.path)).size, WORKERS * SLOTS, 'each held page is a different crawl');

    // Then every crawl runs, each exactly once.
    site.open();
    const total = CROWD + LONE;
    await until('every crawl finished', async () => (await sqlRows(db, "SELECT 1 FROM crawl_jobs WHERE status <> 'scraping'")).length >= total);
    const jobs = await sqlRows<{ id: string; status: string; error: string | null }>(db, 'SELECT id, status, error FROM crawl_jobs');
    assert.deepEqual(
      jobs.filter((job) => job.status !== 'completed'),
      [],
      'every crawl completed',
    );
    assert.equal(site.hits.size, total);
    assert.deepEqual(
      [...site.hits].filter(([, n]) => n !== 1),
      [],
      'each start page fetched once',
    );
    for (const serve of [...workers, api]) assert.equal(await serve.stop(), 0, serve.stderr());
  });
});
