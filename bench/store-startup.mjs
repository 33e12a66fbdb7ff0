#!/usr/bin/env node
/**
 * Start-up of the local commands that open the engine database, before and after the store
 * moved onto Kysely (async, one query layer over SQLite and PostgreSQL):
 *
 *   - `webwatch monitor list` on the embedded engine (opens the SQLite file, reads 20 monitors);
 *   - `webwatch monitor validate examples/monitors.yaml` (no database at all);
 *   - `webwatch --version` (the floor).
 *
 * Both builds run their bundle (dist/webwatch.cjs with its code cache), as users do. Runs are
 * interleaved, before and after in turn, so that other work on the machine weighs on both
 * alike; medians are reported.
 *
 * Usage (from the project root, both built with `npm run build`):
 *   node bench/store-startup.mjs --before ../webwatch-before [--runs 30]
 * where --before is a checkout of the earlier version. Writes bench/results/store-startup.json.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { before: { type: 'string' }, runs: { type: 'string', default: '30' } } });
if (!args.before) {
  console.error('bench: --before <checkout of the earlier version, built> is required');
  process.exit(1);
}
const BUILDS = { before: resolve(args.before), after: ROOT };
for (const [name, dir] of Object.entries(BUILDS)) {
  if (!existsSync(join(dir, 'dist/webwatch.cjs'))) {
    console.error(`bench: ${name} (${dir}) has no dist/webwatch.cjs: run npm run build there`);
    process.exit(1);
  }
}
const RUNS = Number(args.runs);

// One engine home per build (each migrates its own file), with the same 20 monitors applied.
const homes = {};
const definitions = join(mkdtempSync(join(os.tmpdir(), 'webwatch-bench-')), 'monitors.yaml');
writeFileSync(
  definitions,
  Array.from(
    { length: 20 },
    (_, i) => `---
name: Monitor ${i}
schedule: { cron: "0 * * * *" }
targets:
  - type: scrape
    urls: ["https://example.com/${i}"]
`,
  ).join(''),
);

function webwatch(build, argv, home) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [join(BUILDS[build], 'bin/webwatch.js'), ...argv], {
    env: { ...process.env, WEBWATCH_HOME: home, XDG_CONFIG_HOME: '/nonexistent', NO_COLOR: '1' },
    encoding: 'utf8',
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${build}: webwatch ${argv.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

for (const build of Object.keys(BUILDS)) {
  homes[build] = mkdtempSync(join(os.tmpdir(), `webwatch-bench-${build}-`));
  webwatch(build, ['monitor', 'apply', '--file', definitions, '--yes'], homes[build]);
}

const COMMANDS = {
  version: ['--version'],
  'monitor list': ['monitor', 'list', '--json'],
  'monitor validate': ['monitor', 'validate', join(ROOT, 'examples/monitors.yaml')],
};

const times = {};
for (const name of Object.keys(COMMANDS)) times[name] = { before: [], after: [] };
// Warm the page cache and each bundle's code cache.
for (const build of Object.keys(BUILDS)) for (const argv of Object.values(COMMANDS)) webwatch(build, argv, homes[build]);
for (let run = 0; run < RUNS; run++) {
  for (const [name, argv] of Object.entries(COMMANDS)) {
    // Alternate which goes first.
    const order = run % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const build of order) times[name][build].push(webwatch(build, argv, homes[build]));
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round = (ms) => Math.round(ms * 10) / 10;
const results = Object.fromEntries(
  Object.entries(times).map(([name, { before, after }]) => [
    name,
    {
      beforeMedianMs: round(median(before)),
      afterMedianMs: round(median(after)),
      ratio: Math.round((median(after) / median(before)) * 100) / 100,
    },
  ]),
);

const report = {
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, os: `${os.type()} ${os.release()}` },
  runs: RUNS,
  note: 'interleaved before/after runs, medians; the machine was shared with other work',
  results,
};
writeFileSync(join(ROOT, 'bench/results/store-startup.json'), `${JSON.stringify(report, null, 2)}\n`);
for (const dir of [dirname(definitions), ...Object.values(homes)]) rmSync(dir, { recursive: true, force: true });
for (const [name, r] of Object.entries(results)) console.log(`${name.padEnd(18)} before ${r.beforeMedianMs} ms  after ${r.afterMedianMs} ms  (x${r.ratio})`);
