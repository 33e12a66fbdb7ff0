#!/usr/bin/env node
/**
 * The measurements of a capacity model, per unit of work: what one monitor check of one page
 * costs in CPU (of the webwatch process, of Chromium, of PostgreSQL) and in writes (rows,
 * transactions, round trips, WAL bytes, table bytes), for pages that are new, unchanged (the same
 * bytes), the same content in new bytes (a nonce), and changed; for checks of ten pages beside
 * checks of one (which tells a check's own cost from its pages'); for pages rendered in the browser
 * (`waitFor: 1000`); for a one-off scrape (POST /v2/scrape) and for a webhook delivery
 * (monitor.check.completed to a local receiver).
 *
 * Checks run the way production runs them: `webwatch serve` as its own process (the scheduler,
 * --check-concurrency 16), on the embedded SQLite file and on PostgreSQL. The bench seeds one-page
 * monitors into the database, then, for each burst, makes one group of them due (next_run_at) and
 * wakes the scheduler (PostgreSQL: NOTIFY on its channel; SQLite: a PATCH of a paused monitor
 * through the API, which is what tells serve's scheduler that monitors changed). The monitors'
 * own schedule is yearly, so that no slot of theirs comes during the run. CPU time comes from
 * /proc: serve's own (all its threads, and its main thread alone), its child processes'
 * (Chromium's tree, with the time of children that ended), and that of every process of the
 * PostgreSQL server (the postmaster's tree). The pages are real ones from trafilatura's evaluation
 * set (gzipped in ../shared/corpus/trafilatura-eval), 16 at the quantiles of the set's sizes,
 * served by this process on 127.0.0.1.
 *
 * On PostgreSQL, per burst: pg_stat_database and pg_stat_user_tables deltas (read after 11 s, the
 * time a backend may hold its counters before it reports them), pg_current_wal_lsn, the
 * statements serve's user ran (pg_stat_statements: the server is restarted once with it preloaded;
 * the pg driver sends one statement per round trip, BEGIN and COMMIT included), table sizes
 * (pg_total_relation_size) and live tuple bytes (pgstattuple, heap and TOAST). On SQLite: the
 * bytes of used pages and of each table and its indexes (dbstat), and row counts.
 *
 * Then, unless --skip-validation: the prediction of the checks per second that bench/serve-workers.mjs
 * --setups sqlite-1 --monitors 1000 reaches, from these per-unit figures, and that run itself.
 *
 * Usage: npm run build && node bench/capacity.mjs [--root DIR] [--repeats 3] [--checks 200]
 *          [--browser-checks 24] [--scrapes 200] [--databases sqlite,postgres] [--check-concurrency 16]
 *          [--skip-validation] [--validate-monitors 1000] [--out capacity.json]
 * --root measures another built tree (e.g. a copy of HEAD made with git archive, built there): its
 * dist/, bin/ and bench/serve-workers.mjs; results are written to this bench's results/.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { procStat, TICK_MS } from './process-cpu.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    root: { type: 'string', default: join(HERE, '..') },
    corpus: { type: 'string', default: join(HERE, '..', '..', 'shared', 'corpus', 'trafilatura-eval') },
    repeats: { type: 'string', default: '3' },
    checks: { type: 'string', default: '200' },
    'browser-checks': { type: 'string', default: '24' },
    scrapes: { type: 'string', default: '200' },
    databases: { type: 'string', default: 'sqlite,postgres' },
    'check-concurrency': { type: 'string', default: '16' },
    'skip-validation': { type: 'boolean', default: false },
    'validate-monitors': { type: 'string', default: '1000' },
    out: { type: 'string', default: 'capacity.json' },
  },
});
const ROOT = resolve(args.root);
const REPEATS = Number(args.repeats);
const CHECKS = Number(args.checks);
const BROWSER_CHECKS = Number(args['browser-checks']);
const SCRAPES = Number(args.scrapes);
const CONCURRENCY = Number(args['check-concurrency']);
const PAGE_COUNT = 16;
/**
 * Pages a monitor of the multi-page groups watches: a check of P pages against a check of one tells a check's own cost from
 * its pages'. Half as many monitors as a one-page burst, so that the database's CPU, counted in 10 ms ticks, still resolves a page.
 */
const PAGES_PER_MULTI = 10;
const MULTI_MONITORS = Math.max(2, Math.round(CHECKS / 2));
/** Scrapes in flight at once through the API. */
const SCRAPE_CONCURRENCY = 8;
/** What a browser check asks for: the page rendered, and read a second after it settled. */
const BROWSER_OPTIONS = { waitFor: 1000 };
/** How long a PostgreSQL backend may keep its counters before it reports them (PGSTAT_IDLE_INTERVAL, 10 s), and a margin. */
const PG_STATS_WAIT_MS = 11_000;

if (!existsSync(join(ROOT, 'dist/src/engine/store/database.js'))) {
  console.error(`no build at ${ROOT}/dist: run npm run build first`);
  process.exit(2);
}
if (!existsSync(join(args.corpus, 'pages'))) {
  console.error(`no trafilatura-eval corpus at ${args.corpus} (give --corpus DIR)`);
  process.exit(2);
}
const { openDatabase } = await import(join(ROOT, 'dist/src/engine/store/database.js'));
const { monitorStore } = await import(join(ROOT, 'dist/src/engine/monitors/monitor-store.js'));
const { normalizeMonitor } = await import(join(ROOT, 'dist/src/spec/monitor.js'));
const { convertPage } = await import(join(ROOT, 'dist/src/engine/scrape/convert.js'));
const { postgresServer, stopPostgresServer, POSTGRES_SKIP } = await import(join(ROOT, 'dist/test/helpers/postgres.js'));
const { startServe } = await import(join(ROOT, 'bench/serve-process.mjs'));
const { default: pg } = await import('pg');
const { default: Sqlite } = await import('better-sqlite3');

