#!/usr/bin/env node
// Load on `webwatch serve` from a separate process: autocannon at 50 connections against
// GET /v2/monitor (a team with 20 monitors) and a cached POST /v2/scrape (a page fetched once,
// then answered from the scrape cache), beside a bare node:http server that answers the same
// bytes with no work at all, in the same run. Absolute figures depend on the machine and on
// what else it does; the ratio to the bare server is what holds from one machine to the next.
// With --against DIR, the serve of another build (a checkout with its own dist/) is loaded in
// the same run, each route interleaved: serve, the other build, the bare server, three times.
// Goals (issue: serve, round two): monitor list >= 5,000 req/s with p99 < 25 ms, cached
// scrape >= 10,000 req/s with p99 < 15 ms, at 50 connections on the 2-core bench machine.
// Each serve's CPU time per request is reported beside its throughput (Linux): it holds when other
// processes share the cores, where requests a second do not.
// Usage: npm run build && node bench/serve-load.mjs [--seconds 10] [--rounds 3] [--against DIR] [--routes list,scrape]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startServe } from './serve-process.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const flag = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const seconds = Number(flag('--seconds', 10)) || 10;
const rounds = Number(flag('--rounds', 3)) || 3;
const against = flag('--against', undefined);

// The page the scrape asks for, served once into each serve's cache.
const site = createServer((_request, response) =>
  response.writeHead(200, { 'content-type': 'text/html' }).end('<main><h1>Cached</h1><p>A page answered from the scrape cache.</p></main>'),
);
await new Promise((done) => site.listen(0, '127.0.0.1', done));
const pageUrl = `http://127.0.0.1:${site.address().port}/page`;
const scrapeBody = JSON.stringify({ url: pageUrl, maxAge: 3_600_000 });

