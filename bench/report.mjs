#!/usr/bin/env node
/**
 * `webwatch monitor report` of a check with 500 changed pages: a site of 500 article pages on
 * 127.0.0.1, crawled by a monitor twice, with a price, a paragraph and a sentence changed on
 * every page between the checks. Measures the report command's wall time and peak memory (GNU
 * time, the whole process), the file's size, and how long the system's Chromium takes to open it
 * (navigation to the `load` event, a fresh context each time), against the goals: written in
 * under 2 s and 50 MB (beyond what `monitor checks` on the same database takes), open in under
 * 3 s. Then the same for a check of 20 pages with
 * screenshots (each compared pixel by pixel).
 *
 * Usage: npm run build && node bench/report.mjs [--runs 5] [--pages 500]
 * Needs Chromium (apt-get install chromium) and GNU time. Writes bench/results/report.json.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, pages: { type: 'string', default: '500' } } });
const runs = Number(values.runs);
const pages = Number(values.pages);
const work = mkdtempSync(join(tmpdir(), 'webwatch-report-bench-'));

let version = 1;
const paragraphs = (n, seed) =>
  Array.from(
    { length: 30 },
    (_, i) => `<p>Paragraph ${i + 1} of article ${n}: ${'the quick brown fox jumps over the lazy dog and runs on '.repeat(3)}(${seed}).</p>`,
  );
function article(n) {
  const body = paragraphs(n, 'stable');
  body[3] = `<p>The price of item ${n} is $${version === 1 ? 10 + (n % 7) : 12 + (n % 7)} today, shipping included.</p>`;
  body[15] = version === 1 ? `<p>A paragraph that the second version of page ${n} drops.</p>` : '';
  body[25] = `<p>Last sentence ${version === 1 ? 'before' : 'after'} the update of page ${n}, with a few more words.</p>`;
  return `<html><head><title>Article ${n}</title></head><body><main><h1>Article ${n}</h1>${body.join('')}</main></body></html>`;
}
const server = createServer((request, response) => {
  const path = new URL(request.url, 'http://x').pathname;
  if (path === '/')
    return void response
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<main>${Array.from({ length: pages }, (_, i) => `<a href="/a/${i}">${i}</a>`).join(' ')}</main>`);
  const match = /^\/(a|s)\/(\d+)$/.exec(path);
  if (!match) return void response.writeHead(404).end();
  // The screenshot pages: a coloured box that moves between versions.
  const box = match[1] === 's' ? `<div style="height:200px;background:${version === 1 ? '#fff' : '#fc0'}">box</div>` : '';
  response.writeHead(200, { 'content-type': 'text/html' }).end(article(Number(match[2])).replace('</main>', `${box}</main>`));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

const BIN = join(ROOT, 'bin/webwatch.js');
/** Runs webwatch under GNU time; the wall seconds, peak resident KiB and stdout. */
async function webwatch(args, env) {
  const started = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%M', process.execPath, BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const status = await new Promise((resolve) => child.on('close', resolve));
  const seconds = (performance.now() - started) / 1000;
  if (status !== 0) throw new Error(`webwatch ${args.join(' ')}: exit ${status}: ${stderr}`);
  return { seconds, peakMiB: Number(stderr.trim().split('\n').pop()) / 1024, stdout };
}

async function scenario(name, monitorYaml) {
  const env = { WEBWATCH_HOME: mkdtempSync(join(work, 'home-')) };
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, monitorYaml);
  await webwatch(['monitor', 'apply', '-f', file], env);
  version = 1;
  await webwatch(['monitor', 'run', 'Bench'], env);
  version = 2;
  const check = JSON.parse((await webwatch(['monitor', 'run', 'Bench', '--json'], env)).stdout);
  const out = join(work, `${name}.html`);
  const written = [];
  const baseline = [];
  for (let i = 0; i < runs; i++) {
    written.push(await webwatch(['monitor', 'report', 'Bench', check.id, '-o', out], env));
    // What any command reading the same database takes: the process, its code and SQLite.
    baseline.push(await webwatch(['monitor', 'checks', 'Bench'], env));
  }
  return { check, out, written, baseline, bytes: statSync(out).size };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { chromium } = await import(pathToFileURL(join(ROOT, 'node_modules/playwright-core/index.mjs')).href);
const { findChromium } = await import(pathToFileURL(join(ROOT, 'dist/src/engine/browser/chromium.js')).href);
const browser = await chromium.launch({ executablePath: findChromium(process.env, undefined, 'the bench') });
async function opening(file) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    times.push((performance.now() - started) / 1000);
    await context.close();
  }
  return times;
}

const results = [];
const text = await scenario(
  'text',
  `name: Bench\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: crawl\n    url: ${origin}/\n    crawlOptions: {limit: ${pages + 1}, sitemap: skip, ignoreRobotsTxt: true}\n`,
);
const shots = await scenario(
  'screenshots',
  `name: Bench\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: scrape\n    urls: [${Array.from({ length: 20 }, (_, i) => `"${origin}/s/${i}"`).join(', ')}]\n    scrapeOptions: {formats: [markdown, {type: screenshot, fullPage: true}]}\n`,
);
for (const [name, run] of [
  ['text', text],
  ['screenshots', shots],
]) {
  const opened = await opening(run.out);
  results.push({
    name,
    changedPages: run.check.summary.changed,
    reportBytes: run.bytes,
    writeSeconds: { median: median(run.written.map((w) => w.seconds)), all: run.written.map((w) => Number(w.seconds.toFixed(3))) },
    peakMiB: { median: median(run.written.map((w) => w.peakMiB)), max: Math.max(...run.written.map((w) => w.peakMiB)) },
    // `monitor checks` on the same database: the part of the peak that is not the report's.
    baselinePeakMiB: median(run.baseline.map((w) => w.peakMiB)),
    openSeconds: { median: median(opened), all: opened.map((s) => Number(s.toFixed(3))) },
  });
}
await browser.close();
server.close();

const machine = { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version, loadAverage: loadavg().map((l) => Number(l.toFixed(2))) };
for (const r of results) {
  console.log(
    `${r.name}: ${r.changedPages} changed pages, report ${(r.reportBytes / 1024 / 1024).toFixed(2)} MiB; written in ${r.writeSeconds.median.toFixed(2)} s (median of ${runs}), peak ${r.peakMiB.max.toFixed(0)} MiB (monitor checks: ${r.baselinePeakMiB.toFixed(0)} MiB, so the report's own ${(r.peakMiB.max - r.baselinePeakMiB).toFixed(0)} MiB); opened in ${r.openSeconds.median.toFixed(2)} s`,
  );
}
console.log(`machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, load ${machine.loadAverage.join(' ')}`);
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, 'bench/results/report.json'), `${JSON.stringify({ date: new Date().toISOString(), machine, runs, results }, null, 2)}\n`);