const started = Date.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value, digits = 2) => (value === null || value === undefined || Number.isNaN(value) ? null : Math.round(value * 10 ** digits) / 10 ** digits);
const median = (values) => {
  const sorted = values.filter((v) => v !== null && v !== undefined).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const spread = (values) => {
  const kept = values.filter((v) => v !== null && v !== undefined);
  return kept.length ? { median: round(median(kept), 3), min: round(Math.min(...kept), 3), max: round(Math.max(...kept), 3), n: kept.length } : null;
};
const loadavg = () => os.loadavg().map((v) => round(v));
/** The share of the last 10 s in which some runnable task waited for a CPU (/proc/pressure/cpu), in %. */
const cpuPressure = () => {
  try {
    return Number(/some avg10=([\d.]+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'))[1]);
  } catch {
    return null;
  }
};

// ---------------------------------------------------------------------------------------------
// The pages: 16 of trafilatura's evaluation set, at the quantiles of its sizes.

async function choosePages() {
  const dir = join(args.corpus, 'pages');
  const all = readdirSync(dir)
    .filter((name) => name.endsWith('.html.gz'))
    .sort()
    .map((name) => ({ name, bytes: gunzipSync(readFileSync(join(dir, name))).length }));
  all.sort((a, b) => a.bytes - b.bytes || (a.name < b.name ? -1 : 1));
  const picks = Array.from({ length: PAGE_COUNT }, (_, j) => all[Math.floor(((j + 0.5) / PAGE_COUNT) * all.length)]);
  const expected = JSON.parse(readFileSync(join(args.corpus, 'expected.json'), 'utf8'));
  return {
    setSize: all.length,
    setMedianBytes: all[Math.floor(all.length / 2)].bytes,
    pages: await Promise.all(
      picks.map(async ({ name }) => {
        const base = gunzipSync(readFileSync(join(dir, name)));
        const change = await withChange(base, expected[name]?.with ?? []);
        return { name, url: expected[name]?.url, base, changed: change.body, changedAt: change.where, changeInMarkdown: change.seen };
      }),
    ),
  };
}

const SENTENCE = 'Correction: the figure is 4,213, and the meeting is on the ninth of March.';

/**
 * The places where a sentence more changes the page's main content: after the first words of
 * each of the set's `with` segments (the main content's text) found in a text node of its body,
 * as UTF-8 or Latin-1; last, a paragraph after its middle `</p>`.
 */
function* changes(body, segments) {
  const html = body.toString('latin1');
  const lower = html.toLowerCase();
  const bodyAt = Math.max(0, lower.search(/<body[\s>]/));
  // In a text node of the body, not in a tag, a script, a style or a template.
  const inText = (at) =>
    html.lastIndexOf('>', at) > html.lastIndexOf('<', at) &&
    ['script', 'style', 'template', 'noscript'].every((tag) => lower.lastIndexOf(`<${tag}`, at) <= lower.lastIndexOf(`</${tag}`, at));
  for (const segment of segments) {
    const words = segment.split(/\s+/).slice(0, 4).join(' ');
    if (words.length < 12) continue;
    for (const encoding of ['utf8', 'latin1']) {
      const needle = Buffer.from(words, encoding).toString('latin1');
      for (let at = html.indexOf(needle, bodyAt); at >= 0; at = html.indexOf(needle, at + 1)) {
        const end = html.indexOf('<', at);
        if (!inText(at) || end < 0) continue;
        yield { body: Buffer.from(`${html.slice(0, end)} ${SENTENCE}${html.slice(end)}`, 'latin1'), where: 'main text' };
        break;
      }
    }
  }
  const ends = [...html.matchAll(/<\/p>/gi)].map((match) => match.index + match[0].length);
  const at = ends.length ? ends[Math.floor(ends.length / 2)] : Math.max(0, html.search(/<\/body>/i));
  yield { body: Buffer.from(`${html.slice(0, at)}<p>${SENTENCE}</p>${html.slice(at)}`, 'latin1'), where: 'middle paragraph' };
}

/** The first of the page's changes that the engine's own conversion shows in the page's markdown. */
async function withChange(body, segments) {
  let tries = 0;
  let last;
  for (const change of changes(body, segments)) {
    last = change;
    const { markdown } = await convertPage({ body: change.body, contentType: 'text/html', finalUrl: 'http://127.0.0.1/' }, {}, ['markdown']);
    if (markdown.includes('4,213')) return { ...change, seen: true };
    if (++tries >= 30) break;
  }
  return { ...last, seen: false };
}

/** The same page in new bytes: a token in a meta element, as many sites send one per response. */
function withNonce(body) {
  const html = body.toString('latin1');
  const head = /<head[^>]*>/i.exec(html);
  const at = head ? head.index + head[0].length : 0;
  return Buffer.from(`${html.slice(0, at)}<meta name="csrf-token" content="${randomUUID()}">${html.slice(at)}`, 'latin1');
}

const corpus = await choosePages();
const PAGES = corpus.pages;

// The site: /s/<group>/<i> a real page in the group's current phase, /t/<group>/<i> a tiny page
// (the one bench/serve-workers.mjs serves), /x/<group>/<i> a real page for one-off scrapes.
const phases = new Map();
const site = createServer((request, response) => {
  const match = /^\/([stx])\/([\w-]+)\/(\d+)$/.exec(request.url);
  if (!match) return response.writeHead(404).end();
  const [, kind, group, n] = match;
  if (kind === 't')
    return response.writeHead(200, { 'content-type': 'text/html' }).end(`<main><h1>Page ${request.url}</h1><p>Price of ${request.url}: 10</p></main>`);
  const page = PAGES[Number(n) % PAGES.length];
  const phase = kind === 'x' ? 'base' : (phases.get(group) ?? 'base');
  const body = phase === 'changed' ? page.changed : phase === 'nonce' ? withNonce(page.base) : page.base;
  response.writeHead(200, { 'content-type': 'text/html' }).end(body);
});
let delivered = 0;
const receiver = createServer((request, response) => {
  request.resume().on('end', () => {
    delivered++;
    response.writeHead(204).end();
  });
});
await Promise.all([site, receiver].map((server) => new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))));
const siteUrl = `http://127.0.0.1:${site.address().port}`;
const hookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

// ---------------------------------------------------------------------------------------------
// CPU time from /proc.

function processTable() {
  const table = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(`/proc/${entry}/stat`);
    if (stat) table.set(Number(entry), stat);
  }
  return table;
}

function descendants(table, root) {
  const children = new Map();
  for (const [pid, stat] of table) {
    if (!children.has(stat.ppid)) children.set(stat.ppid, []);
    children.get(stat.ppid).push(pid);
  }
  const found = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length) {
    const pid = stack.pop();
    found.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return found;
}

const classes = new Map();
/** What a child process of serve is: Chromium (the browser's tree), or one of serve's own (conversion processes of large pages). */
function classOf(pid) {
  if (!classes.has(pid)) {
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {}
    classes.set(pid, /chrom/i.test(cmdline) ? 'browser' : 'conversion');
  }
  return classes.get(pid);
}

/**
 * CPU ticks so far of serve (all threads; its main thread alone), of each of its child processes'
 * trees, of the PostgreSQL server's tree and of this process. A tree's own + ended ticks only
 * grow: a process that ends moves its ticks to its parent's ended ticks.
 */
function cpuNow(servePid, postmasterPid) {
  const table = processTable();
  const serve = table.get(servePid);
  const main = procStat(`/proc/${servePid}/task/${servePid}/stat`);
  const treeTicks = (root) => [root, ...descendants(table, root)].reduce((total, pid) => total + (table.get(pid)?.own ?? 0) + (table.get(pid)?.ended ?? 0), 0);
  const children = new Map();
  for (const [pid, stat] of table) if (stat.ppid === servePid) children.set(pid, { class: classOf(pid), ticks: treeTicks(pid) });
  // serve's threads by name (node's main thread, V8's workers, libuv's pool...).
  const threads = new Map();
  for (const tid of readdirSync(`/proc/${servePid}/task`)) {
    const stat = procStat(`/proc/${servePid}/task/${tid}/stat`);
    let name = '';
    try {
      name = readFileSync(`/proc/${servePid}/task/${tid}/comm`, 'utf8').trim();
    } catch {}
    if (stat) threads.set(tid, { name: tid === String(servePid) ? 'main' : name, ticks: stat.own });
  }
  const bench = process.cpuUsage();
  return {
    at: performance.now(),
    threads,
    serve: serve.own,
    main: main.own,
    serveEnded: serve.ended,
    children,
    database: postmasterPid ? treeTicks(postmasterPid) : 0,
    bench: (bench.user + bench.system) / 1000,
  };
}

