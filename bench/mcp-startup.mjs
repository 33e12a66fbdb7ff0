#!/usr/bin/env node
/**
 * Start-up of `webwatch mcp`: from starting the process to the answer of its first `tools/list`,
 * as an assistant starts a local server (stdio): initialize, initialized, tools/list, in raw
 * JSON-RPC lines, so that no client library's own start-up is counted. Goal: under 150 ms.
 *
 * Usage: npm run build && node bench/mcp-startup.mjs [--runs 30] [--dir DIR]
 * --dir names another built checkout to time instead of this one. Writes
 * bench/results/mcp-startup.json.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' }, dir: { type: 'string' } } });
const runs = Number(values.runs);
const dir = resolve(values.dir ?? ROOT);
const env = {
  ...process.env,
  WEBWATCH_HOME: mkdtempSync(join(tmpdir(), 'webwatch-mcp-bench-')),
  XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'webwatch-mcp-bench-')),
};
for (const name of ['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'WEBWATCH_API_URL']) delete env[name];

const lines = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
]
  .map((message) => `${JSON.stringify(message)}\n`)
  .join('');

/** Milliseconds from spawn to the tools/list answer, and how many tools it listed. */
function once() {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, [join(dir, 'bin/webwatch.js'), 'mcp'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const answer = out
        .split('\n')
        .map((line) => {
          try {
            return JSON.parse(line);
          } catch {
            return undefined;
          }
        })
        .find((message) => message?.id === 2);
      if (!answer) return;
      const ms = performance.now() - started;
      child.stdin.end();
      child.once('exit', () => done({ ms, tools: answer.result.tools.length }));
    });
    child.once('error', fail);
    child.stdin.write(lines);
  });
}

await once(); // the first run writes the bundle's code caches where they are missing
const times = [];
let tools = 0;
for (let i = 0; i < runs; i++) ({ ms: times[i], tools } = await once());
const sorted = [...times].sort((a, b) => a - b);
const at = (q) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 10) / 10;
const report = {
  date: new Date().toISOString(),
  machine: { cpuModel: cpus()[0]?.model, cores: cpus().length, node: process.version, loadAverage: loadavg()[0] },
  build: dir === ROOT ? 'this checkout' : dir,
  runs,
  tools,
  medianMs: at(0.5),
  p90Ms: at(0.9),
  minMs: at(0),
  maxMs: at(1),
  goalMs: 150,
};
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, 'bench/results/mcp-startup.json'), `${JSON.stringify(report, null, 2)}\n`);
console.log(
  `webwatch mcp to its first tools/list (${tools} tools), ${runs} runs: median ${report.medianMs} ms, p90 ${report.p90Ms} ms, min ${report.minMs}, max ${report.maxMs} (goal ${report.goalMs} ms)`,
);
