#!/usr/bin/env node
// The scheduler of `webwatch serve` with 1,000 monitors due every 5 minutes (one page each, on
// a local site, each with a monitor.check.completed webhook to a local receiver). Measures, for
// the next slot: the lateness of check starts (startedAt - scheduledFor; goal: p99 under 1 s),
// the server's CPU use in the quiet minute after the burst (goal: idle), and webhook
// deliveries per second. Waits for the next 5-minute slot, so it takes up to 7 minutes.
// Usage: npm run build && node bench/scheduler.mjs [--monitors 1000] [--check-concurrency 100]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServe } from './serve-process.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const count = Number(arg('--monitors', 1000));
const concurrency = Number(arg('--check-concurrency', 100));
const bin = join(root, 'bin/webwatch.js');
const home = mkdtempSync(join(tmpdir(), 'webwatch-scheduler-'));
const env = { ...process.env, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') };

const site = createServer((request, response) =>
  response.writeHead(200, { 'content-type': 'text/html' }).end(`<main><h1>Page</h1><p>${request.url} at ${Math.floor(Date.now() / 300_000)}</p></main>`),
);
const deliveries = [];
const receiver = createServer((request, response) => {
  request.resume().on('end', () => {
    deliveries.push(performance.now());
    response.writeHead(204).end();
  });
});
await Promise.all([site, receiver].map((server) => new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))));
const siteUrl = `http://127.0.0.1:${site.address().port}`;
const hookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

const { server, base, headers } = await startServe(bin, env, ['--check-concurrency', String(concurrency)]);
const ids = [];
for (let i = 0; i < count; i++) {
  const body = {
    name: `m${i}`,
    schedule: { cron: '*/5 * * * *' },
    targets: [{ type: 'scrape', urls: [`${siteUrl}/p/${i}`] }],
    webhook: { url: hookUrl, events: ['monitor.check.completed'] },
  };
  const response = await fetch(`${base}/monitor`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`creating monitors: ${response.status} ${await response.text()}`);
  ids.push((await response.json()).data.id);
}
const slot = Math.ceil(Date.now() / 300_000) * 300_000;
console.log(`${count} monitors created; waiting ${((slot - Date.now()) / 1000).toFixed(0)} s for the slot ${new Date(slot).toISOString()}`);

const cpuTicks = () => {
  const fields = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks
};
await new Promise((resolve) => setTimeout(resolve, slot - Date.now() + 500));

// The burst: wait until every monitor has its check of the slot and every webhook arrived.
const burstStart = performance.now();
for (;;) {
  if (deliveries.length >= count) break;
  if (performance.now() - burstStart > 240_000) break;
  await new Promise((resolve) => setTimeout(resolve, 250));
}
const lateness = [];
for (const id of ids) {
  const checks = (await (await fetch(`${base}/monitor/${id}/checks`, { headers })).json()).data;
  const check = checks.find((c) => c.scheduledFor === new Date(slot).toISOString());
  if (check) lateness.push(Date.parse(check.startedAt) - slot);
}
lateness.sort((a, b) => a - b);
const pct = (p) => lateness[Math.min(lateness.length - 1, Math.floor((p / 100) * lateness.length))];
const deliverySpan = (deliveries[deliveries.length - 1] - deliveries[0]) / 1000;

// The quiet after: CPU seconds the server uses over 30 s with nothing due.
const ticksPerSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
const before = cpuTicks();
await new Promise((resolve) => setTimeout(resolve, 30_000));
const idleCpuSeconds = (cpuTicks() - before) / ticksPerSecond;
server.kill('SIGTERM');
site.close();
receiver.close();

const result = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version },
  monitors: count,
  checkConcurrency: concurrency,
  checksStarted: lateness.length,
  latenessMs: { p50: pct(50), p99: pct(99), max: lateness[lateness.length - 1] },
  webhooks: { delivered: deliveries.length, perSecond: +(deliveries.length / Math.max(deliverySpan, 0.001)).toFixed(0) },
  idleCpuSecondsPer30s: +idleCpuSeconds.toFixed(3),
};
result.goalMet = result.checksStarted === count && result.latenessMs.p99 < 1000 && result.idleCpuSecondsPer30s < 0.3;
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, `bench/results/scheduler-cap-${concurrency}.json`), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