/** CPU ms between two readings, per component. The ticks of a child that ended go to its class (to conversion when none of the children seen ended). */
function cpuDelta(a, b) {
  const byClass = { browser: 0, conversion: 0 };
  for (const [pid, child] of b.children) byClass[child.class] += child.ticks - (a.children.get(pid)?.ticks ?? 0);
  const gone = [...a.children].filter(([pid]) => !b.children.has(pid));
  const ended = b.serveEnded - a.serveEnded;
  if (ended > 0) {
    const before = gone.reduce((total, [, child]) => total + child.ticks, 0);
    if (gone.length === 0) byClass.conversion += ended;
    else for (const [, child] of gone) byClass[child.class] += (ended - before) * (before > 0 ? child.ticks / before : 1 / gone.length);
  }
  const threads = {};
  for (const [tid, thread] of b.threads) {
    const ms = (thread.ticks - (a.threads.get(tid)?.ticks ?? 0)) * TICK_MS;
    if (ms > 0) threads[thread.name] = (threads[thread.name] ?? 0) + ms;
  }
  return {
    seconds: (b.at - a.at) / 1000,
    threads,
    serve: (b.serve - a.serve) * TICK_MS,
    main: (b.main - a.main) * TICK_MS,
    conversion: byClass.conversion * TICK_MS,
    browser: byClass.browser * TICK_MS,
    database: (b.database - a.database) * TICK_MS,
    bench: b.bench - a.bench,
  };
}

const browserProcesses = (reading) => [...reading.children.values()].filter((child) => child.class === 'browser').length;

// ---------------------------------------------------------------------------------------------
// PostgreSQL: pg_stat_statements preloaded (one restart of the helper's server), the bench's own role.

function postgresBin() {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((name) => /^\d+$/.test(name)) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  for (const version of versions) if (existsSync(join(base, version, 'bin', 'pg_ctl'))) return join(base, version, 'bin');
  const found = spawnSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' }).stdout.trim();
  return found ? dirname(found) : undefined;
}

function postgresUser() {
  if (process.getuid?.() !== 0) return {};
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

let statementsEnabled;
/** The helper's server with pg_stat_statements preloaded; returns its data directory. */
async function postgresWithStatements(server) {
  statementsEnabled ??= (async () => {
    const admin = new pg.Client({ connectionString: server.url() });
    await admin.connect();
    const dataDir = (await admin.query('SHOW data_directory')).rows[0].data_directory;
    await admin.query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
    await admin.end();
    // pg_ctl restart starts the server again with the options it was started with (postmaster.opts).
    execFileSync(join(postgresBin(), 'pg_ctl'), ['-D', dataDir, '-m', 'fast', '-w', '-l', join(dirname(dataDir), 'server.log'), 'restart'], {
      stdio: 'ignore',
      ...postgresUser(),
    });
    return dataDir;
  })();
  return statementsEnabled;
}

/** A pg client that counts its statements (each an implicit transaction), with `?` placeholders. */
async function countingClient(connectionString) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  let statements = 0;
  return {
    get statements() {
      return statements;
    },
    async query(text, ...params) {
      statements++;
      let n = 0;
      return client.query(
        text.replace(/\?/g, () => `$${++n}`),
        params,
      );
    },
    end: () => client.end(),
  };
}

const PG_STATS = `SELECT json_build_object(
  'db', (SELECT json_build_object('xacts', xact_commit, 'rollbacks', xact_rollback, 'inserted', tup_inserted, 'updated', tup_updated, 'deleted', tup_deleted)
         FROM pg_stat_database WHERE datname = current_database()),
  'tables', (SELECT json_object_agg(relname, json_build_object('ins', n_tup_ins, 'upd', n_tup_upd, 'hot', n_tup_hot_upd, 'del', n_tup_del))
             FROM pg_stat_user_tables WHERE schemaname = 'public'),
  'lsn', pg_current_wal_lsn()::text,
  'sizes', (SELECT json_object_agg(c.relname, pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind = 'r'),
  'live', (SELECT json_object_agg(c.relname, (SELECT tuple_len FROM pgstattuple(c.oid))
             + CASE WHEN c.reltoastrelid <> 0 THEN (SELECT tuple_len FROM pgstattuple(c.reltoastrelid)) ELSE 0 END)
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'),
  'database', pg_database_size(current_database()),
  'statements', (SELECT json_object_agg(queryid::text, json_build_object('calls', calls, 'rows', rows, 'wal', wal_bytes, 'query', left(regexp_replace(query, '\\s+', ' ', 'g'), 200)))
                 FROM pg_stat_statements WHERE userid = 'webwatch'::regrole AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database()))
) AS s`;

// ---------------------------------------------------------------------------------------------
// One run: a fresh database, its monitors, one `webwatch serve`, and the bursts.

const scratch = [];
const tempDir = (prefix) => {
  const dir = mkdtempSync(join(os.tmpdir(), prefix));
  scratch.push(dir);
  return dir;
};

const YEARLY = { cron: '0 0 1 1 *' };
const GROUPS = () => [
  { group: 'warm', count: Math.min(32, CHECKS), path: 's' },
  { group: 'warmhooks', count: Math.min(16, CHECKS), path: 's', webhook: { url: hookUrl, events: ['monitor.check.completed'] } },
  { group: 'static', count: CHECKS, path: 's' },
  { group: 'tiny', count: CHECKS, path: 't' },
  { group: 'tinyfew', count: Math.max(2, Math.round(CHECKS / 4)), path: 't' },
  { group: 'static10', count: MULTI_MONITORS, path: 's', pages: PAGES_PER_MULTI },
  { group: 'tiny10', count: MULTI_MONITORS, path: 't', pages: PAGES_PER_MULTI },
  { group: 'hooks', count: CHECKS, path: 's', webhook: { url: hookUrl, events: ['monitor.check.completed'] } },
  { group: 'warmbrowser', count: 1, path: 's', scrapeOptions: BROWSER_OPTIONS },
  { group: 'launch', count: 1, path: 's', scrapeOptions: BROWSER_OPTIONS },
  { group: 'browser', count: BROWSER_CHECKS, path: 's', scrapeOptions: BROWSER_OPTIONS },
];

async function seed(location) {
  const db = await openDatabase(location);
  const monitors = monitorStore(db);
  const now = new Date();
  for (const { group, count, path, scrapeOptions, webhook, pages = 1 } of GROUPS()) {
    for (let i = 0; i < count; i++) {
      const urls = Array.from({ length: pages }, (_, j) => `${siteUrl}/${path}/${group}/${i * pages + j}`);
      const target = { type: 'scrape', urls, ...(scrapeOptions && { scrapeOptions }) };
      await monitors.insert(
        'bench',
        normalizeMonitor({ name: `${group}-${i}`, schedule: YEARLY, judgeEnabled: false, retentionDays: 30, targets: [target], ...(webhook && { webhook }) }),
        now,
      );
    }
  }
  // A paused monitor, whose PATCH tells serve's scheduler on SQLite that monitors changed.
  const waker = await monitors.insert(
    'bench',
    normalizeMonitor({ name: 'waker', schedule: YEARLY, targets: [{ type: 'scrape', urls: [`${siteUrl}/t/waker/0`] }] }),
    now,
  );
  await monitors.setStatus('bench', waker.id, 'paused', now);
  await db.query.updateTable('monitors').set({ next_run_at: null }).execute();
  await db.close();
  return waker.id;
}

