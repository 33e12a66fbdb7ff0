#!/usr/bin/env node
// Memory of `webwatch serve` after many crawls: 150 crawls of a 1.7 MB page, one at a time,
// each read back once, then the server's resident memory (VmRSS) after a short idle. Crawl
// results are stored in the engine's database, so memory must not grow with the number of
// crawls. Goal: RSS after the crawls within 100 MiB of RSS before them.
// Usage: npm run build && node bench/serve-crawl-memory.mjs [--crawls 150]
import { readFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServe } from './serve-process.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const crawls = Number(arg('--crawls', 150));

// A page of about 1.7 MB of text in paragraphs.
const big = `<!doctype html><html><head><title>Big</title></head><body><main>${Array.from({ length: 8000 }, (_, i) => `<p>Paragraph ${i}: ${'lorem ipsum dolor sit amet '.repeat(7)}</p>`).join('')}</main></body></html>`;
const site = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(big));
await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${site.address().port}`;

const home = mkdtempSync(join(tmpdir(), 'webwatch-bench-'));
const env = { PATH: process.env.PATH, HOME: home, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') };
const { server, base, headers } = await startServe(join(root, 'bin/webwatch.js'), env);
const rssMiB = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))[1]) / 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One crawl first, so that the pipeline is loaded and warm before the baseline.
async function crawlOnce() {
  const { id } = await (
    await fetch(`${base}/crawl`, { method: 'POST', headers, body: JSON.stringify({ url: `${origin}/`, limit: 1, sitemap: 'skip', ignoreRobotsTxt: true }) })
  ).json();
  for (;;) {
    const status = await (await fetch(`${base}/crawl/${id}`, { headers })).json();
    if (status.status !== 'scraping') {
      if (status.data.length !== 1) throw new Error(`crawl ${id}: ${JSON.stringify(status).slice(0, 200)}`);
      return;
    }
    await sleep(20);
  }
}
await crawlOnce();
await sleep(1000);
const before = rssMiB();
const started = performance.now();
for (let i = 0; i < crawls; i++) await crawlOnce();
const seconds = (performance.now() - started) / 1000;
await sleep(3000);
const after = rssMiB();
server.kill('SIGTERM');
site.close();

const result = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version },
  crawls,
  pageBytes: big.length,
  wallSeconds: +seconds.toFixed(1),
  rssBeforeMiB: +before.toFixed(1),
  rssAfterMiB: +after.toFixed(1),
  goal: 'RSS after the crawls within 100 MiB of RSS before them',
  goalMet: after - before < 100,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/serve-crawl-memory.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(
  `${crawls} crawls of a ${(big.length / 1e6).toFixed(1)} MB page in ${result.wallSeconds} s: serve RSS ${result.rssBeforeMiB} -> ${result.rssAfterMiB} MiB (goal: growth < 100 MiB: ${result.goalMet ? 'met' : 'not met'})`,
);
