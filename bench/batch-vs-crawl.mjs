#!/usr/bin/env node
// 1,000 pages of a local site scraped two ways: a batch scrape through `webwatch serve`
// (POST /v2/batch/scrape, followed until it ends, every document read back through `next`)
// and `webwatch crawl` on the embedded engine (the same pages, found by the links of an index
// page). Measured: pages per second (wall time from the request to the last document) and the
// peak resident memory of the process doing the work. Both fetch 2 pages at once, the crawler's
// per-host limit, from a cold cache. Goal: the batch within 10 % of the crawl on both.
// Usage: npm run build && node bench/batch-vs-crawl.mjs [--pages 1000] [--runs 3]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServe } from './serve-process.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin/webwatch.js');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const pages = arg('--pages', 1000);
const runs = arg('--runs', 3);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Pages of about 12 KB: a title, navigation, a few paragraphs and a footer, each different.
const pageHtml = (i) => `<!doctype html><html><head><title>Page ${i}</title></head><body>
<nav>${Array.from({ length: 20 }, (_, j) => `<a href="/nav/${j}">Section ${j}</a>`).join(' ')}</nav>
<main><h1>Page ${i}</h1>${Array.from({ length: 12 }, (_, j) => `<p>Paragraph ${j} of page ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(15)}</p>`).join('\n')}</main>
<footer>Footer of page ${i}</footer></body></html>`;
const index = `<!doctype html><html><head><title>Index</title></head><body><main>${Array.from({ length: pages }, (_, i) => `<a href="/p/${i}">Page ${i}</a>`).join('\n')}</main></body></html>`;
const site = createServer((request, response) => {
  const match = /^\/p\/(\d+)$/.exec(request.url ?? '');
  if (request.url === '/') return void response.writeHead(200, { 'content-type': 'text/html' }).end(index);
  if (match) return void response.writeHead(200, { 'content-type': 'text/html' }).end(pageHtml(Number(match[1])));
  response.writeHead(404).end();
});
await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${site.address().port}`;
const urls = Array.from({ length: pages }, (_, i) => `${origin}/p/${i}`);

const status = (pid) => readFileSync(`/proc/${pid}/status`, 'utf8');
const peakMiB = (pid) => Number(/VmHWM:\s+(\d+) kB/.exec(status(pid))[1]) / 1024;
const environment = () => {
  const home = mkdtempSync(join(tmpdir(), 'webwatch-bench-'));
  return { PATH: process.env.PATH, HOME: home, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') };
};

async function batchRun() {
  const { server, base, headers } = await startServe(bin, environment());
  const started = performance.now();
  const { id } = await (
    await fetch(`${base}/batch/scrape`, { method: 'POST', headers, body: JSON.stringify({ urls, maxConcurrency: 2, formats: ['markdown'] }) })
  ).json();
  let documents = 0;
  for (;;) {
    const body = await (await fetch(`${base}/batch/scrape/${id}?skip=${documents}`, { headers })).json();
    documents += body.data.length;
    if (body.next) continue;
    if (body.status !== 'scraping') break;
    await sleep(50);
  }
  const seconds = (performance.now() - started) / 1000;
  const peak = peakMiB(server.pid);
  server.kill('SIGTERM');
  await new Promise((resolve) => server.on('exit', resolve));
  if (documents !== pages) throw new Error(`batch: ${documents} documents of ${pages}`);
  return { seconds, pagesPerSecond: pages / seconds, peakMiB: peak };
}

async function crawlRun() {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [bin, 'crawl', `${origin}/`, '--limit', String(pages + 1), '--max-concurrency', '2', '--sitemap', 'skip', '--ignore-robots-txt', '--json', '--quiet'],
    { env: environment(), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let lines = 0;
  let peak = 0;
  child.stdout.on('data', (chunk) => (lines += chunk.toString().split('\n').length - 1));
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, peakMiB(child.pid));
    } catch {
      // The process has ended.
    }
  }, 20);
  await new Promise((resolve) => child.on('exit', resolve));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  if (lines !== pages + 1) throw new Error(`crawl: ${lines} documents of ${pages + 1}`);
  return { seconds, pagesPerSecond: pages / seconds, peakMiB: peak };
}

const results = [];
for (let run = 1; run <= runs; run++) {
  // Alternating which goes first, so that a drifting machine favours neither.
  const [first, second] = run % 2 ? [batchRun, crawlRun] : [crawlRun, batchRun];
  const a = await first();
  const b = await second();
  const [batch, crawl] = run % 2 ? [a, b] : [b, a];
  results.push({ run, batch, crawl });
  console.log(
    `run ${run}: batch ${batch.pagesPerSecond.toFixed(1)} pages/s, peak ${batch.peakMiB.toFixed(0)} MiB; crawl ${crawl.pagesPerSecond.toFixed(1)} pages/s, peak ${crawl.peakMiB.toFixed(0)} MiB`,
  );
}
site.close();

const median = (values) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)];
const summary = {
  batchPagesPerSecond: +median(results.map((r) => r.batch.pagesPerSecond)).toFixed(1),
  crawlPagesPerSecond: +median(results.map((r) => r.crawl.pagesPerSecond)).toFixed(1),
  batchPeakMiB: +median(results.map((r) => r.batch.peakMiB)).toFixed(0),
  crawlPeakMiB: +median(results.map((r) => r.crawl.peakMiB)).toFixed(0),
};
const speedRatio = summary.batchPagesPerSecond / summary.crawlPagesPerSecond;
const memoryRatio = summary.batchPeakMiB / summary.crawlPeakMiB;
const result = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version },
  pages,
  runs: results,
  median: summary,
  speedRatio: +speedRatio.toFixed(2),
  memoryRatio: +memoryRatio.toFixed(2),
  goal: 'batch pages/s at least 90 % of the crawl, peak memory at most 110 %',
  goalMet: speedRatio >= 0.9 && memoryRatio <= 1.1,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/batch-vs-crawl.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(
  `median: batch ${summary.batchPagesPerSecond} pages/s, ${summary.batchPeakMiB} MiB; crawl ${summary.crawlPagesPerSecond} pages/s, ${summary.crawlPeakMiB} MiB (speed ${result.speedRatio}, memory ${result.memoryRatio}: goal ${result.goalMet ? 'met' : 'not met'})`,
);