/** The database side of a run: control statements, the checks of a slot, and the figures of a snapshot. */
async function sqliteSide(path) {
  const raw = new Sqlite(path);
  raw.pragma('busy_timeout = 10000');
  const tables = raw
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all()
    .map((row) => row.name);
  return {
    kind: 'sqlite',
    postmasterPid: undefined,
    async run(text, ...params) {
      return raw.prepare(text).run(...params).changes;
    },
    async rows(text, ...params) {
      return raw.prepare(text).all(...params);
    },
    async snapshot() {
      const pageSize = raw.pragma('page_size', { simple: true });
      const used = (raw.pragma('page_count', { simple: true }) - raw.pragma('freelist_count', { simple: true })) * pageSize;
      const bytes = {};
      for (const row of raw
        .prepare('SELECT m.tbl_name AS t, sum(s.pgsize) AS b FROM dbstat s JOIN sqlite_master m ON m.name = s.name GROUP BY m.tbl_name')
        .all())
        bytes[row.t] = row.b;
      const rowCounts = {};
      for (const table of tables) rowCounts[table] = raw.prepare(`SELECT count(*) AS n FROM "${table}"`).get().n;
      return {
        used,
        bytes,
        rows: rowCounts,
        fileBytes: ['', '-wal'].reduce((total, suffix) => total + (existsSync(path + suffix) ? statSync(path + suffix).size : 0), 0),
      };
    },
    async close() {
      raw.close();
    },
  };
}

async function postgresSide(location, dataDir) {
  const admin = new pg.Client({ connectionString: location });
  await admin.connect();
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await admin.query('CREATE EXTENSION IF NOT EXISTS pgstattuple');
  await admin.query("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'bench') THEN CREATE ROLE bench LOGIN SUPERUSER; END IF; END $$");
  await admin.end();
  const asBench = location.replace('//webwatch@', '//bench@');
  const control = await countingClient(asBench);
  const stats = await countingClient(asBench);
  const postmasterPid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    kind: 'postgres',
    postmasterPid,
    control,
    stats,
    async run(text, ...params) {
      return (await control.query(text, ...params)).rowCount;
    },
    async rows(text, ...params) {
      return (await control.query(text, ...params)).rows;
    },
    async snapshot() {
      return (await stats.query(PG_STATS)).rows[0].s;
    },
    async close() {
      await control.end();
      await stats.end();
    },
  };
}

const sum = (object) => Object.values(object ?? {}).reduce((total, value) => total + value, 0);
const diffOf = (before = {}, after = {}) => Object.fromEntries(Object.keys(after).map((key) => [key, (after[key] ?? 0) - (before[key] ?? 0)]));

/** What a burst wrote, from the snapshots around it: s0 before the bench's own UPDATE, s1 after it, s2 once the counters are in. */
function writesOf(side, s0, s1, s2, own) {
  if (side.kind === 'sqlite') {
    return {
      usedBytes: s2.used - s1.used,
      tableBytes: diffOf(s1.bytes, s2.bytes),
      rows: diffOf(s1.rows, s2.rows),
    };
  }
  const tables = {};
  for (const [name, after] of Object.entries(s2.tables ?? {})) {
    const before = s0.tables?.[name] ?? { ins: 0, upd: 0, hot: 0, del: 0 };
    const entry = { ins: after.ins - before.ins, upd: after.upd - before.upd, hot: after.hot - before.hot, del: after.del - before.del };
    // The bench's UPDATE of next_run_at is not the checks'.
    if (name === 'monitors') entry.upd -= own.monitorsUpdated;
    if (name === 'outbox') entry.ins -= own.outboxInserted ?? 0;
    if (entry.ins || entry.upd || entry.del) tables[name] = entry;
  }
  const statements = {};
  for (const [id, after] of Object.entries(s2.statements ?? {})) {
    const calls = after.calls - (s1.statements?.[id]?.calls ?? 0);
    if (calls > 0)
      statements[id] = { calls, rows: after.rows - (s1.statements?.[id]?.rows ?? 0), wal: after.wal - (s1.statements?.[id]?.wal ?? 0), query: after.query };
  }
  return {
    // The bench's own statements in the window are transactions too: its control connection's, and two snapshots'.
    xacts: s2.db.xacts - s0.db.xacts - own.statements,
    rollbacks: s2.db.rollbacks - s0.db.rollbacks,
    inserted: s2.db.inserted - s0.db.inserted - (own.outboxInserted ?? 0),
    updated: s2.db.updated - s0.db.updated - own.monitorsUpdated,
    deleted: s2.db.deleted - s0.db.deleted,
    tables,
    userRows: {
      ins: sum(Object.fromEntries(Object.entries(tables).map(([k, v]) => [k, v.ins]))),
      upd: sum(Object.fromEntries(Object.entries(tables).map(([k, v]) => [k, v.upd]))),
      del: sum(Object.fromEntries(Object.entries(tables).map(([k, v]) => [k, v.del]))),
    },
    walBytes: own.walBytes,
    statements: sum(Object.fromEntries(Object.entries(statements).map(([k, v]) => [k, v.calls]))),
    statementWalBytes: sum(Object.fromEntries(Object.entries(statements).map(([k, v]) => [k, v.wal]))),
    topStatements: Object.values(statements)
      .sort((a, b) => b.calls - a.calls)
      .slice(0, 12),
    tableBytes: diffOf(s1.sizes, s2.sizes),
    liveBytes: diffOf(s1.live, s2.live),
    databaseBytes: s2.database - s1.database,
  };
}

/** pg_wal_lsn_diff(b, a), worked out here so that the bench runs no statement of its own for it. */
const lsnDiff = (a, b) => {
  const value = (lsn) => {
    const [high, low] = lsn.split('/');
    return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
  };
  return Number(value(b) - value(a));
};

