#!/usr/bin/env node
/**
 * Two builds of webwatch side by side: the start-up commands of bench/startup-and-validate.mjs,
 * a one-off scrape of a local page and a validation of 1,000 monitors, run with each build in
 * turn, round after round (hyperfine -N, the builds' order swapped every round), against bare
 * `node -e 0`. For comparing two ways of building the bundle on a machine whose speed drifts.
 *
 * Usage: node bench/bundle-ab.mjs --a DIR --b DIR [--label-a NAME] [--label-b NAME]
 *          [--rounds 12] [--runs 5] [--warmup 3] [--out bench/results/NAME.json]
 * Each DIR is a built copy of the project (bin/, dist/, package.json, node_modules). The
 * 1,000-monitor file is bench/.work/monitors-1000.yaml, left by bench/startup-and-validate.mjs;
 * without it that row is skipped.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORK = join(ROOT, 'bench/.work/bundle-ab');
const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    'label-a': { type: 'string', default: 'a' },
    'label-b': { type: 'string', default: 'b' },
    rounds: { type: 'string', default: '12' },
    runs: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '3' },
    out: { type: 'string' },
  },
});
if (!values.a || !values.b) {
  console.error('usage: node bench/bundle-ab.mjs --a DIR --b DIR [--label-a NAME] [--label-b NAME] [--rounds N] [--runs N] [--warmup N] [--out FILE]');
  process.exit(2);
}
const builds = [
  { label: values['label-a'], dir: resolve(values.a) },
  { label: values['label-b'], dir: resolve(values.b) },
];
const [rounds, runs, warmup] = [values.rounds, values.runs, values.warmup].map(Number);
const env = { ...process.env };
for (const name of ['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'WEBWATCH_API_URL']) delete env[name];
rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });

const page =
  '<!doctype html><html><head><title>Start-up</title></head><body><main><h1>Start-up</h1><p>A small page, with a paragraph of text, scraped to time a one-off command.</p></main></body></html>';
const server = spawn(
  process.execPath,
  [
    '-e',
    `require('node:http').createServer((q, r) => r.writeHead(200, {'content-type': 'text/html; charset=utf-8'}).end(${JSON.stringify(page)})).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const port = await new Promise((done) => server.stdout.once('data', (data) => done(String(data).trim())));

const monitors = join(ROOT, 'bench/.work/monitors-1000.yaml');
const examples = join(ROOT, 'examples/monitors.yaml');
const COMMANDS = [
  { name: '--version', args: ['--version'] },
  { name: '--help', args: ['--help'] },
  { name: 'scrape --help', args: ['scrape', '--help'] },
  { name: 'monitor validate examples/monitors.yaml', args: ['monitor', 'validate', examples] },
  { name: 'monitor list (2 monitors)', args: ['monitor', 'list'] },
  { name: 'scrape --max-age 0 of a local page', args: ['scrape', '--max-age', '0', `http://127.0.0.1:${port}/`] },
  ...(existsSync(monitors) ? [{ name: 'monitor validate, 1,000 monitors', args: ['monitor', 'validate', monitors], slow: true }] : []),
];
// A table for people: on a terminal (util-linux's script gives the command one, both builds alike).
// Settings read: a user's configuration file (YAML), in a configuration directory of its own.
COMMANDS.push({ name: 'monitor list with a configuration file', args: ['monitor', 'list'], configured: true });
if (spawnSync('script', ['--version']).status === 0) COMMANDS.push({ name: 'monitor list on a terminal (script)', args: ['monitor', 'list'], terminal: true });

// An engine home and configuration directory per build, with the example monitors applied
// (monitor list reads them; every scrape writes its cache there), set by `env` on each command
// line: hyperfine runs every command with the same environment.
for (const build of builds) {
  build.home = join(WORK, build.label);
  const applied = spawnSync(process.execPath, [join(build.dir, 'bin/webwatch.js'), 'monitor', 'apply', '-f', examples, '--yes'], {
    env: { ...env, WEBWATCH_HOME: join(build.home, 'data'), XDG_CONFIG_HOME: join(build.home, 'config') },
    encoding: 'utf8',
  });
  if (applied.status !== 0) throw new Error(`${build.label}: monitor apply exited ${applied.status}: ${applied.stderr}`);
}
const quoted = (words) => words.map((word) => (/[\s'"]/.test(word) ? `'${word}'` : word)).join(' ');
const commandLine = (build, args, terminal = false, configured = false) => {
  const line = quoted([
    'env',
    `WEBWATCH_HOME=${join(build.home, 'data')}`,
    `XDG_CONFIG_HOME=${join(build.home, configured ? 'configured' : 'config')}`,
    process.execPath,
    join(build.dir, 'bin/webwatch.js'),
    ...args,
  ]);
  return terminal ? quoted(['script', '-qec', line, '/dev/null']) : line;
};
for (const build of builds) {
  mkdirSync(join(build.home, 'configured', 'webwatch'), { recursive: true });
  writeFileSync(join(build.home, 'configured', 'webwatch', 'config.yaml'), 'scheduler:\n  maxConcurrent: 2\nserve:\n  port: 8080\n');
  for (const { args, terminal, configured } of COMMANDS) {
    const check = spawnSync('sh', ['-c', commandLine(build, args, terminal, configured)], { env, encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`${build.label} ${args.join(' ')} exited ${check.status}: ${check.stderr}`);
  }
}
// `env` in front of every command, node -e 0 included, so that both sides pay for it.
const bare = `env WEBWATCH_HOME=${join(WORK, 'bare')} ${process.execPath} -e 0`;

const median = (xs) => {
  const sorted = [...xs].sort((x, y) => x - y);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const samples = new Map(); // key -> { cpu: [per round], wall: [all runs] }
const record = (key, result) => {
  if (!samples.has(key)) samples.set(key, { cpu: [], wall: [] });
  samples.get(key).cpu.push((result.user + result.system) * 1000);
  samples.get(key).wall.push(...result.times.map((t) => t * 1000));
};
const loads = [loadavg()[0]];
for (let round = 1; round <= rounds; round++) {
  const order = round % 2 ? builds : [...builds].reverse();
  for (const group of [COMMANDS.filter((c) => !c.slow), COMMANDS.filter((c) => c.slow)]) {
    if (group.length === 0) continue;
    const slow = group[0].slow;
    const commands = [
      ...(slow ? [] : [bare]),
      ...group.flatMap(({ args, terminal, configured }) => order.map((build) => commandLine(build, args, terminal, configured))),
    ];
    const exportFile = join(WORK, `round-${round}${slow ? '-slow' : ''}.json`);
    const result = spawnSync(
      'hyperfine',
      ['-N', '--style', 'none', '--warmup', String(slow ? 1 : warmup), '--runs', String(slow ? 2 : runs), '--export-json', exportFile, ...commands],
      { env, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (result.status !== 0) throw new Error(`hyperfine exited ${result.status}`);
    const results = JSON.parse(readFileSync(exportFile, 'utf8')).results;
    let index = 0;
    if (!slow) record('node -e 0', results[index++]);
    for (const { name } of group) for (const build of order) record(`${build.label}\t${name}`, results[index++]);
  }
  loads.push(loadavg()[0]);
  process.stdout.write(`round ${round} of ${rounds} (load ${loadavg()[0].toFixed(1)})\n`);
}
server.kill();

const round1 = (x) => Math.round(x * 10) / 10;
const bareCpu = median(samples.get('node -e 0').cpu);
const rows = COMMANDS.map(({ name }) => {
  const [a, b] = builds.map((build) => samples.get(`${build.label}\t${name}`));
  // Per round, b's CPU time over a's: the two ran minutes apart at most.
  const ratios = a.cpu.map((cpu, index) => b.cpu[index] / cpu);
  return {
    command: name,
    [builds[0].label]: {
      cpuMedianMs: round1(median(a.cpu)),
      cpuOfRoundsMs: a.cpu.map(round1),
      wallMedianMs: round1(median(a.wall)),
      cpuRatioToBare: Math.round((median(a.cpu) / bareCpu) * 100) / 100,
    },
    [builds[1].label]: {
      cpuMedianMs: round1(median(b.cpu)),
      cpuOfRoundsMs: b.cpu.map(round1),
      wallMedianMs: round1(median(b.wall)),
      cpuRatioToBare: Math.round((median(b.cpu) / bareCpu) * 100) / 100,
    },
    [`${builds[1].label}/${builds[0].label}`]: {
      medianOfRounds: Math.round(median(ratios) * 1000) / 1000,
      min: Math.round(Math.min(...ratios) * 1000) / 1000,
      max: Math.round(Math.max(...ratios) * 1000) / 1000,
      roundsFaster: ratios.filter((r) => r < 1).length,
    },
  };
});
const report = {
  date: new Date().toISOString(),
  machine: { cpuModel: cpus()[0]?.model, cores: cpus().length, node: process.version, loadAverageFromTo: [Math.min(...loads), Math.max(...loads)].map(round1) },
  method: `hyperfine -N, ${rounds} rounds of ${runs} runs per command (${warmup} warm-up), the builds' order swapped every round; the 1,000-monitor validation 2 runs per round; CPU = user + system, median of the round means`,
  builds: builds.map(({ label }) => label),
  bareCpuMedianMs: round1(bareCpu),
  rows,
};
if (values.out) writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
const [la, lb] = builds.map(({ label }) => label);
console.log(`\nnode -e 0: CPU ${round1(bareCpu)} ms (median of ${rounds} rounds); load ${report.machine.loadAverageFromTo.join('-')}`);
console.log(['command', `${la} CPU`, `${lb} CPU`, `${lb}/${la} (median of rounds, min-max, rounds ${lb} faster)`, `${la} wall`, `${lb} wall`].join('\t'));
for (const row of rows) {
  const r = row[`${lb}/${la}`];
  console.log(
    [
      row.command,
      `${row[la].cpuMedianMs} ms (${row[la].cpuRatioToBare}x)`,
      `${row[lb].cpuMedianMs} ms (${row[lb].cpuRatioToBare}x)`,
      `${r.medianOfRounds} (${r.min}-${r.max}, ${r.roundsFaster}/${rounds})`,
      `${row[la].wallMedianMs} ms`,
      `${row[lb].wallMedianMs} ms`,
    ].join('\t'),
  );
}
