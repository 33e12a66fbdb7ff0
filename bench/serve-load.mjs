#!/usr/bin/env node
// Load on `webwatch serve` from a separate process: autocannon at 50 connections against
// GET /v2/monitor (a team with 20 monitors) and a cached POST /v2/scrape (a page fetched once,
// then answered from the scrape cache). Goal: >= 3,000 req/s and p99 < 50 ms for the list.
// Usage: npm run build && node bench/serve-load.mjs [--seconds 10]
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startServe } from './serve-process.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1] || 10) || 10;
const bin = join(root, 'bin/webwatch.js');
const home = mkdtempSync(join(tmpdir(), 'webwatch-serve-load-'));
const env = { ...process.env, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') };

// The page the scrape asks for, served once into the cache.
const site = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<main><h1>Cached</h1><p>A page answered from the scrape cache.</p></main>'));
await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
const pageUrl = `http://127.0.0.1:${site.address().port}/page`;

const { server, base, headers } = await startServe(bin, env, ['--concurrency', '1000']);
for (let i = 0; i < 20; i++) {
  const body = { name: `Monitor ${i}`, schedule: { cron: '0 * * * *' }, targets: [{ type: 'scrape', urls: [`https://example.com/${i}`] }] };
  const response = await fetch(`${base}/monitor`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`creating monitors: ${response.status} ${await response.text()}`);
}
const scrapeBody = JSON.stringify({ url: pageUrl, maxAge: 3_600_000 });
await fetch(`${base}/scrape`, { method: 'POST', headers, body: scrapeBody });

async function load(title, options) {
  const result = await autocannon({ connections: 50, duration: seconds, headers, ...options });
  const summary = {
    requestsPerSecond: Math.round(result.requests.average),
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    non2xx: result.non2xx,
    errors: result.errors,
  };
  console.log(`${title.padEnd(28)} ${String(summary.requestsPerSecond).padStart(6)} req/s  p50 ${summary.latencyMs.p50} ms  p99 ${summary.latencyMs.p99} ms  non-2xx ${summary.non2xx}`);
  return summary;
}

const list = await load('GET /v2/monitor (20)', { url: `${base}/monitor` });
const scrape = await load('POST /v2/scrape (cached)', { url: `${base}/scrape`, method: 'POST', body: scrapeBody });
server.kill('SIGTERM');
site.close();

const result = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version },
  connections: 50,
  seconds,
  listMonitors: list,
  cachedScrape: scrape,
  goalMet: list.requestsPerSecond >= 3000 && list.latencyMs.p99 < 50,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/serve-load.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(`goal (list >= 3,000 req/s, p99 < 50 ms): ${result.goalMet ? 'met' : 'not met'}`);