async function waitFor(condition, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

let lastSlot = 0;
/** A slot time no burst has used, just past. */
function nextSlot() {
  const at = Math.max(Date.now() - 1000, lastSlot + 1);
  lastSlot = at;
  return new Date(at).toISOString();
}

async function runRepeat(kind, repeat) {
  const home = tempDir('webwatch-capacity-home-');
  let location;
  let dataDir;
  if (kind === 'postgres') {
    const server = await postgresServer();
    dataDir = await postgresWithStatements(server);
    location = await server.createDatabase();
  } else location = join(tempDir('webwatch-capacity-'), 'webwatch.db');
  const wakerId = await seed(location);
  const side = kind === 'postgres' ? await postgresSide(location, dataDir) : await sqliteSide(location);
  const env = { ...process.env, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config'), WEBWATCH_DATABASE_URL: location };
  delete env.NODE_OPTIONS;
  const { server, base, headers } = await startServe(join(ROOT, 'bin/webwatch.js'), env, ['--check-concurrency', String(CONCURRENCY)]);
  const servePid = server.pid;
  const cpu = () => cpuNow(servePid, side.postmasterPid);
  const wake =
    kind === 'postgres'
      ? () => side.run("SELECT pg_notify('webwatch_schedule', '')")
      : async () => {
          const response = await fetch(`${base}/monitor/${wakerId}`, { method: 'PATCH', headers, body: JSON.stringify({ status: 'paused' }) });
          if (!response.ok) throw new Error(`waking the scheduler: ${response.status} ${await response.text()}`);
        };
  if (kind === 'postgres') await sleep(PG_STATS_WAIT_MS); // the seeding's counters are in
  const results = [];

  // Idle: what serve (and PostgreSQL) spend with nothing to do, subtracted from each window.
  const idle0 = cpu();
  await sleep(10_000);
  const idle = cpuDelta(idle0, cpu());
  const idleRate = Object.fromEntries(['serve', 'main', 'conversion', 'browser', 'database', 'bench'].map((key) => [key, idle[key] / idle.seconds]));

  const browserClosed = () => waitFor(async () => browserProcesses(cpu()) === 0, 30_000, 'the browser to close');

  async function burst(label, group, count, phase, { hooks = false, browser = false } = {}) {
    if (browser) await browserClosed();
    phases.set(group, phase);
    delivered = 0;
    const load = loadavg();
    const pressure = cpuPressure();
    const s0 = await side.snapshot();
    const slot = nextSlot();
    const ownBefore = side.control?.statements ?? 0;
    const monitorsUpdated = await side.run('UPDATE monitors SET next_run_at = ? WHERE name LIKE ?', slot, `${group}-%`);
    if (monitorsUpdated !== count) throw new Error(`${label}: ${monitorsUpdated} monitors made due, not ${count}`);
    const s1 = await side.snapshot();
    const c0 = cpu();
    await wake();
    const done = async () => {
      const [{ n }] = await side.rows("SELECT count(*) AS n FROM checks WHERE scheduled_for = ? AND status IN ('completed', 'partial', 'failed')", slot);
      return Number(n) >= count && (!hooks || delivered >= count);
    };
    await waitFor(done, 15 * 60_000, `${label}'s checks`);
    // The last checks' pruning and the scheduler's last round come after a check is finished.
    await sleep(500);
    const c1 = cpu();
    const statuses = Object.fromEntries(
      (
        await side.rows(
          'SELECT pr.status AS status, count(*) AS n FROM page_results pr JOIN checks c ON c.id = pr.check_id WHERE c.scheduled_for = ? GROUP BY pr.status',
          slot,
        )
      ).map((row) => [row.status, Number(row.n)]),
    );
    const [span] = await side.rows(
      "SELECT min(started_at) AS first, max(finished_at) AS last, sum(CASE WHEN status <> 'completed' THEN 1 ELSE 0 END) AS failed FROM checks WHERE scheduled_for = ?",
      slot,
    );
    if (kind === 'postgres') await sleep(PG_STATS_WAIT_MS);
    const s2 = await side.snapshot();
    // The bench's own part of the window: its UPDATE of next_run_at (rows, WAL), its control statements and two snapshots (transactions).
    const own = {
      monitorsUpdated,
      statements: (side.control?.statements ?? 0) - ownBefore + 2,
      ...(kind === 'postgres' && { walBytes: lsnDiff(s1.lsn, s2.lsn), ownUpdateWal: lsnDiff(s0.lsn, s1.lsn) }),
    };
    return record({ label, group, count, slot, load, pressure, c0, c1, s0, s1, s2, own, statuses, span });
  }

  async function scrapeBurst(label, group, count) {
    const load = loadavg();
    const pressure = cpuPressure();
    const s0 = await side.snapshot();
    const c0 = cpu();
    let next = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: SCRAPE_CONCURRENCY }, async () => {
        while (next < count) {
          const i = next++;
          const response = await fetch(`${base}/scrape`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ url: `${siteUrl}/x/${group}/${i}`, formats: ['markdown'] }),
          });
          if (!response.ok) failed++;
          await response.arrayBuffer();
        }
      }),
    );
    await sleep(500);
    const c1 = cpu();
    if (kind === 'postgres') await sleep(PG_STATS_WAIT_MS);
    const s2 = await side.snapshot();
    const own = { monitorsUpdated: 0, statements: 1, ...(kind === 'postgres' && { walBytes: lsnDiff(s0.lsn, s2.lsn) }) };
    return record({ label, group, count, load, pressure, c0, c1, s0, s1: s0, s2, own, statuses: { scraped: count - failed, failed }, span: undefined });
  }

  /**
   * Deliveries alone: copies of a delivered monitor.check.completed row put back in the outbox as
   * pending (the bench's INSERT, outside the CPU window), found by serve's delivery loop within its
   * 5 s poll, posted to the receiver and recorded as delivered.
   */
  async function deliveryBurst(label, count) {
    const [template] = await side.rows("SELECT * FROM outbox WHERE status = 'delivered' AND event = 'monitor.check.completed' LIMIT 1");
    const load = loadavg();
    const pressure = cpuPressure();
    delivered = 0;
    const s0 = await side.snapshot();
    const ownBefore = side.control?.statements ?? 0;
    const now = new Date(Date.now() - 1000).toISOString();
    const columns = Object.keys(template).filter((column) => column !== 'seq');
    const fresh = (row) =>
      columns.map((column) =>
        column === 'id'
          ? randomUUID()
          : column === 'status'
            ? 'pending'
            : column === 'attempts'
              ? 0
              : ['next_attempt_at', 'created_at'].includes(column)
                ? now
                : ['last_error', 'delivered_at', 'lease_owner', 'lease_expires_at'].includes(column)
                  ? null
                  : row[column],
      );
    let inserted = 0;
    for (let start = 0; start < count; start += 50) {
      const n = Math.min(50, count - start);
      const values = Array.from({ length: n }, () => `(${columns.map(() => '?').join(', ')})`).join(', ');
      inserted += await side.run(`INSERT INTO outbox (${columns.join(', ')}) VALUES ${values}`, ...Array.from({ length: n }, () => fresh(template)).flat());
    }
    const s1 = await side.snapshot();
    const c0 = cpu();
    await waitFor(async () => delivered >= count, 120_000, `${label}'s deliveries`);
    await waitFor(async () => Number((await side.rows("SELECT count(*) AS n FROM outbox WHERE status = 'pending'"))[0].n) === 0, 60_000, `${label}'s records`);
    await sleep(500);
    const c1 = cpu();
    if (kind === 'postgres') await sleep(PG_STATS_WAIT_MS);
    const s2 = await side.snapshot();
    const own = {
      monitorsUpdated: 0,
      outboxInserted: inserted,
      statements: (side.control?.statements ?? 0) - ownBefore + 2,
      ...(kind === 'postgres' && { walBytes: lsnDiff(s1.lsn, s2.lsn) }),
    };
    return record({ label, group: 'outbox', count, load, pressure, c0, c1, s0, s1, s2, own, statuses: { delivered }, span: undefined });
  }

  function record({ label, group, count, slot, load, pressure, c0, c1, s0, s1, s2, own, statuses, span }) {
    const window = cpuDelta(c0, c1);
    const net = (key) => window[key] - idleRate[key] * window.seconds;
    const perCheck = (value) => round(value / count, 3);
    const writes = writesOf(side, s0, s1, s2, own);
    const perCheckWrites =
      kind === 'sqlite'
        ? {
            usedBytes: perCheck(writes.usedBytes),
            rows: Object.fromEntries(
              Object.entries(writes.rows)
                .filter(([, v]) => v)
                .map(([k, v]) => [k, perCheck(v)]),
            ),
          }
        : {
            xacts: perCheck(writes.xacts),
            rollbacks: perCheck(writes.rollbacks),
            rowsInserted: perCheck(writes.userRows.ins),
            rowsUpdated: perCheck(writes.userRows.upd),
            rowsDeleted: perCheck(writes.userRows.del),
            allRowsInserted: perCheck(writes.inserted),
            allRowsUpdated: perCheck(writes.updated),
            statements: perCheck(writes.statements),
            walBytes: perCheck(writes.walBytes),
            statementWalBytes: perCheck(writes.statementWalBytes),
            tableBytes: perCheck(sum(writes.tableBytes)),
            liveBytes: perCheck(sum(writes.liveBytes)),
            databaseBytes: perCheck(writes.databaseBytes),
          };
    const seconds = span?.first ? (Date.parse(span.last) - Date.parse(span.first)) / 1000 : window.seconds - 0.5;
    const result = {
      database: kind,
      repeat,
      label,
      group,
      count,
      slot,
      loadavgBefore: load,
      cpuPressureBefore: pressure,
      statuses,
      failedChecks: span ? Number(span.failed) : undefined,
      seconds: round(seconds, 2),
      perSecond: round(count / seconds, 1),
      cpuMsPerUnit: {
        webwatch: perCheck(net('serve') + net('conversion')),
        webwatchMainThread: perCheck(net('main')),
        webwatchOtherThreads: perCheck(net('serve') - net('main')),
        webwatchConversionProcesses: perCheck(net('conversion')),
        browser: perCheck(net('browser')),
        database: kind === 'postgres' ? perCheck(net('database')) : null,
        benchProcess: perCheck(net('bench')),
      },
      webwatchThreadsMsPerUnit: Object.fromEntries(Object.entries(window.threads).map(([name, ms]) => [name, perCheck(ms)])),
      writesPerUnit: perCheckWrites,
      writes,
      ...(kind === 'postgres' && { ownUpdateWalBytes: own.ownUpdateWal }),
    };
    console.log(
      `${kind} #${repeat} ${label.padEnd(22)} ${String(count).padStart(4)}  webwatch ${String(result.cpuMsPerUnit.webwatch).padStart(8)} ms (main ${result.cpuMsPerUnit.webwatchMainThread}, conversion processes ${result.cpuMsPerUnit.webwatchConversionProcesses})  browser ${result.cpuMsPerUnit.browser}  db ${result.cpuMsPerUnit.database}  ${JSON.stringify(statuses)}  ${result.perSecond}/s  load ${load[0]}, pressure ${pressure} %`,
    );
    results.push(result);
    return result;
  }

  try {
    // Warm-up: the code paths of every kind run once before anything is measured.
    await burst('warm-new', 'warm', Math.min(32, CHECKS), 'base');
    await burst('warm-changed', 'warm', Math.min(32, CHECKS), 'changed');
    await burst('warm-same-content', 'warm', Math.min(32, CHECKS), 'nonce');
    await burst('warm-unchanged', 'warm', Math.min(32, CHECKS), 'nonce');
    await burst('warm-hooks', 'warmhooks', Math.min(16, CHECKS), 'base', { hooks: true });
    await scrapeBurst('warm-scrape', 'warm', 16);

    await burst('static-new', 'static', CHECKS, 'base');
    await burst('static-unchanged', 'static', CHECKS, 'base');
    await burst('static-same-content', 'static', CHECKS, 'nonce');
    await burst('static-changed', 'static', CHECKS, 'changed');
    await burst('tiny-new', 'tiny', CHECKS, 'base');
    await burst('tiny-unchanged', 'tiny', CHECKS, 'base');
    // A quarter as many due at once: what a check costs beside the number of monitors due with it.
    await burst('tiny-new-quarter', 'tinyfew', Math.max(2, Math.round(CHECKS / 4)), 'base');
    // Checks of ten pages each: the pages' share apart from the check's.
    await burst('static10-new', 'static10', MULTI_MONITORS, 'base');
    await burst('static10-unchanged', 'static10', MULTI_MONITORS, 'base');
    await burst('tiny10-new', 'tiny10', MULTI_MONITORS, 'base');
    await burst('tiny10-unchanged', 'tiny10', MULTI_MONITORS, 'base');
    await burst('hooks-new', 'hooks', CHECKS, 'base', { hooks: true });
    await burst('hooks-unchanged', 'hooks', CHECKS, 'base', { hooks: true });
    await deliveryBurst('delivery', CHECKS * 2);
    await scrapeBurst('scrape', `scrape-${repeat}`, SCRAPES);
    if (BROWSER_CHECKS > 1) {
      // The first browser page of the process also loads the browser's code and the ad blocker's lists: once, apart.
      await burst('warm-browser', 'warmbrowser', 1, 'base', { browser: true });
      await burst('browser-launch', 'launch', 1, 'base', { browser: true });
      await burst('browser-new', 'browser', BROWSER_CHECKS, 'base', { browser: true });
      await burst('browser-unchanged', 'browser', BROWSER_CHECKS, 'base', { browser: true });
      await burst('browser-changed', 'browser', BROWSER_CHECKS, 'changed', { browser: true });
    }
  } finally {
    await server.kill('SIGTERM');
    await new Promise((resolve) => (server.exitCode !== null ? resolve() : server.once('exit', resolve)));
    await side.close();
  }
  return { idleMsPerSecond: Object.fromEntries(Object.entries(idleRate).map(([k, v]) => [k, round(v, 2)])), results };
}

