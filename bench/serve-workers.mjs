#!/usr/bin/env node
/**
 * Several `webwatch serve --role worker` processes sharing one PostgreSQL, against one process on
 * the embedded SQLite file: N monitors (default 3,000) on `*\/5 * * * *`, one page each on a
 * local site, all due at the same slot (the burst every 5 minutes brings). For each setup
 * (SQLite x1, PostgreSQL x1, x2, x3) it measures, for that slot:
 *   - checks per second: slot checks / (last finish - first start);
 *   - start lateness: startedAt - scheduledFor, p50 and p99;
 *   - double runs: slots with more than one check, and pages fetched more than once.
 *
 *   - the CPU each worker and the database spent on the slot, and on PostgreSQL with
 *     --db-latency-ms, the database round trips per check.
 *
 * PostgreSQL is Debian's package, started in a temporary directory as the tests start it.
 * --db-latency-ms N puts the workers behind a proxy that delays every chunk N ms each way
 * (latency-proxy.mjs), so that the database is not free: a round trip costs what one across a
 * network does. --pin pins worker k to core k (mod the cores), its threads included.
 * Usage: npm run build && node bench/serve-workers.mjs [--monitors 3000] [--check-concurrency 16]
 *          [--setups sqlite-1,postgres-1,postgres-2,postgres-3] [--db-latency-ms 1] [--pin]
 *          [--out serve-workers.json]
 * Writes bench/results/serve-workers.json (or --out).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    monitors: { type: 'string', default: '3000' },
    'check-concurrency': { type: 'string', default: '16' },
    setups: { type: 'string', default: 'sqlite-1,postgres-1,postgres-2,postgres-3' },
    'db-latency-ms': { type: 'string', default: '0' },
    pin: { type: 'boolean', default: false },
    out: { type: 'string', default: 'serve-workers.json' },
  },
});
const LATENCY_MS = Number(args['db-latency-ms']);
const { startLatencyProxy, roundTripMs } = await import('./latency-proxy.mjs');
const { cpuOfCommand, cpuSeconds } = await import('./process-cpu.mjs');

const COUNT = Number(args.monitors);
const CONCURRENCY = Number(args['check-concurrency']);

const { openDatabase } = await import(join(ROOT, 'dist/src/engine/store/database.js'));
const { monitorStore } = await import(join(ROOT, 'dist/src/engine/monitors/monitor-store.js'));
const { postgresServer, stopPostgresServer, POSTGRES_SKIP } = await import(join(ROOT, 'dist/test/helpers/postgres.js'));
const { serveProcess } = await import(join(ROOT, 'dist/test/helpers/serve-process.js'));
const { sqlRows } = await import(join(ROOT, 'dist/test/helpers/sql.js'));

// The site: small pages, each counted.
const hits = new Map();
const site = createServer((request, response) => {
  hits.set(request.url, (hits.get(request.url) ?? 0) + 1);
  response.writeHead(200, { 'content-type': 'text/html' }).end(`<main><h1>Page ${request.url}</h1><p>Price of ${request.url}: 10</p></main>`);
});
await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
const siteUrl = `http://127.0.0.1:${site.address().port}`;

async function seed(db, slot) {
  const monitors = monitorStore(db);
  for (let i = 0; i < COUNT; i++) {
    const definition = {
      name: `m${i}`,
      goal: null,
      judgeEnabled: false,
      retentionDays: 30,
      schedule: { cron: '*/5 * * * *', timezone: 'UTC' },
      targets: [{ type: 'scrape', urls: [`${siteUrl}/p/${i}`] }],
    };
    await monitors.insert('bench', definition, new Date());
  }
  await db.query.updateTable('monitors').set({ next_run_at: slot }).execute();
}

/** Temporary directories of the run, removed at the end. */
const scratch = [];
const tempDir = (prefix) => {
  const dir = mkdtempSync(join(os.tmpdir(), prefix));
  scratch.push(dir);
  return dir;
};

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

