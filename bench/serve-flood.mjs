#!/usr/bin/env node
// One client flooding `webwatch serve` with sockets, and everyone else's /health: a flooding
// process (a child of its own) holds --sockets sockets from 127.0.0.2, each sending one byte and
// never the rest of a request, and opens each one again 50 ms after the server closes it, as
// the security review's flooder did. Meanwhile this process asks GET /health from 127.0.0.1,
// one request at a time on a fresh connection each, for --seconds, and counts the answers that
// came (200) and those that failed (reset, closed, or no answer within 10 s). Linux routes all
// of 127.0.0.0/8 to loopback, so the two clients have addresses of their own.
// With --against DIR, the serve of another build (a checkout with its own dist/) is flooded
// the same way in the same run, each build in turn, --rounds times.
// Usage: npm run build && node bench/serve-flood.mjs [--sockets 1000] [--seconds 10] [--rounds 2] [--against DIR]
import { fork, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServe } from './serve-process.mjs';

const flag = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);

function health(base) {
  const { hostname, port } = new URL(base);
  const started = performance.now();
  return new Promise((done) => {
    const asked = request({ host: hostname, port: Number(port), path: '/health', localAddress: '127.0.0.1', agent: false, timeout: 10_000 }, (response) => {
      response.resume();
      response.on('end', () => done({ ok: response.statusCode === 200, ms: performance.now() - started }));
    });
    asked.on('timeout', () => asked.destroy(new Error('timeout')));
    asked.on('error', (error) => done({ ok: false, ms: performance.now() - started, error: error.code ?? error.message }));
    asked.end();
  });
}

const ask = (child, message) =>
  new Promise((done) => {
    child.once('message', done);
    child.send(message);
  });

async function main() {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const sockets = Number(flag('--sockets', 1000)) || 1000;
  const seconds = Number(flag('--seconds', 10)) || 10;
  const rounds = Number(flag('--rounds', 2)) || 2;
  const against = flag('--against', undefined);
  const againstCommit = against && spawnSync('git', ['-C', resolve(against), 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  const builds = [{ name: 'serve', dir: root }, ...(against ? [{ name: `serve of ${againstCommit}`, dir: resolve(against) }] : [])];

  const runs = Object.fromEntries(builds.map((build) => [build.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const build of builds) {
      const home = mkdtempSync(join(tmpdir(), 'webwatch-serve-flood-'));
      const env = { ...process.env, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') };
      const { server, base } = await startServe(join(build.dir, 'bin/webwatch.js'), env);
      const origin = new URL(base).origin;
      const baseline = await health(origin);
      const flooder = fork(fileURLToPath(import.meta.url), ['--flood', origin, String(sockets)], { stdio: 'inherit' });
      // The flood's first wave in before anything is measured.
      await new Promise((done) => setTimeout(done, 2000));
      const answers = [];
      const until = performance.now() + seconds * 1000;
      while (performance.now() < until) answers.push(await health(origin));
      const held = await ask(flooder, 'stop');
      server.kill('SIGTERM');
      await new Promise((done) => server.on('exit', done));
      rmSync(home, { recursive: true, force: true });
      const times = answers
        .filter((answer) => answer.ok)
        .map((answer) => answer.ms)
        .sort((a, b) => a - b);
      const at = (share) => (times.length ? +times[Math.min(times.length - 1, Math.floor(times.length * share))].toFixed(1) : null);
      const errors = {};
      for (const answer of answers) if (!answer.ok) errors[answer.error ?? 'not 200'] = (errors[answer.error ?? 'not 200'] ?? 0) + 1;
      const run = {
        requests: answers.length,
        ok: times.length,
        failed: answers.length - times.length,
        okShare: +(times.length / answers.length).toFixed(3),
        p50Ms: at(0.5),
        p99Ms: at(0.99),
        errors,
        floodHeldAtEnd: held.open,
        floodConnections: held.opened,
        healthBeforeFlood: baseline.ok,
      };
      runs[build.name].push(run);
      console.log(
        `${build.name.padEnd(20)} round ${round + 1}: /health ${run.ok} of ${run.requests} answered (${(run.okShare * 100).toFixed(1)} %), p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms; the flood held ${held.open} sockets at the end, ${held.opened} connections made; failures ${JSON.stringify(errors)}`,
      );
    }
  }

  const result = {
    date: new Date().toISOString(),
    machine: {
      cpu: cpus()[0]?.model,
      cores: cpus().length,
      memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
      node: process.version,
      loadAverageAtEnd: loadavg().map((value) => +value.toFixed(2)),
    },
    sockets,
    seconds,
    rounds,
    ...(against && { against: againstCommit }),
    runs,
  };
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  writeFileSync(join(root, 'bench/results/serve-flood.json'), `${JSON.stringify(result, null, 2)}\n`);
}

// The flooding child: `--flood URL COUNT`; it reports the sockets it holds when asked.
if (process.argv[2] === '--flood') {
  const { hostname, port } = new URL(process.argv[3]);
  const count = Number(process.argv[4]);
  let open = 0;
  let opened = 0;
  let stopped = false;
  const openOne = () => {
    if (stopped) return;
    const socket = connect({ host: hostname, port: Number(port), localAddress: '127.0.0.2' });
    let connected = false;
    socket.on('connect', () => {
      connected = true;
      open++;
      opened++;
      socket.write('G');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (connected) open--;
      if (!stopped) setTimeout(openOne, 50);
    });
  };
  for (let i = 0; i < count; i++) openOne();
  process.on('message', (message) => {
    if (message === 'count') process.send({ open, opened });
    if (message === 'stop') {
      stopped = true;
      process.send({ open, opened });
      process.exit(0);
    }
  });
} else {
  await main();
}
