#!/usr/bin/env node
// One monitor check over a generated 500-page site served from 127.0.0.1, first check (all
// pages new) and an unchanged second check, wall time and peak memory, side by side with
// urlwatch checking the same pages (url jobs with the html2text filter) in the same run.
// Goal: webwatch's wall time at most half of urlwatch's.
// Needs GNU time and urlwatch (Debian: apt-get install time urlwatch). Without urlwatch, it
// says so and times webwatch alone (no ratio), so that its own figures can still be followed.
// Usage: npm run build && node bench/monitor-vs-urlwatch.mjs [--pages 500] [--rounds 1]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const pages = Number(arg('--pages', 500));
const rounds = Number(arg('--rounds', 1));
if (spawnSync('/usr/bin/time', ['--version']).error) {
  console.error('/usr/bin/time is needed: apt-get install time');
  process.exit(2);
}
const haveUrlwatch = !spawnSync('urlwatch', ['--version']).error;
if (!haveUrlwatch) console.error('urlwatch is not installed (apt-get install urlwatch): timing webwatch alone, no ratio');
if (!existsSync(join(root, 'dist/src/cli/main.js'))) {
  console.error('dist/ is missing: run npm run build first');
  process.exit(2);
}

const paragraph = (i, j) =>
  `<p>Paragraph ${j} of page ${i}. ${'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. '.repeat(6)}</p>`;
const page = (i) => `<!doctype html><html lang="en"><head><title>Page ${i}</title></head><body><header><nav><a href="/">Home</a></nav></header>
<main><article><h1>Page ${i}</h1>${Array.from({ length: 12 }, (_, j) => paragraph(i, j)).join('')}</article></main><footer>Bench</footer></body></html>`;
const server = createServer((request, response) => {
  const match = /^\/page\/(\d+)$/.exec(request.url);
  if (!match) return response.writeHead(404).end();
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(Number(match[1])));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const urls = Array.from({ length: pages }, (_, i) => `${origin}/page/${i}`);

const work = mkdtempSync(join(tmpdir(), 'webwatch-vs-urlwatch-'));
// GNU time runs the command; its report follows on stderr.
function timed(command, args, env) {
  return new Promise((resolve) => {
    import('node:child_process').then(({ spawn }) => {
      const child = spawn('/usr/bin/time', ['-v', command, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('exit', (code) => {
        const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(stderr);
        const seconds = wall ? Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]) : NaN;
        const rss = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1]) / 1024;
        const cpu = Number(/User time \(seconds\): ([\d.]+)/.exec(stderr)?.[1]) + Number(/System time \(seconds\): ([\d.]+)/.exec(stderr)?.[1]);
        resolve({ code, seconds, cpuSeconds: +cpu.toFixed(2), peakRssMiB: +rss.toFixed(1), stderr });
      });
    });
  });
}

