#!/usr/bin/env node
// The browser's cost: 100 scrapes of local pages with the browser (`mobile: true` forces it) at
// the default concurrency (4 at a time, the browser's cap) against the same pages fetched plainly,
// and a 200-page `webwatch crawl --mobile`. Memory is the peak of the whole process tree (node
// and every Chromium process), sampled from /proc every 100 ms. Goal: the crawl under 1.5 GiB.
// Usage: npm run build && node bench/browser.mjs
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { scrape } = await import(join(root, 'dist/src/engine/scrape/scrape.js'));
const { closeBrowserIfOpen } = await import(join(root, 'dist/src/engine/browser/lifetime.js'));
const PAGES = 200;

const paragraph = (i, j) =>
  `<p>Paragraph ${j} of page ${i}. ${'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. '.repeat(5)}</p>`;
const pageHtml = (
  i,
) => `<!doctype html><html lang="en"><head><title>Page ${i}</title></head><body><main><article><h1>Page ${i}</h1>${Array.from({ length: 10 }, (_, j) => paragraph(i, j)).join('')}
<ul>${[1, 2, 3].map((s) => `<li><a href="/page/${(i * s + s) % PAGES}">Page ${(i * s + s) % PAGES}</a></li>`).join('')}</ul></article></main></body></html>`;
const server = createServer((request, response) => {
  const match = /^\/page\/(\d+)$/.exec(request.url);
  if (request.url === '/')
    return response.writeHead(200, { 'content-type': 'text/html' }).end(pageHtml(0).replace('<ul>', '<ul><li><a href="/page/1">start</a></li>'));
  if (!match || Number(match[1]) >= PAGES) return response.writeHead(404).end();
  response.writeHead(200, { 'content-type': 'text/html' }).end(pageHtml(Number(match[1])));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

/** Resident memory of `pid` and all its descendants, in MiB. */
function treeRss(pid) {
  const children = new Map();
  const rss = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const parent = Number(fields[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
      rss.set(Number(entry), Number(fields[21]) * 4096);
    } catch {}
  }
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop();
    total += rss.get(p) ?? 0;
    stack.push(...(children.get(p) ?? []));
  }
  return total / 1024 / 1024;
}
function peakOf(pid) {
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, treeRss(pid))), 100);
  return () => (clearInterval(timer), Math.max(peak, treeRss(pid)));
}

async function scrapes(options) {
  const context = { version: 'bench', now: () => new Date(), browser: { env: process.env, artifactsDir: mkdtempSync(join(tmpdir(), 'webwatch-bench-')) } };
  const stop = peakOf(process.pid);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < 100) await scrape({ url: `${origin}/page/${next++}`, options }, context);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const peak = stop();
  await closeBrowserIfOpen();
  return { pagesPerSecond: Math.round((100 / seconds) * 10) / 10, seconds: Math.round(seconds * 100) / 100, peakMiB: Math.round(peak) };
}

const plain = await scrapes({});
const browser = await scrapes({ mobile: true });

const home = mkdtempSync(join(tmpdir(), 'webwatch-bench-'));
const started = performance.now();
const child = spawn(
  process.execPath,
  [
    join(root, 'bin/webwatch.js'),
    'crawl',
    `${origin}/`,
    '--mobile',
    '--limit',
    String(PAGES),
    '--max-depth',
    '1000',
    '--sitemap',
    'skip',
    '--ignore-robots-txt',
    '--json',
  ],
  {
    env: { PATH: process.env.PATH, HOME: home, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const stopCrawl = peakOf(child.pid);
let lines = 0;
child.stdout.on('data', (chunk) => (lines += chunk.toString().split('\n').length - 1));
const code = await new Promise((resolve) => child.on('exit', resolve));
const crawl = { exit: code, pages: lines, seconds: Math.round((performance.now() - started) / 10) / 100, peakMiB: Math.round(stopCrawl()) };
server.close();

console.log(
  JSON.stringify(
    {
      machine: `${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`,
      plain,
      browser,
      costRatio: Math.round((browser.seconds / plain.seconds) * 10) / 10,
      crawl,
    },
    null,
    2,
  ),
);