async function runSetup(kind, workers) {
  hits.clear();
  const location = kind === 'postgres' ? await (await postgresServer()).createDatabase() : join(tempDir('webwatch-workers-'), 'webwatch.db');
  const db = await openDatabase(location);
  // The workers reach the database through the proxy; the bench's own queries go direct.
  const proxy = kind === 'postgres' && LATENCY_MS > 0 ? await startLatencyProxy({ port: new URL(location).port, delayMs: LATENCY_MS }) : undefined;
  const workerLocation = proxy ? proxy.through(location) : location;
  const measuredRoundTripMs = kind === 'postgres' ? await roundTripMs(workerLocation) : undefined;
  const seedStarted = Date.now();
  await seed(db, null);
  const seedSeconds = (Date.now() - seedStarted) / 1000;
  // The slot: 15 seconds from now, time for every process to start and sleep until it.
  const slotTime = new Date(Date.now() + 15_000);
  slotTime.setUTCMilliseconds(0);
  const slotIso = slotTime.toISOString();
  await db.query.updateTable('monitors').set({ next_run_at: slotIso }).execute();
  const role = kind === 'postgres' ? ['--role', 'worker'] : [];
  const env = { WEBWATCH_DATABASE_URL: workerLocation, WEBWATCH_HOME: tempDir('webwatch-workers-home-') };
  const processes = await Promise.all(
    Array.from({ length: workers }, () => serveProcess([...role, '--quiet', '--check-concurrency', String(CONCURRENCY)], env)),
  );
  if (args.pin)
    processes.forEach((serve, k) => execFileSync('taskset', ['-a', '-pc', String(k % os.cpus().length), String(serve.child.pid)], { stdio: 'ignore' }));
  const cpuBefore = processes.map((serve) => cpuSeconds(serve.child.pid));
  const databaseCpuBefore = kind === 'postgres' ? cpuOfCommand('postgres') : 0;
  const roundTripsBefore = proxy?.roundTrips() ?? 0;
  const statementsBefore = proxy?.statements() ?? new Map();
  if (Date.now() > slotTime.getTime()) console.error(`${kind}-${workers}: the processes started after the slot; lateness includes their start-up`);
  const deadline = Date.now() + 30 * 60_000;
  let done = 0;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const rows = await sqlRows(db, "SELECT count(*) AS n FROM checks WHERE scheduled_for = ? AND status IN ('completed', 'partial', 'failed')", slotIso);
    done = Number(rows[0].n);
    if (done >= COUNT) break;
  }
  const checks = await sqlRows(db, 'SELECT monitor_id, status, started_at, finished_at, owner_pid FROM checks WHERE scheduled_for = ?', slotIso);
  const doubled = (await sqlRows(db, 'SELECT monitor_id FROM checks WHERE scheduled_for = ? GROUP BY monitor_id HAVING count(*) > 1', slotIso)).length;
  const workerCpu = processes.map((serve, k) => Math.round((cpuSeconds(serve.child.pid) - cpuBefore[k]) * 10) / 10);
  const databaseCpu = kind === 'postgres' ? Math.round((cpuOfCommand('postgres') - databaseCpuBefore) * 10) / 10 : undefined;
  const roundTrips = proxy ? proxy.roundTrips() - roundTripsBefore : undefined;
  // The statements a check costs, most frequent first.
  const statements = [...(proxy?.statements() ?? [])]
    .map(([text, count]) => [text, Math.round(((count - (statementsBefore.get(text) ?? 0)) / COUNT) * 100) / 100])
    .filter(([, perCheck]) => perCheck >= 0.05)
    .sort((a, b) => b[1] - a[1]);
  for (const serve of processes) await serve.stop();
  await proxy?.close();
  await db.close();
  const slotMs = Date.parse(slotIso);
  const lateness = checks.map((check) => Date.parse(check.started_at) - slotMs);
  const firstStart = Math.min(...checks.map((check) => Date.parse(check.started_at)));
  const lastFinish = Math.max(...checks.map((check) => Date.parse(check.finished_at)));
  const perProcess = {};
  for (const check of checks) perProcess[check.owner_pid] = (perProcess[check.owner_pid] ?? 0) + 1;
  return {
    database: kind,
    processes: workers,
    checks: checks.length,
    finished: done,
    failed: checks.filter((check) => check.status !== 'completed').length,
    checksPerSecond: Math.round((checks.length / ((lastFinish - firstStart) / 1000)) * 10) / 10,
    burstSeconds: Math.round((lastFinish - slotMs) / 100) / 10,
    startLatenessMs: { p50: percentile(lateness, 50), p99: percentile(lateness, 99), max: Math.max(...lateness) },
    doubleRuns: doubled,
    pagesFetchedTwice: [...hits.values()].filter((n) => n > 1).length,
    checksPerProcess: Object.values(perProcess).sort((a, b) => b - a),
    // CPU over the whole run (start-up and the idle wait before the slot included: small).
    workerCpuSeconds: workerCpu,
    databaseCpuSeconds: databaseCpu,
    workerCpuMsPerCheck: Math.round((workerCpu.reduce((a, b) => a + b, 0) / checks.length) * 1000 * 10) / 10,
    ...(kind === 'postgres' && {
      databaseCpuMsPerCheck: Math.round((databaseCpu / checks.length) * 1000 * 10) / 10,
      roundTripMs: measuredRoundTripMs,
      roundTripsPerCheck: roundTrips === undefined ? undefined : Math.round((roundTrips / checks.length) * 10) / 10,
      statementsPerCheck: proxy ? Object.fromEntries(statements) : undefined,
    }),
    pinned: args.pin,
    seedSeconds,
  };
}

const results = [];
for (const setup of args.setups.split(',')) {
  const [kind, n] = setup.split('-');
  if (kind === 'postgres' && POSTGRES_SKIP) {
    console.error(`skipping ${setup}: ${POSTGRES_SKIP}`);
    continue;
  }
  const result = await runSetup(kind, Number(n));
  console.log(JSON.stringify(result));
  results.push(result);
}
await stopPostgresServer();
site.close();
for (const dir of scratch) rmSync(dir, { recursive: true, force: true });

writeFileSync(
  resolve(ROOT, 'bench/results', args.out),
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        cpu: os.cpus()[0]?.model,
        memoryGiB: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        os: `${os.type()} ${os.release()}`,
      },
      monitors: COUNT,
      checkConcurrencyPerProcess: CONCURRENCY,
      dbLatencyMsEachWay: LATENCY_MS,
      loadAverage: os.loadavg().map((load) => Math.round(load * 10) / 10),
      note: 'one run per setup on a 2-core machine shared with other work; PostgreSQL on the same machine, fsync off',
      results,
    },
    null,
    2,
  )}\n`,
);
