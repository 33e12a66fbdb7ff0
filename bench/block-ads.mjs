#!/usr/bin/env node
// What blockAds (on by default) costs a browser scrape: 100 browser scrapes (`mobile: true`, 4 at
// a time) of local pages with six sub-resources each (five images and an analytics script the
// tracker database knows), with blockAds true and false, interleaved A/B/A/B..., medians of
// ROUNDS rounds. Each round of the blocking side starts in a fresh process, so the one-time load
// of the tracker database (about 70 ms) is counted in it.
// Usage: npm run build && node bench/block-ads.mjs [rounds]
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.argv[2] ?? 3);

if (process.env.BENCH_SIDE) {
  // One side of one round, in its own process.
  const { scrape } = await import(join(root, 'dist/src/engine/scrape/scrape.js'));
  const { closeBrowserIfOpen } = await import(join(root, 'dist/src/engine/browser/lifetime.js'));
  let trackerRequests = 0;
  const server = createServer((request, response) => {
    if (request.url === '/anametrix.js') trackerRequests++;
    if (request.url.startsWith('/img/') || request.url === '/anametrix.js') return response.writeHead(200, { 'content-type': 'image/gif' }).end();
    const images = [1, 2, 3, 4, 5].map((n) => `<img src="/img/${n}.gif">`).join('');
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        `<!doctype html><html><body><main><h1>Page</h1><p>${'An article paragraph. '.repeat(40)}</p>${images}<script src="/anametrix.js"></script></main></body></html>`,
      );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const context = { version: 'bench', now: () => new Date(), browser: { env: process.env, artifactsDir: mkdtempSync(join(tmpdir(), 'webwatch-bench-')) } };
  const options = { mobile: true, blockAds: process.env.BENCH_SIDE === 'on' };
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < 100) await scrape({ url: `${origin}/page/${next++}`, options }, context);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await closeBrowserIfOpen();
  server.close();
  console.log(JSON.stringify({ seconds, trackerRequests }));
  process.exit(0);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const runs = { on: [], off: [] };
const loads = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const side of round % 2 === 0 ? ['on', 'off'] : ['off', 'on']) {
    loads.push(loadavg()[0]);
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], { env: { ...process.env, BENCH_SIDE: side }, encoding: 'utf8' });
    if (child.status !== 0) throw new Error(child.stderr);
    runs[side].push(JSON.parse(child.stdout.trim().split('\n').pop()));
  }
}
const summary = (side) => ({
  medianSeconds: Math.round(median(runs[side].map((r) => r.seconds)) * 100) / 100,
  pagesPerSecond: Math.round((100 / median(runs[side].map((r) => r.seconds))) * 10) / 10,
  trackerRequestsReceived: runs[side].map((r) => r.trackerRequests),
  seconds: runs[side].map((r) => Math.round(r.seconds * 100) / 100),
});
console.log(
  JSON.stringify(
    {
      machine: `${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`,
      load: `${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
      rounds: ROUNDS,
      blockAdsOn: summary('on'),
      blockAdsOff: summary('off'),
    },
    null,
    2,
  ),
);