writeFileSync(
  join(work, 'monitor.yaml'),
  `name: Bench\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: scrape\n    urls:\n${urls.map((u) => `      - ${u}`).join('\n')}\n`,
);
const bin = join(root, 'bin/webwatch.js');
/** webwatch: one monitor, one scrape target with every page, first and unchanged check, from a fresh home. */
async function webwatchRound(round) {
  const home = join(work, `webwatch-${round}`);
  mkdirSync(home, { recursive: true });
  const wwEnv = { HOME: home, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') };
  const apply = spawnSync(process.execPath, [bin, 'monitor', 'apply', '-f', join(work, 'monitor.yaml')], { env: { PATH: process.env.PATH, ...wwEnv } });
  if (apply.status !== 0) throw new Error(apply.stderr.toString());
  const runs = [];
  for (let i = 0; i < 2; i++) runs.push(await timed(process.execPath, [bin, 'monitor', 'run', 'Bench', '--quiet'], wwEnv));
  return runs;
}
/** urlwatch: the same pages as url jobs with html2text, its own cache and config. */
async function urlwatchRound(round) {
  const uw = join(work, `urlwatch-${round}`);
  mkdirSync(uw, { recursive: true });
  writeFileSync(join(uw, 'urls.yaml'), urls.map((url) => `url: ${url}\nfilter:\n  - html2text\n`).join('---\n'));
  writeFileSync(
    join(uw, 'config.yaml'),
    'display:\n  new: true\n  error: true\n  unchanged: false\nreport:\n  text:\n    details: true\n  stdout:\n    enabled: true\n    color: false\n',
  );
  const uwArgs = ['--urls', join(uw, 'urls.yaml'), '--config', join(uw, 'config.yaml'), '--cache', join(uw, 'cache.db')];
  const runs = [];
  for (let i = 0; i < 2; i++) runs.push(await timed('urlwatch', uwArgs, { HOME: uw }));
  return runs;
}
// Rounds alternate which tool goes first, so that a machine whose speed drifts favours neither.
const webwatchRounds = [];
const urlwatchRounds = [];
for (let round = 0; round < rounds; round++) {
  if (haveUrlwatch && round % 2 === 1) urlwatchRounds.push(await urlwatchRound(round));
  webwatchRounds.push(await webwatchRound(round));
  if (haveUrlwatch && round % 2 === 0) urlwatchRounds.push(await urlwatchRound(round));
}
server.close();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const summary = (all, phase) => ({
  seconds: median(all.map((runs) => runs[phase].seconds)),
  range: [Math.min(...all.map((runs) => runs[phase].seconds)), Math.max(...all.map((runs) => runs[phase].seconds))],
  cpuSeconds: median(all.map((runs) => runs[phase].cpuSeconds)),
  peakRssMiB: median(all.map((runs) => runs[phase].peakRssMiB)),
});
const webwatch = webwatchRounds.flat();

if (!haveUrlwatch) {
  if (webwatch.some((r) => r.code !== 0)) {
    console.error(`webwatch failed:\n${webwatch.map((r) => r.stderr).join('\n')}`);
    process.exit(1);
  }
  const alone = { first: summary(webwatchRounds, 0), unchanged: summary(webwatchRounds, 1) };
  const result = {
    date: new Date().toISOString(),
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version },
    pages,
    rounds,
    urlwatch: 'not installed',
    webwatch: alone,
  };
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  writeFileSync(join(root, 'bench/results/monitor-vs-urlwatch.json'), `${JSON.stringify(result, null, 2)}\n`);
  for (const phase of ['first', 'unchanged']) {
    console.log(
      `${phase.padEnd(9)} webwatch ${alone[phase].seconds.toFixed(2)} s (${alone[phase].range.map((x) => x.toFixed(2)).join('-')} s over ${rounds} rounds) ${alone[phase].peakRssMiB} MiB | urlwatch not installed`,
    );
  }
  process.exit(0);
}
const urlwatch = urlwatchRounds.flat();

for (const [name, runs] of [
  ['webwatch', webwatch],
  ['urlwatch', urlwatch],
]) {
  if (runs.some((r) => r.code !== 0)) {
    console.error(`${name} failed:\n${runs.map((r) => r.stderr).join('\n')}`);
    process.exit(1);
  }
}
const version = (command, args) => spawnSync(command, args, { encoding: 'utf8' }).stdout.trim().split('\n')[0];
const result = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version },
  versions: { webwatch: version(process.execPath, [bin, '--version']), urlwatch: version('urlwatch', ['--version']) },
  pages,
  rounds,
  loadAverage: loadavg().map((x) => +x.toFixed(2)),
  webwatch: { first: summary(webwatchRounds, 0), unchanged: summary(webwatchRounds, 1) },
  urlwatch: { first: summary(urlwatchRounds, 0), unchanged: summary(urlwatchRounds, 1) },
};
result.ratio = {
  first: +(result.webwatch.first.seconds / result.urlwatch.first.seconds).toFixed(2),
  unchanged: +(result.webwatch.unchanged.seconds / result.urlwatch.unchanged.seconds).toFixed(2),
};
result.goalMet = result.ratio.first <= 0.5 && result.ratio.unchanged <= 0.5;
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/monitor-vs-urlwatch.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(`${pages} pages, ${result.versions.webwatch} vs urlwatch ${result.versions.urlwatch}`);
for (const phase of ['first', 'unchanged']) {
  const line = (r) => `${r.seconds.toFixed(2)} s (${r.range.map((x) => x.toFixed(2)).join('-')}), CPU ${r.cpuSeconds.toFixed(2)} s, ${r.peakRssMiB} MiB`;
  console.log(
    `${phase.padEnd(9)} webwatch ${line(result.webwatch[phase])} | urlwatch ${line(result.urlwatch[phase])} | ratio of medians ${result.ratio[phase]}`,
  );
}
console.log(`goal (webwatch at most half of urlwatch's wall time): ${result.goalMet ? 'met' : 'not met'}`);