// ---------------------------------------------------------------------------------------------
// The runs, and the figures across repeats.

const machine = {
  cpu: os.cpus()[0]?.model,
  cores: os.cpus().length,
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  os: `${os.type()} ${os.release()}`,
  distribution: (() => {
    try {
      return /PRETTY_NAME="([^"]+)"/.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];
    } catch {
      return undefined;
    }
  })(),
  postgres: (() => {
    const bin = postgresBin();
    return bin ? spawnSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).stdout.trim() : undefined;
  })(),
  chromium: (() => {
    for (const path of ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium-headless-shell']) {
      if (existsSync(path)) return spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout.trim() || path;
    }
    return undefined;
  })(),
  loadavgAtStart: loadavg(),
  cpuPressureAtStart: cpuPressure(),
};

function codeOf(root) {
  const git = (...command) => spawnSync('git', ['-C', root, ...command], { encoding: 'utf8' });
  const head = git('rev-parse', 'HEAD');
  if (head.status === 0 && resolve(git('rev-parse', '--show-toplevel').stdout.trim()) === root) {
    const dirty = git('status', '--porcelain', '--', 'src', 'bin', 'build', 'package.json').stdout.split('\n').filter(Boolean);
    return { root, commit: head.stdout.trim(), uncommittedOutsideBench: dirty };
  }
  const label = existsSync(join(root, '.commit')) ? readFileSync(join(root, '.commit'), 'utf8').trim() : undefined;
  return { root, commit: label ?? 'unknown (not a git checkout, and no .commit file)', uncommittedOutsideBench: [] };
}

const runs = [];
const databases = args.databases.split(',').filter((kind) => {
  if (kind === 'postgres' && POSTGRES_SKIP) console.error(`skipping postgres: ${POSTGRES_SKIP}`);
  return kind !== 'postgres' || !POSTGRES_SKIP;
});
// Repeats of the two databases in turn, so that a busy spell of the machine falls on both alike.
for (let repeat = 1; repeat <= REPEATS; repeat++)
  for (const kind of databases)
    runs.push({ database: kind, repeat, startedAt: new Date().toISOString(), loadavg: loadavg(), ...(await runRepeat(kind, repeat)) });
