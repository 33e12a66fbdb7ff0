#!/usr/bin/env node
/**
 * How long one client's definition holds up the other sessions of `webwatch mcp --http`: one
 * session validates a file of 1.69 MB that stands for 20 million values (a list of 200,000
 * addresses under an anchor, 99 targets that alias it) while another pings the server every
 * 10 ms. The longest ping's round trip is the longest stall of the server's event loop during
 * the validation, as a client sees it (a ping waits for nothing else). Each build given is
 * measured in turn, round after round, in the same run.
 *
 * Usage: npm run build && node bench/mcp-validation-stall.mjs [--rounds 3] [--old DIR]
 * --old names another built checkout (the build before a change) to measure beside this one.
 * Writes bench/results/mcp-validation-stall.json.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, old: { type: 'string' } } });
const rounds = Number(values.rounds);
const builds = [{ name: 'this build', dir: ROOT }, ...(values.old ? [{ name: 'before', dir: resolve(values.old) }] : [])];
const commit = (dir) => execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();

const list = Array.from({ length: 200_000 }, (_, i) => `u${i}`).join(', ');
const bomb = `x-a: &a [${list}]\nname: Bomb\nschedule: {cron: "0 * * * *"}\ntargets:\n${'  - {type: scrape, urls: *a}\n'.repeat(99)}`;

async function serve(dir) {
  const env = {
    PATH: process.env.PATH,
    HOME: mkdtempSync(join(tmpdir(), 'webwatch-stall-')),
    WEBWATCH_HOME: mkdtempSync(join(tmpdir(), 'webwatch-stall-')),
    XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'webwatch-stall-')),
  };
  const child = spawn(process.execPath, [join(dir, 'bin/webwatch.js'), 'mcp', '--http', '--port', '0', '--json'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((done, fail) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      try {
        done(JSON.parse(out).url);
      } catch {
        // Not whole yet.
      }
    });
    child.once('exit', (code) => fail(new Error(`webwatch mcp --http exited ${code}`)));
  });
  return { child, url };
}

async function once(dir) {
  const { child, url } = await serve(dir);
  const connect = async () => {
    const client = new Client({ name: 'bench', version: '1' });
    client.onerror = () => undefined;
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  };
  const [validating, pinging] = await Promise.all([connect(), connect()]);
  try {
    // Warm: a small definition first, so that the first validation's loading is not counted.
    await validating.callTool({
      name: 'webwatch_monitor_validate',
      arguments: { yaml: 'name: x\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["https://example.com/"]}]\n' },
    });
    await pinging.ping();
    const started = performance.now();
    let done = false;
    const validation = validating
      .callTool({ name: 'webwatch_monitor_validate', arguments: { yaml: bomb } }, undefined, { timeout: 300_000 })
      .finally(() => (done = true));
    const pings = [];
    while (!done) {
      const sent = performance.now();
      await pinging.ping();
      pings.push(performance.now() - sent);
      await new Promise((next) => setTimeout(next, 10));
    }
    const answer = (await validation).content[0].text;
    const validationMs = performance.now() - started;
    const sorted = [...pings].sort((a, b) => a - b);
    return {
      validationMs: Math.round(validationMs),
      longestPingMs: Math.round(sorted.at(-1)),
      medianPingMs: Math.round(sorted[Math.floor(sorted.length / 2)] * 10) / 10,
      pings: pings.length,
      answer: answer.split('\n').slice(0, 2).join(' ').slice(0, 160),
    };
  } finally {
    await Promise.all([validating.close(), pinging.close()]);
    // The clients' streams end before the server does: a stream cut by its exit is no failure here.
    await new Promise((next) => setTimeout(next, 200));
    child.kill('SIGTERM');
    await new Promise((exit) => child.once('exit', exit));
  }
}

const results = Object.fromEntries(builds.map((build) => [build.name, []]));
const loadAtStart = loadavg();
for (let round = 0; round < rounds; round++) {
  for (const build of builds) {
    const result = await once(build.dir);
    results[build.name].push(result);
    console.log(
      `round ${round + 1} ${build.name}: validation ${result.validationMs} ms, longest ping ${result.longestPingMs} ms, median ping ${result.medianPingMs} ms (${result.pings} pings)`,
    );
  }
}
const median = (numbers) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)];
const report = {
  date: new Date().toISOString(),
  machine: {
    cpuModel: cpus()[0]?.model,
    cores: cpus().length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAverageAtStart: loadAtStart.map((load) => Math.round(load * 10) / 10),
    loadAverageAtEnd: loadavg().map((load) => Math.round(load * 10) / 10),
  },
  file: { bytes: Buffer.byteLength(bomb), aliases: 99, valuesWritten: 200_000 },
  rounds,
  builds: builds.map((build) => ({
    name: build.name,
    commit: commit(build.dir),
    runs: results[build.name],
    medianValidationMs: median(results[build.name].map((run) => run.validationMs)),
    medianLongestPingMs: median(results[build.name].map((run) => run.longestPingMs)),
  })),
};
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, 'bench/results/mcp-validation-stall.json'), `${JSON.stringify(report, null, 2)}\n`);
for (const build of report.builds)
  console.log(`${build.name} (${build.commit}): median validation ${build.medianValidationMs} ms, median longest ping ${build.medianLongestPingMs} ms`);
