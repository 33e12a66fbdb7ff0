#!/usr/bin/env node
// 50 agent jobs at once on `webwatch serve` (its own process) with a scripted model on
// 127.0.0.1: each job scrapes a page three times (the model answering after 500 ms a turn) and
// finishes; the jobs are started over the first second and then all run together. Each job is followed as `webwatch agent trace --follow` follows it (the remote
// backend and followTrace from dist/) from the moment its start request returns, and every
// event's delay from being recorded (occurredAt; or, for the first events, recorded while the
// start request was still being answered, from the moment the follower had the id) to being
// printed is measured. Checked: no lost or repeated events, a gapless
// producerSequence per job, every job ending with run.finished. Serve's resident memory is
// sampled throughout. Goal: p95 delay under 250 ms.
// Usage: npm run build && node bench/agent-jobs.mjs [--jobs 50]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServe } from './serve-process.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const jobs = Number(arg('--jobs', 50));
const { remoteBackend } = await import(join(root, 'dist/src/backend/remote/remote-backend.js'));
const { followTrace } = await import(join(root, 'dist/src/core/agent/follow.js'));

// The site and the scripted model run in their own process, so that the followers' clock is
// not held up by serving them.
const fixtures = spawn(process.execPath, [join(root, 'bench/agent-fixtures.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
const { model } = await new Promise((resolve) => {
  let out = '';
  fixtures.stdout.on('data', (chunk) => {
    out += chunk;
    if (out.includes('\n')) resolve(JSON.parse(out));
  });
});

const home = mkdtempSync(join(tmpdir(), 'webwatch-bench-'));
mkdirSync(join(home, 'config', 'webwatch'), { recursive: true });
writeFileSync(join(home, 'config', 'webwatch', 'config.yaml'), `llm: {baseUrl: "${model}/v1", model: scripted}\n`);
const env = { PATH: process.env.PATH, HOME: home, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') };
const { server, base, headers } = await startServe(join(root, 'bin/webwatch.js'), env, ['--concurrency', String(jobs * 2)]);
const rssMiB = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))[1]) / 1024;
const rssBefore = rssMiB();
let rssPeak = rssBefore;
const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB())), 100);

const backend = remoteBackend({ baseUrl: base, apiKey: headers.authorization.replace('Bearer ', ''), version: 'bench' });
const started = performance.now();
const delays = [];
const problems = [];
// Each job followed from the moment it is started, as `agent run` does.
await Promise.all(
  Array.from({ length: jobs }, async (_, i) => {
    // Started over the first second, so that all of them run at once without one burst of starts.
    await new Promise((resolve) => setTimeout(resolve, (i * 1000) / jobs));
    const { id } = await backend.agents.start({ prompt: `job ${i}` });
    const known = Date.now();
    const seen = [];
    for await (const event of followTrace(backend, id)) {
      // An event recorded before the follower knew the job's id is counted from that moment.
      delays.push(Date.now() - Math.max(Date.parse(event.occurredAt), known));
      seen.push(event.producerSequence);
    }
    const gapless = seen.every((sequence, index) => sequence === index + 1);
    if (!gapless) problems.push(`${id}: sequences ${seen.join(',')}`);
    const status = await backend.agents.get(id);
    if (status.status !== 'completed') problems.push(`${id}: ${status.status} ${status.error ?? ''}`);
  }),
);
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
await backend.close();
server.kill('SIGTERM');
fixtures.kill();

delays.sort((a, b) => a - b);
const pct = (p) => delays[Math.min(delays.length - 1, Math.floor((p / 100) * delays.length))];
const result = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version },
  jobs,
  events: delays.length,
  wallSeconds: +seconds.toFixed(2),
  delayMs: { p50: pct(50), p95: pct(95), p99: pct(99), max: delays.at(-1) },
  serveRssMiB: { before: +rssBefore.toFixed(1), peak: +rssPeak.toFixed(1) },
  problems,
  goal: 'no lost or repeated events, gapless producerSequence, p95 delay from record to print < 250 ms',
  goalMet: problems.length === 0 && pct(95) < 250,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/agent-jobs.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(
  `${jobs} agent jobs, ${delays.length} events in ${result.wallSeconds} s: delay p50 ${result.delayMs.p50} ms, p95 ${result.delayMs.p95} ms, p99 ${result.delayMs.p99} ms; serve RSS ${result.serveRssMiB.before} -> peak ${result.serveRssMiB.peak} MiB; ${problems.length} problems (goal ${result.goalMet ? 'met' : 'NOT met'})`,
);
if (problems.length) console.log(problems.slice(0, 5).join('\n'));