await stopPostgresServer();
const results = runs.flatMap((run) => run.results);

const KINDS = [
  'static-new',
  'static-unchanged',
  'static-same-content',
  'static-changed',
  'tiny-new',
  'tiny-unchanged',
  'tiny-new-quarter',
  'static10-new',
  'static10-unchanged',
  'tiny10-new',
  'tiny10-unchanged',
  'hooks-new',
  'hooks-unchanged',
  'delivery',
  'scrape',
  'browser-launch',
  'browser-new',
  'browser-unchanged',
  'browser-changed',
];
const CPU_KEYS = ['webwatch', 'webwatchMainThread', 'webwatchOtherThreads', 'webwatchConversionProcesses', 'browser', 'database', 'benchProcess'];
const PG_KEYS = [
  'xacts',
  'rowsInserted',
  'rowsUpdated',
  'rowsDeleted',
  'allRowsInserted',
  'allRowsUpdated',
  'statements',
  'walBytes',
  'statementWalBytes',
  'tableBytes',
  'liveBytes',
  'databaseBytes',
];

const of = (database, label) => results.filter((result) => result.database === database && result.label === label);
const summary = {};
for (const database of [...new Set(results.map((result) => result.database))]) {
  summary[database] = {};
  for (const label of KINDS) {
    const rows = of(database, label);
    if (rows.length === 0) continue;
    const entry = {
      count: rows[0].count,
      statuses: rows.map((row) => row.statuses),
      perSecond: spread(rows.map((row) => row.perSecond)),
      cpuMsPerUnit: Object.fromEntries(CPU_KEYS.map((key) => [key, spread(rows.map((row) => row.cpuMsPerUnit[key]))])),
    };
    if (database === 'postgres') entry.writesPerUnit = Object.fromEntries(PG_KEYS.map((key) => [key, spread(rows.map((row) => row.writesPerUnit[key]))]));
    else entry.writesPerUnit = { usedBytes: spread(rows.map((row) => row.writesPerUnit.usedBytes)) };
    summary[database][label] = entry;
  }
}

// Derived figures, per repeat and then across repeats.
const derived = {};
for (const database of Object.keys(summary)) {
  const d = (derived[database] = {});
  const pair = (labelA, labelB, pick) =>
    spread(
      of(database, labelA).map((row) => {
        const other = of(database, labelB).find((candidate) => candidate.repeat === row.repeat);
        return other ? pick(row) - pick(other) : null;
      }),
    );
  // A webhook delivery: a check with its monitor.check.completed webhook, less the same check without.
  d.webhookDelivery = {
    cpuMs: Object.fromEntries(CPU_KEYS.map((key) => [key, pair('hooks-unchanged', 'static-unchanged', (row) => row.cpuMsPerUnit[key])])),
    ...(database === 'postgres'
      ? { writes: Object.fromEntries(PG_KEYS.map((key) => [key, pair('hooks-unchanged', 'static-unchanged', (row) => row.writesPerUnit[key])])) }
      : { writes: { usedBytes: pair('hooks-unchanged', 'static-unchanged', (row) => row.writesPerUnit.usedBytes) } }),
  };
  // A check's own cost and a page's: a check of P pages costs check + P x page, a check of one page check + page.
  d.checkAndPage = {};
  for (const [single, multi] of [
    ['static-new', 'static10-new'],
    ['static-unchanged', 'static10-unchanged'],
    ['tiny-new', 'tiny10-new'],
    ['tiny-unchanged', 'tiny10-unchanged'],
  ]) {
    if (!of(database, multi).length) continue;
    const split = (value) => (key) => {
      const pages = of(database, multi).map((row) => {
        const one = of(database, single).find((candidate) => candidate.repeat === row.repeat);
        if (!one || value(row, key) === null || value(one, key) === null) return null;
        const page = (value(row, key) - value(one, key)) / (PAGES_PER_MULTI - 1);
        return { page, check: value(one, key) - page };
      });
      return [key, { page: spread(pages.map((x) => x?.page)), check: spread(pages.map((x) => x?.check)) }];
    };
    const cpu = (row, key) => row.cpuMsPerUnit[key];
    const write = (row, key) => row.writesPerUnit[key] ?? null;
    d.checkAndPage[single] = {
      cpuMs: Object.fromEntries(['webwatch', 'webwatchMainThread', 'webwatchConversionProcesses', 'database'].map(split(cpu))),
      writes: Object.fromEntries(
        (database === 'postgres' ? ['statements', 'allRowsInserted', 'walBytes', 'tableBytes', 'liveBytes'] : ['usedBytes']).map(split(write)),
      ),
    };
  }
  // The browser's launch, apart from its pages: every browser burst starts the browser (it closes after 10 s idle);
  // a burst of 1 page (launch + 1 page) against one of N (launch + N pages) tells the two apart.
  if (of(database, 'browser-launch').length) {
    const split = (repeat, key) => {
      const one = of(database, 'browser-launch').find((row) => row.repeat === repeat);
      const fresh = of(database, 'browser-new').find((row) => row.repeat === repeat);
      if (!one || !fresh || one.cpuMsPerUnit[key] === null) return undefined;
      const page = (fresh.cpuMsPerUnit[key] * fresh.count - one.cpuMsPerUnit[key]) / (fresh.count - 1);
      return { page, launch: one.cpuMsPerUnit[key] - page };
    };
    const components = ['webwatch', 'browser', 'database'];
    d.browserLaunchCpuMs = Object.fromEntries(
      components.map((key) => [key, spread(of(database, 'browser-launch').map((row) => split(row.repeat, key)?.launch))]),
    );
    d.browserPerPageWithoutLaunchCpuMs = Object.fromEntries(
      ['browser-new', 'browser-unchanged', 'browser-changed'].map((label) => [
        label,
        Object.fromEntries(
          components.map((key) => [
            key,
            spread(
              of(database, label).map((row) => {
                const parts = split(row.repeat, key);
                return parts && row.cpuMsPerUnit[key] !== null ? (row.cpuMsPerUnit[key] * row.count - parts.launch) / row.count : null;
              }),
            ),
          ]),
        ),
      ]),
    );
  }
}

// Bytes per retained day of one monitor-page checked every 5 minutes (288 checks a day).
const CHECKS_PER_DAY = 288;
const retained = {};
for (const database of Object.keys(summary)) {
  retained[database] = {};
  for (const label of [
    'static-unchanged',
    'static-same-content',
    'static-changed',
    'tiny-unchanged',
    'hooks-unchanged',
    'browser-unchanged',
    'browser-changed',
  ]) {
    const entry = summary[database][label];
    if (!entry) continue;
    const w = entry.writesPerUnit;
    retained[database][label] =
      database === 'postgres'
        ? {
            tableBytesPerDay: round(w.tableBytes.median * CHECKS_PER_DAY, 0),
            liveBytesPerDay: round(w.liveBytes.median * CHECKS_PER_DAY, 0),
            walBytesPerDay: round(w.walBytes.median * CHECKS_PER_DAY, 0),
            rowsInsertedPerDay: round(w.rowsInserted.median * CHECKS_PER_DAY, 0),
          }
        : { usedBytesPerDay: round(w.usedBytes.median * CHECKS_PER_DAY, 0) };
  }
}

// ---------------------------------------------------------------------------------------------
// The validation: bench/serve-workers.mjs --setups sqlite-1, predicted from the figures above, then run.

