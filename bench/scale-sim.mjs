#!/usr/bin/env node
/**
 * A population of monitors at the size a large deployment holds (default 100,000), on
 * PostgreSQL, run by `serve --role worker` processes for a window of real time, with every
 * fetch answered by a local fake site. The monitors are spread as people schedule them (each
 * at its own minute and hour): 2 % every 5 minutes, 10 % hourly, 48 % daily, 40 % weekly; 70 %
 * watch one page, 20 % three, 8 % ten, 2 % fifty (3.1 pages a monitor); a fifth have a
 * `monitor.check.completed` webhook to a local receiver; a page's content changes at one
 * fetch in ten. Seeded "now" is a few minutes ahead, so that the window starts with every
 * monitor in its own phase, as in a deployment that has run for weeks; the window's checks are
 * the monitors' first (their pages new, the dearer case) except the 5-minute ones' later runs.
 *
 * Every 15 s of the window it samples: the scheduler's lag (startedAt - scheduledFor) of the
 * checks started since the last sample, p50, p99 and max; the overdue monitors (nextRunAt more
 * than a minute past); the outbox's lag (deliveredAt - createdAt) of the deliveries made since,
 * and what is pending. At the end: the due query's and the claim's plans and times at this size
 * (EXPLAIN ANALYZE), the tables' sizes, and each process's CPU.
 *
 * Usage: npm run build && node bench/scale-sim.mjs [--monitors 100000] [--minutes 10]
 *          [--workers 1] [--check-concurrency 32] [--db-latency-ms 0] [--out scale-sim.json]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startLatencyProxy } from './latency-proxy.mjs';
import { cpuOfCommand, cpuSeconds } from './process-cpu.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    monitors: { type: 'string', default: '100000' },
    minutes: { type: 'string', default: '10' },
    workers: { type: 'string', default: '1' },
    'check-concurrency': { type: 'string', default: '32' },
    'db-latency-ms': { type: 'string', default: '0' },
    out: { type: 'string', default: 'scale-sim.json' },
  },
});
const COUNT = Number(args.monitors);
const WINDOW_MS = Number(args.minutes) * 60_000;
const WORKERS = Number(args.workers);
const SAMPLE_MS = 15_000;

const { openDatabase } = await import(join(ROOT, 'dist/src/engine/store/database.js'));
const { monitorStore } = await import(join(ROOT, 'dist/src/engine/monitors/monitor-store.js'));
const { postgresServer, stopPostgresServer, POSTGRES_SKIP } = await import(join(ROOT, 'dist/test/helpers/postgres.js'));
const { serveProcess } = await import(join(ROOT, 'dist/test/helpers/serve-process.js'));
const { sqlRows } = await import(join(ROOT, 'dist/test/helpers/sql.js'));
if (POSTGRES_SKIP) {
  console.error(POSTGRES_SKIP);
  process.exit(2);
}

// A seeded generator: the same population every run.
let seed = 0x9e3779b9;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (weights) => {
  let r = random();
  for (const [value, weight] of weights) {
    if ((r -= weight) < 0) return value;
  }
  return weights.at(-1)[0];
};
const SCHEDULES = [
  ['5min', 0.02],
  ['hourly', 0.1],
  ['daily', 0.48],
  ['weekly', 0.4],
];
const PAGES = [
  [1, 0.7],
  [3, 0.2],
  [10, 0.08],
  [50, 0.02],
];
const cronOf = (kind) => {
  const minute = Math.floor(random() * 60);
  const hour = Math.floor(random() * 24);
  return {
    '5min': `${minute % 5}-59/5 * * * *`,
    hourly: `${minute} * * * *`,
    daily: `${minute} ${hour} * * *`,
    weekly: `${minute} ${hour} * * ${Math.floor(random() * 7)}`,
  }[kind];
};

// The site: small article pages; one fetch in ten sees a new price.
let fetches = 0;
const site = createServer((request, response) => {
  fetches++;
  const price = random() < 0.1 ? Math.floor(random() * 1000) : 10;
  response
    .writeHead(200, { 'content-type': 'text/html' })
    .end(
      `<html><head><title>Item ${request.url}</title></head><body><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav><main><h1>Item ${request.url}</h1><p>The item at ${request.url} is described here at some length, as a product page would describe it, with a sentence or two of text around its price.</p><p>Price: ${price} EUR</p></main><footer>Contact</footer></body></html>`,
    );
});
let deliveries = 0;
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    deliveries++;
    response.writeHead(204).end();
  });
});
await Promise.all([site, receiver].map((server) => new Promise((done) => server.listen(0, '127.0.0.1', done))));
const siteUrl = `http://127.0.0.1:${site.address().port}`;
const hookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

const scratch = [];
const tempDir = (prefix) => {
  const dir = mkdtempSync(join(os.tmpdir(), prefix));
  scratch.push(dir);
  return dir;
};
const percentile = (values, p) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

const location = await (await postgresServer()).createDatabase();
const db = await openDatabase(location);
const monitors = monitorStore(db);

// Seeding: the monitors' phases as of `windowStart`, a little ahead of the end of seeding.
const seedStarted = Date.now();
const windowStart = new Date(seedStarted + Math.max(60_000, COUNT * 2));
const population = { schedules: {}, pages: 0, webhooks: 0 };
let next = 0;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < COUNT) {
      const i = next++;
      const kind = pick(SCHEDULES);
      const pages = pick(PAGES);
      const webhook = random() < 0.2;
      population.schedules[kind] = (population.schedules[kind] ?? 0) + 1;
      population.pages += pages;
      if (webhook) population.webhooks++;
      await monitors.insert(
        `team${i % 50}`,
        {
          name: `m${i}`,
          goal: null,
          judgeEnabled: false,
          retentionDays: 30,
          schedule: { cron: cronOf(kind), timezone: 'UTC' },
          targets: [{ type: 'scrape', urls: Array.from({ length: pages }, (_, k) => `${siteUrl}/m/${i}/${k}`) }],
          ...(webhook && { webhook: { url: hookUrl, events: ['monitor.check.completed'] } }),
        },
        windowStart,
      );
    }
  }),
);
const seedSeconds = (Date.now() - seedStarted) / 1000;
console.error(`seeded ${COUNT} monitors in ${seedSeconds.toFixed(0)} s; the window starts at ${windowStart.toISOString()}`);
if (Date.now() > windowStart.getTime()) console.error('seeding ran past the window start: the first slots start late');

const proxy = Number(args['db-latency-ms']) > 0 ? await startLatencyProxy({ port: new URL(location).port, delayMs: Number(args['db-latency-ms']) }) : undefined;
const env = { WEBWATCH_DATABASE_URL: proxy ? proxy.through(location) : location, WEBWATCH_HOME: tempDir('webwatch-scale-home-') };
const processes = await Promise.all(
  Array.from({ length: WORKERS }, () => serveProcess(['--role', 'worker', '--quiet', '--check-concurrency', args['check-concurrency']], env)),
);
await new Promise((done) => setTimeout(done, Math.max(0, windowStart.getTime() - Date.now())));
const cpuBefore = processes.map((serve) => cpuSeconds(serve.child.pid));
const databaseCpuBefore = cpuOfCommand('postgres');

const samples = [];
let since = windowStart.toISOString();
const windowEnd = windowStart.getTime() + WINDOW_MS;
while (Date.now() < windowEnd) {
  await new Promise((done) => setTimeout(done, Math.min(SAMPLE_MS, windowEnd - Date.now())));
  const now = new Date().toISOString();
  const started = await sqlRows(
    db,
    "SELECT started_at, scheduled_for FROM checks WHERE trigger = 'scheduled' AND status != 'skipped_overlap' AND started_at > ? AND started_at <= ?",
    since,
    now,
  );
  const lags = started.map((row) => Date.parse(row.started_at) - Date.parse(row.scheduled_for));
  const delivered = await sqlRows(db, 'SELECT created_at, delivered_at FROM outbox WHERE delivered_at > ? AND delivered_at <= ?', since, now);
  const outboxLags = delivered.map((row) => Date.parse(row.delivered_at) - Date.parse(row.created_at));
  const [overdue] = await sqlRows(
    db,
    "SELECT count(*) AS n FROM monitors WHERE status = 'active' AND next_run_at < ?",
    new Date(Date.now() - 60_000).toISOString(),
  );
  const [pending] = await sqlRows(db, "SELECT count(*) AS n FROM outbox WHERE status = 'pending'");
  const [running] = await sqlRows(db, "SELECT count(*) AS n FROM checks WHERE status IN ('queued', 'running')");
  const sample = {
    atSeconds: Math.round((Date.now() - windowStart.getTime()) / 1000),
    checksStarted: started.length,
    lagMs: { p50: percentile(lags, 50), p99: percentile(lags, 99), max: lags.length ? Math.max(...lags) : null },
    overdueMonitors: Number(overdue.n),
    running: Number(running.n),
    deliveries: delivered.length,
    outboxLagMs: { p50: percentile(outboxLags, 50), p99: percentile(outboxLags, 99), max: outboxLags.length ? Math.max(...outboxLags) : null },
    outboxPending: Number(pending.n),
    loadAverage: Math.round(os.loadavg()[0] * 10) / 10,
  };
  samples.push(sample);
  console.error(JSON.stringify(sample));
  since = now;
}
const workerCpu = processes.map((serve, k) => Math.round((cpuSeconds(serve.child.pid) - cpuBefore[k]) * 10) / 10);
const databaseCpu = Math.round((cpuOfCommand('postgres') - databaseCpuBefore) * 10) / 10;
for (const serve of processes) await serve.stop();
await proxy?.close();

// The scheduler's queries at this size, as the planner runs them.
const explain = async (label, text, ...parameters) => {
  const rows = await sqlRows(db, `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, ...parameters);
  const plan = Object.values(rows[0])[0];
  const top = (Array.isArray(plan) ? plan : JSON.parse(plan))[0];
  return { label, ms: Math.round(top['Execution Time'] * 100) / 100, node: top.Plan['Node Type'], rows: top.Plan['Actual Rows'] };
};
const probe = new Date(windowEnd + 3600_000).toISOString();
const plans = [
  await explain('the next wake-up: min(next_run_at) of active monitors', "SELECT min(next_run_at) FROM monitors WHERE status = 'active'"),
  await explain(
    "the claim's ranking of due monitors, an hour past the window (a backlog of an hour's slots)",
    "SELECT id, team FROM (SELECT id, team, next_run_at, row_number() OVER (PARTITION BY team ORDER BY next_run_at) AS position FROM monitors WHERE status = 'active' AND next_run_at IS NOT NULL AND next_run_at <= ?) ranked WHERE position <= 33 ORDER BY next_run_at",
    probe,
  ),
  await explain(
    'the same at the window end (what is due now)',
    "SELECT id, team FROM (SELECT id, team, next_run_at, row_number() OVER (PARTITION BY team ORDER BY next_run_at) AS position FROM monitors WHERE status = 'active' AND next_run_at IS NOT NULL AND next_run_at <= ?) ranked WHERE position <= 33 ORDER BY next_run_at",
    new Date(windowEnd).toISOString(),
  ),
];
const sizes = await sqlRows(
  db,
  "SELECT relname AS name, pg_total_relation_size(relid) AS bytes, n_live_tup AS rows FROM pg_stat_user_tables WHERE relname IN ('monitors', 'checks', 'page_results', 'snapshots', 'outbox', 'usage') ORDER BY relname",
);
const [totals] = await sqlRows(
  db,
  "SELECT count(*) AS checks, sum(CASE WHEN status = 'completed' THEN 1 ELSE 0 END) AS completed FROM checks WHERE trigger = 'scheduled' AND status != 'skipped_overlap'",
);
await db.close();
await stopPostgresServer();
site.close();
receiver.close();
for (const dir of scratch) rmSync(dir, { recursive: true, force: true });

const allLags = samples.filter((sample) => sample.checksStarted > 0);
const result = {
  date: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
  },
  monitors: COUNT,
  population: { ...population, pagesPerMonitor: Math.round((population.pages / COUNT) * 100) / 100 },
  windowMinutes: WINDOW_MS / 60_000,
  workers: WORKERS,
  checkConcurrencyPerProcess: Number(args['check-concurrency']),
  dbLatencyMsEachWay: Number(args['db-latency-ms']),
  seedSeconds: Math.round(seedSeconds),
  checks: Number(totals.checks),
  completed: Number(totals.completed),
  fetches,
  deliveries,
  checksPerSecond: Math.round((Number(totals.checks) / (WINDOW_MS / 1000)) * 100) / 100,
  worstLagMs: Math.max(0, ...allLags.map((sample) => sample.lagMs.max ?? 0)),
  worstOutboxLagMs: Math.max(0, ...samples.map((sample) => sample.outboxLagMs.max ?? 0)),
  workerCpuSeconds: workerCpu,
  databaseCpuSeconds: databaseCpu,
  plans,
  tables: sizes.map((row) => ({ name: row.name, rows: Number(row.rows), megabytes: Math.round(Number(row.bytes) / 1e5) / 10 })),
  samples,
};
writeFileSync(resolve(ROOT, 'bench/results', args.out), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify({ ...result, samples: undefined }, null, 2));
