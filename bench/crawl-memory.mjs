#!/usr/bin/env node
// Peak memory and wall time of `webwatch crawl` over a generated 1,000-page site served from
// 127.0.0.1 by this script (a separate process from the crawler). Goal: peak RSS < 300 MiB.
// Usage: npm run build && node bench/crawl-memory.mjs [--pages 1000]
import { spawn, spawnSync } from 'node:child_process';
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
const pages = Number(arg('--pages', 1000));
if (!existsSync(join(root, 'dist/src/cli/main.js'))) {
  console.error('dist/ is missing: run npm run build first');
  process.exit(2);
}
if (spawnSync('/usr/bin/time', ['-v', 'true']).status !== 0) {
  console.error('GNU time is needed for peak memory: apt-get install time');
  process.exit(2);
}

// Each page: a realistic article body (~12 KB of HTML) and links to 5 other pages, so the
// crawler discovers the whole site through links alone.
const paragraph = (i, j) =>
  `<p>Paragraph ${j} of page ${i}. ${'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. '.repeat(6)}</p>`;
function pageHtml(i) {
  const links = [1, 2, 3, 7, 13].map((step) => `<li><a href="/page/${(i * step + step) % pages}">Page ${(i * step + step) % pages}</a></li>`).join('');
  return `<!doctype html><html lang="en"><head><title>Page ${i} | Bench site</title><meta name="description" content="Page ${i}"></head>
<body><header><nav><a href="/">Home</a></nav></header><main><article><h1>Page ${i}</h1>${Array.from({ length: 12 }, (_, j) => paragraph(i, j)).join('')}
<ul>${links}</ul></article></main><footer>Bench site</footer></body></html>`;
}
const server = createServer((request, response) => {
  const match = /^\/page\/(\d+)$/.exec(request.url);
  if (request.url === '/')
    return response.writeHead(200, { 'content-type': 'text/html' }).end(pageHtml(0).replace('<ul>', '<ul><li><a href="/page/1">start</a></li>'));
  if (!match || Number(match[1]) >= pages) return response.writeHead(404).end();
  response.writeHead(200, { 'content-type': 'text/html' }).end(pageHtml(Number(match[1])));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

const home = mkdtempSync(join(tmpdir(), 'webwatch-bench-'));
// Other work on the machine moves the wall time a lot; the crawl's own CPU time much less.
const loadAtStart = +loadavg()[0].toFixed(2);
const started = performance.now();
const child = spawn(
  '/usr/bin/time',
  [
    '-v',
    process.execPath,
    join(root, 'bin/webwatch.js'),
    'crawl',
    `${origin}/`,
    '--limit',
    String(pages),
    '--max-depth',
    '1000',
    '--sitemap',
    'skip',
    '--ignore-robots-txt',
    '--json',
  ],
  {
    env: { PATH: process.env.PATH, HOME: home, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') },
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
let lines = 0;
let stderr = '';
child.stdout.on('data', (chunk) => (lines += chunk.toString().split('\n').length - 1));
child.stderr.on('data', (chunk) => (stderr += chunk));
const code = await new Promise((resolve) => child.on('exit', resolve));
const seconds = (performance.now() - started) / 1000;
server.close();
const peakKiB = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1]);
const cpuSeconds = Number(/User time \(seconds\): ([\d.]+)/.exec(stderr)?.[1]) + Number(/System time \(seconds\): ([\d.]+)/.exec(stderr)?.[1]);
if (code !== 0 || !peakKiB) {
  console.error(stderr);
  process.exit(1);
}
const result = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version, loadAtStart },
  pages: lines,
  wallSeconds: +seconds.toFixed(2),
  pagesPerSecond: +(lines / seconds).toFixed(1),
  /** User and system CPU time of the crawl's process (all its threads). */
  cpuSeconds: +cpuSeconds.toFixed(2),
  peakRssMiB: +(peakKiB / 1024).toFixed(1),
  goal: 'peak RSS < 300 MiB',
  goalMet: peakKiB / 1024 < 300,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/crawl-memory.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(
  `crawled ${result.pages} pages in ${result.wallSeconds} s (${result.pagesPerSecond} pages/s, CPU ${result.cpuSeconds} s, load ${loadAtStart}), peak RSS ${result.peakRssMiB} MiB (goal < 300 MiB: ${result.goalMet ? 'met' : 'not met'})`,
);