let validation;
if (!args['skip-validation'] && summary.sqlite?.['tiny-new']) {
  const monitors = Number(args['validate-monitors']);
  const tiny = summary.sqlite['tiny-new'];
  const quarter = summary.sqlite['tiny-new-quarter'];
  // A check's cost beside the number of monitors due with it (each claiming round reads the due ones): a line through the two bursts.
  const at = (key, due) => {
    // Never falling with more due: a negative slope is the measurement's noise.
    const slope = quarter ? Math.max(0, (tiny.cpuMsPerUnit[key].median - quarter.cpuMsPerUnit[key].median) / (tiny.count - quarter.count)) : 0;
    return tiny.cpuMsPerUnit[key].median + slope * (due - tiny.count);
  };
  const model = (due) => {
    const main = at('webwatchMainThread', due);
    const all = at('webwatch', due) + at('benchProcess', due);
    // serve does a check's work on its main thread (SQLite's calls, the conversion of small pages); its other
    // threads (garbage collection, libuv) and the site and bench run beside it on the other core.
    return {
      mainMs: round(main, 3),
      allMs: round(all, 3),
      mainBound: round(1000 / main, 1),
      coresBound: round((os.cpus().length * 1000) / all, 1),
      checksPerSecond: round(Math.min(1000 / main, (os.cpus().length * 1000) / all), 1),
    };
  };
  const flat = model(tiny.count);
  const predictedModel = model(monitors);
  const predicted = predictedModel.checksPerSecond;
  console.log(`validation: predicted ${predicted} checks/s at ${monitors} due (${flat.checksPerSecond} from the ${tiny.count}-monitor figure alone)`);
  const script = join(ROOT, 'bench/serve-workers.mjs');
  const resultsFile = join(ROOT, 'bench/results/serve-workers.json');
  const kept = existsSync(resultsFile) ? readFileSync(resultsFile) : undefined;
  const load = loadavg();
  const child = spawn(process.execPath, [script, '--setups', 'sqlite-1', '--monitors', String(monitors), '--check-concurrency', String(CONCURRENCY)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: (() => {
      const env = { ...process.env };
      delete env.NODE_OPTIONS;
      return env;
    })(),
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  // serve's CPU through the run, sampled from /proc (its main thread apart).
  const samples = [];
  const sampler = setInterval(() => {
    const table = processTable();
    for (const pid of descendants(table, child.pid)) {
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {}
      if (!cmdline.includes('webwatch.js') || !cmdline.includes('serve')) continue;
      const main = procStat(`/proc/${pid}/task/${pid}/stat`);
      if (main)
        samples.push({ at: performance.now(), serve: table.get(pid).own * TICK_MS, main: main.own * TICK_MS, bench: table.get(child.pid).own * TICK_MS });
    }
  }, 250);
  const code = await new Promise((resolve) => child.on('exit', resolve));
  clearInterval(sampler);
  if (kept) writeFileSync(resultsFile, kept);
  const measured = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))[0];
  // The burst: the samples where serve used more than a third of a core.
  let burstCpu;
  // Past serve's start-up (the slot comes 15 s after the seeding, serve starts right after it).
  const settled = samples.length ? samples[0].at + 5000 : 0;
  const busy = samples
    .map((sample, i) => (i > 0 && sample.at > settled && (sample.serve - samples[i - 1].serve) / (sample.at - samples[i - 1].at) > 0.33 ? i : -1))
    .filter((i) => i > 0);
  if (busy.length) {
    const [first, last] = [samples[busy[0] - 1], samples[busy.at(-1)]];
    burstCpu = {
      seconds: round((last.at - first.at) / 1000, 2),
      webwatchMsPerCheck: round((last.serve - first.serve) / monitors, 3),
      webwatchMainThreadMsPerCheck: round((last.main - first.main) / monitors, 3),
      benchProcessMsPerCheck: round((last.bench - first.bench) / monitors, 3),
      // How much of the burst's wall time serve's main thread was busy.
      mainThreadBusyShare: round((last.main - first.main) / (last.at - first.at), 3),
    };
  }
  validation = {
    run: `node bench/serve-workers.mjs --setups sqlite-1 --monitors ${monitors} --check-concurrency ${CONCURRENCY}`,
    exitCode: code,
    loadavgBefore: load,
    predictedFrom: `tiny-new (${tiny.count} due at once) and tiny-new-quarter (${quarter?.count} due) on SQLite: the page serve-workers serves, and each of its checks is a first check; the cost per check on a line through the two, at ${monitors} due`,
    predicted: predictedModel,
    predictedWithoutDueCountTerm: flat,
    measured: measured && {
      checksPerSecond: measured.checksPerSecond,
      burstSeconds: measured.burstSeconds,
      checks: measured.checks,
      failed: measured.failed,
      startLatenessMs: measured.startLatenessMs,
    },
    measuredCpuInBurst: burstCpu,
    ratio: measured ? round(measured.checksPerSecond / predicted, 3) : null,
  };
  console.log(`validation: measured ${measured?.checksPerSecond} checks/s; ${JSON.stringify(burstCpu)}`);
}

site.close();
receiver.close();
for (const dir of scratch) rmSync(dir, { recursive: true, force: true });

const output = {
  date: new Date().toISOString(),
  runSeconds: Math.round((Date.now() - started) / 1000),
  machine: { ...machine, loadavgAtEnd: loadavg(), cpuPressureAtEnd: cpuPressure() },
  code: codeOf(ROOT),
  settings: {
    checksPerBurst: CHECKS,
    browserChecksPerBurst: BROWSER_CHECKS,
    scrapes: SCRAPES,
    scrapeConcurrency: SCRAPE_CONCURRENCY,
    repeats: REPEATS,
    checkConcurrency: CONCURRENCY,
    browserOptions: BROWSER_OPTIONS,
    monitorSchedule: YEARLY.cron,
    serve: 'webwatch serve as a process (bench/serve-process.mjs), scheduled checks woken per burst',
    postgres:
      "the test helper's server (fsync, synchronous_commit and full_page_writes off), restarted once with pg_stat_statements preloaded; counters read 11 s after each burst",
  },
  pages: {
    source: 'trafilatura-eval (../shared/corpus/trafilatura-eval/pages/*.html.gz), 16 pages at the quantiles of the sizes of its 949',
    setMedianBytes: corpus.setMedianBytes,
    picks: PAGES.map((page) => ({
      name: page.name,
      url: page.url,
      bytes: page.base.length,
      changeInserted: page.changedAt,
      changeInMarkdown: page.changeInMarkdown,
    })),
    meanBytes: Math.round(PAGES.reduce((total, page) => total + page.base.length, 0) / PAGES.length),
  },
  runs: runs.map((run) => ({
    database: run.database,
    repeat: run.repeat,
    startedAt: run.startedAt,
    loadavg: run.loadavg,
    idleMsPerSecond: run.idleMsPerSecond,
  })),
  summary,
  derived,
  bytesPerRetainedDay: { schedule: '*/5 * * * * (288 checks a day per monitor-page)', retentionDaysDefault: 30, ...retained },
  validation,
  bursts: results,
};
writeFileSync(join(HERE, 'results', args.out), `${JSON.stringify(output, null, 2)}\n`);
console.log(`wrote bench/results/${args.out} (${output.runSeconds} s)`);
