#!/usr/bin/env node
/**
 * `webwatch monitor validate` of files of many small monitors, and of the largest files within
 * the limits, two builds side by side:
 *
 *   - 10,000, 50,000 and 200,000 `---` documents of one line each (`name: m1`: a monitor without
 *     its schedule and targets, so two errors each), the shape of a generated file gone wrong;
 *   - 200,000 such monitors as the items of one list, in a block (`- name: m1`) and in brackets
 *     (`[{name: m1}, ...]`): a monitor written as a list item costs nearly what a document does;
 *   - 5,000 such documents, and 5,000 valid monitors of three lines as documents and as a list
 *     (the limit of monitors per file), to show what a file at the limit costs;
 *   - the largest files within the limits: 5,000 monitors of 40 short URLs each (7.9 MB), one
 *     monitor whose webhook.metadata holds a list of one-digit items filling the 8 MiB, in a
 *     block (838,000 items) and in brackets (2.8 million), and 40,000 metadata keys (0.5 MB).
 *
 * Both builds run their bundle, as users do. Runs are interleaved, before and after in turn,
 * so that other work on the machine weighs on both alike; medians are reported. Wall time, CPU
 * time (user + system) and peak RSS come from GNU time (`time -v`).
 *
 * Usage (from the project root, both built with `npm run build`):
 *   node bench/many-documents.mjs --before ../webwatch-before [--runs 3] [--only name,name]
 * where --before is a checkout of the earlier version and --only picks files by name. Writes
 * scratch files to bench/.work/ and the results to bench/results/many-documents.json. The
 * 8 MiB files take a minute and 4 GB of memory a run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WORK = join(ROOT, 'bench/.work/many-documents');
const RESULTS = join(ROOT, 'bench/results/many-documents.json');

function fail(message) {
  console.error(`bench: ${message}`);
  process.exit(1);
}

const { values: args } = parseArgs({
  options: { before: { type: 'string' }, runs: { type: 'string', default: '3' }, only: { type: 'string' } },
});
if (!args.before) fail('--before <checkout of the earlier version, built> is required');
const RUNS = Number(args.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) fail(`--runs must be a positive integer, got "${args.runs}"`);
const BUILDS = { before: resolve(args.before), after: ROOT };
for (const [name, dir] of Object.entries(BUILDS)) {
  if (!existsSync(join(dir, 'dist/webwatch.cjs'))) fail(`${name} (${dir}) has no dist/webwatch.cjs: run npm run build there`);
}
const probe = spawnSync('time', ['-v', 'true'], { encoding: 'utf8' });
if (probe.error || !/Maximum resident set size/.test(probe.stderr)) {
  fail('GNU time is needed for CPU time and peak RSS (Debian package `time`: sudo apt-get install time)');
}

// ---------------------------------------------------------------------------------------------
// The files

const oneLine = (i) => `name: m${i}`;
const valid = (i) => `name: m${i}\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["https://example.com/${i}"]}]`;
const withUrls = (i) =>
  `name: m${i}\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: scrape\n    urls:\n${Array.from({ length: 40 }, (_, k) => `      - https://example.com/${i}/${k}`).join('\n')}`;
const range = (count, make) => Array.from({ length: count }, (_, i) => make(i));
const documents = (count, make) => `${range(count, make).join('\n---\n')}\n`;
const list = (count, make) => range(count, (i) => `- ${make(i).replaceAll('\n', '\n  ')}\n`).join('');
const bracketed = (count) => `[${range(count, (i) => `{name: m${i}}`).join(', ')}]\n`;
/** A valid monitor whose webhook.metadata holds `value`, indented under `metadata:`. */
const withMetadata = (value) => `${valid(0)}\nwebhook:\n  url: https://hooks.example.com/x\n  metadata:\n${value}`;
const FILL = 8 * 1024 * 1024 - 4096;
const FILES = [
  { name: 'one-line-10000', monitors: 10_000, text: () => documents(10_000, oneLine) },
  { name: 'one-line-50000', monitors: 50_000, text: () => documents(50_000, oneLine) },
  { name: 'one-line-200000', monitors: 200_000, text: () => documents(200_000, oneLine) },
  { name: 'list-one-line-200000', monitors: 200_000, text: () => list(200_000, oneLine) },
  { name: 'flow-one-line-200000', monitors: 200_000, text: () => bracketed(200_000) },
  { name: 'one-line-5000', monitors: 5_000, text: () => documents(5_000, oneLine) },
  { name: 'valid-5000', monitors: 5_000, text: () => documents(5_000, valid) },
  { name: 'list-valid-5000', monitors: 5_000, text: () => list(5_000, valid) },
  { name: 'list-urls-5000', monitors: 5_000, text: () => list(5_000, withUrls) },
  { name: 'metadata-list-8mib', monitors: 1, text: () => withMetadata(`    a:\n${'      - 1\n'.repeat(Math.floor((FILL - 300) / 10))}`) },
  {
    name: 'metadata-flow-8mib',
    monitors: 1,
    text: () =>
      withMetadata(
        `    a: [${Array(Math.floor((FILL - 300) / 3))
          .fill('1')
          .join(', ')}]\n`,
      ),
  },
  { name: 'metadata-keys-40000', monitors: 1, text: () => withMetadata(range(40_000, (i) => `    k${i}: 1\n`).join('')) },
].filter((file) => !args.only || args.only.split(',').includes(file.name));
if (FILES.length === 0) fail(`--only ${args.only} names no file`);

rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });
for (const file of FILES) {
  const text = file.text();
  file.path = join(WORK, `${file.name}.yaml`);
  file.bytes = Buffer.byteLength(text);
  writeFileSync(file.path, text);
}

// ---------------------------------------------------------------------------------------------
// One run: wall and CPU time, peak RSS, exit code and what was printed

const cleanEnv = { ...process.env, NO_COLOR: '1' };
for (const name of ['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS']) delete cleanEnv[name];

function validate(build, file) {
  const started = process.hrtime.bigint();
  const result = spawnSync('time', ['-v', process.execPath, join(BUILDS[build], 'bin/webwatch.js'), 'monitor', 'validate', file.path], {
    env: cleanEnv,
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const field = (label) => Number(new RegExp(`${label}: ([\\d.]+)`).exec(result.stderr)?.[1]);
  const errorLines = result.stdout === '' ? 0 : result.stdout.trimEnd().split('\n').length;
  return {
    wallMs,
    cpuMs: (field('User time \\(seconds\\)') + field('System time \\(seconds\\)')) * 1000,
    peakRssMiB: field('Maximum resident set size \\(kbytes\\)') / 1024,
    exitCode: field('Exit status'),
    errorLines,
    firstLine: result.stdout.split('\n')[0].replace(file.path, '<file>'),
  };
}

const median = (values) => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round = (n, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

function summary(runs) {
  return {
    wallMedianMs: round(median(runs.map((r) => r.wallMs))),
    cpuMedianMs: round(median(runs.map((r) => r.cpuMs))),
    peakRssMedianMiB: round(median(runs.map((r) => r.peakRssMiB))),
    wallMs: runs.map((r) => round(r.wallMs)),
    exitCode: runs[0].exitCode,
    errorLines: runs[0].errorLines,
    firstLine: runs[0].firstLine,
  };
}

// ---------------------------------------------------------------------------------------------
// Main

const commit = (dir) => spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: dir, encoding: 'utf8' }).stdout.trim() || null;
const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
const machine = {
  cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown',
  cores: os.availableParallelism(),
  totalMemoryGiB: round(os.totalmem() / 2 ** 30),
  os: `${os.type()} ${os.release()} ${os.arch()}`,
  node: process.version,
  loadAverageAtStart: os.loadavg().map((n) => round(n, 2)),
};

const rows = [];
for (const file of FILES) {
  const runs = { before: [], after: [] };
  for (let i = 0; i < RUNS; i++) {
    for (const build of ['before', 'after']) runs[build].push(validate(build, file));
  }
  const row = { file: file.name, monitors: file.monitors, bytes: file.bytes, before: summary(runs.before), after: summary(runs.after) };
  rows.push(row);
  console.log(
    `${file.name.padEnd(21)} ${String(file.bytes).padStart(8)} B  before ${String(row.before.wallMedianMs).padStart(8)} ms (CPU ${row.before.cpuMedianMs}, ${row.before.peakRssMedianMiB} MiB, exit ${row.before.exitCode}, ${row.before.errorLines} lines)` +
      `  after ${String(row.after.wallMedianMs).padStart(7)} ms (CPU ${row.after.cpuMedianMs}, ${row.after.peakRssMedianMiB} MiB, exit ${row.after.exitCode}, ${row.after.errorLines} lines)`,
  );
}

machine.loadAverageAtEnd = os.loadavg().map((n) => round(n, 2));
const results = { date: new Date().toISOString(), runs: RUNS, builds: { before: commit(BUILDS.before), after: commit(BUILDS.after) }, machine, files: rows };
mkdirSync(dirname(RESULTS), { recursive: true });
writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
console.log(
  `\n${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}, load ${machine.loadAverageAtStart.join(' ')} -> ${machine.loadAverageAtEnd.join(' ')}\nWritten to bench/results/many-documents.json`,
);