/** A serve of the build at `dir` on a fresh home, with a key, 20 monitors and the page cached. */
async function startBuild(dir) {
  const bin = join(dir, 'bin/webwatch.js');
  const home = mkdtempSync(join(tmpdir(), 'webwatch-serve-load-'));
  const env = { ...process.env, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') };
  const { server, base, headers } = await startServe(bin, env, ['--concurrency', '1000']);
  for (let i = 0; i < 20; i++) {
    const body = { name: `Monitor ${i}`, schedule: { cron: '0 * * * *' }, targets: [{ type: 'scrape', urls: [`https://example.com/${i}`] }] };
    const response = await fetch(`${base}/monitor`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`creating monitors: ${response.status} ${await response.text()}`);
  }
  await fetch(`${base}/scrape`, { method: 'POST', headers, body: scrapeBody });
  const answer = async (path, init) => {
    const response = await fetch(`${base}${path}`, { headers, ...init });
    return { status: response.status, type: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()) };
  };
  return {
    base,
    headers,
    pid: server.pid,
    answers: { list: await answer('/monitor'), scrape: await answer('/scrape', { method: 'POST', body: scrapeBody }) },
    async stop() {
      server.kill('SIGTERM');
      await new Promise((done) => server.on('exit', done));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

// Named by its commit: the results say which build they compare with, not where it was checked out.
const againstCommit = against && spawnSync('git', ['-C', resolve(against), 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
const builds = [{ name: 'serve', dir: root }, ...(against ? [{ name: `serve of ${againstCommit}`, dir: resolve(against) }] : [])];
const started = [];
for (const build of builds) started.push({ ...build, ...(await startBuild(build.dir)) });
const main = started[0];

// The bare server: the same status, type and bytes as main's serve, read off it, and nothing else.
const bare = createServer((request, response) => {
  const { status, type, body } = request.method === 'POST' ? main.answers.scrape : main.answers.list;
  if (request.method === 'POST') {
    request.resume();
    request.on('end', () => response.writeHead(status, { 'content-type': type }).end(body));
  } else response.writeHead(status, { 'content-type': type }).end(body);
});
await new Promise((done) => bare.listen(0, '127.0.0.1', done));
const bareBase = `http://127.0.0.1:${bare.address().port}/v2`;

const routes = {
  list: { title: 'GET /v2/monitor (20)', options: (base) => ({ url: `${base}/monitor` }) },
  scrape: { title: 'POST /v2/scrape (cached)', options: (base) => ({ url: `${base}/scrape`, method: 'POST', body: scrapeBody }) },
};
const targets = [
  ...started.map((build) => ({ name: build.name, base: build.base, headers: build.headers, pid: build.pid })),
  { name: 'bare node:http', base: bareBase, headers: main.headers },
];

/**
 * CPU time a serve process has used, in ms (Linux's /proc: user and system clock ticks of 10 ms):
 * per request, it holds when other processes share the cores and throughput does not.
 */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

async function load(target, route) {
  const cpuBefore = target.pid && cpuMs(target.pid);
  const result = await autocannon({ connections: 50, duration: seconds, headers: target.headers, ...routes[route].options(target.base) });
  const cpuAfter = target.pid && cpuMs(target.pid);
  const cpuUsPerRequest =
    cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0
      ? Math.round(((cpuAfter - cpuBefore) * 1000) / result.requests.total)
      : undefined;
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    cpuUsPerRequest,
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const results = {};
const chosen = flag('--routes', Object.keys(routes).join(',')).split(',');
for (const route of Object.keys(routes).filter((name) => chosen.includes(name))) {
  // Warm-up: each target's JIT and caches, before anything is measured.
  for (const target of targets) await autocannon({ connections: 50, duration: 2, headers: target.headers, ...routes[route].options(target.base) });
  const runs = Object.fromEntries(targets.map((target) => [target.name, []]));
  for (let round = 0; round < rounds; round++) for (const target of targets) runs[target.name].push(await load(target, route));
  results[route] = Object.fromEntries(
    targets.map((target) => {
      const all = runs[target.name];
      return [
        target.name,
        {
          requestsPerSecond: median(all.map((run) => run.requestsPerSecond)),
          p50: median(all.map((run) => run.p50)),
          p99: median(all.map((run) => run.p99)),
          ...(all[0].cpuUsPerRequest !== undefined && { cpuUsPerRequest: median(all.map((run) => run.cpuUsPerRequest)) }),
          non2xx: all.reduce((sum, run) => sum + run.non2xx, 0),
          errors: all.reduce((sum, run) => sum + run.errors, 0),
          runs: all.map((run) => run.requestsPerSecond),
        },
      ];
    }),
  );
  const bareRate = results[route]['bare node:http'].requestsPerSecond;
  console.log(routes[route].title);
  for (const target of targets) {
    const figures = results[route][target.name];
    const cpu = figures.cpuUsPerRequest === undefined ? '' : `  serve CPU ${figures.cpuUsPerRequest} us/request`;
    console.log(
      `  ${target.name.padEnd(32)} ${String(figures.requestsPerSecond).padStart(6)} req/s  p50 ${figures.p50} ms  p99 ${figures.p99} ms  ${(figures.requestsPerSecond / bareRate).toFixed(2)} of bare${cpu}  non-2xx ${figures.non2xx}  (runs ${figures.runs.join(', ')})`,
    );
  }
}

for (const build of started) await build.stop();
bare.close();
site.close();

const ours = (route) => results[route].serve;
const result = {
  date: new Date().toISOString(),
  machine: {
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    loadAverageAtEnd: loadavg().map((value) => +value.toFixed(2)),
  },
  connections: 50,
  seconds,
  rounds,
  ...(against && { against: againstCommit }),
  results,
  ratioToBare: Object.fromEntries(
    Object.keys(results).map((route) => [route, +(ours(route).requestsPerSecond / results[route]['bare node:http'].requestsPerSecond).toFixed(2)]),
  ),
  goalsMet: {
    ...(results.list && { list: ours('list').requestsPerSecond >= 5000 && ours('list').p99 < 25 }),
    ...(results.scrape && { cachedScrape: ours('scrape').requestsPerSecond >= 10_000 && ours('scrape').p99 < 15 }),
  },
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/serve-load.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(
  `goals (list >= 5,000 req/s and p99 < 25 ms; cached scrape >= 10,000 req/s and p99 < 15 ms): list ${result.goalsMet.list ? 'met' : 'not met'}, cached scrape ${result.goalsMet.cachedScrape ? 'met' : 'not met'}`,
);
