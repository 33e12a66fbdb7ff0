#!/usr/bin/env node
// How long one large page holds up everyone else on `webwatch serve`: while serve scrapes a
// page of 1, 19 or 50 MB (text, bare <div>s, 200,000 nested <div>s, four 19 MB pages at once),
// a pinger in another process asks GET /health back to back and keeps its slowest answer, and
// serve's own event-loop delay (perf_hooks.monitorEventLoopDelay, loaded with --import) gives
// its longest stall. Small pages are timed too, one at a time and eight at once, so that the
// price of the large pages' path shows where most pages go (the better of two rounds each, builds
// in turn), and an idle spell gives the stall the machine's own load causes.
// With --against DIR, the serve of another build (a checkout with its own dist/) runs the same
// cases in the same run, each case on one build then the other.
// Usage: npm run build && node bench/event-loop-stall.mjs [--runs 2] [--against DIR] [--cases name,name] [--corpus DIR]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const flag = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const runs = Number(flag('--runs', 2)) || 2;
const against = flag('--against', undefined);
const MB = 1024 * 1024;
const corpus = flag('--corpus', join(root, '..', 'shared', 'corpus', 'pages'));

// Text-heavy HTML cut from a real saved page (the corpus's longest article), repeated to size.
const article = readFileSync(join(corpus, 'wikipedia-2/source.html'), 'utf8');
const articleBody = article.slice(article.indexOf('<body'), article.lastIndexOf('</body>'));
const articleOf = (bytes) => {
  const inner = articleBody.replace(/^<body[^>]*>/, '');
  return Buffer.from(
    `<!doctype html><html><head><title>Long</title></head><body>${inner.repeat(Math.ceil(bytes / inner.length)).slice(0, bytes)}</body></html>`,
  );
};
const smallPage = (n) =>
  Buffer.from(
    `<!doctype html><html><head><title>Page ${n}</title></head><body><nav><a href="/">Home</a></nav><main><article><h1>Page ${n}</h1>${'<p>A paragraph of ordinary text, long enough to read as the page\'s content. <a href="/x">A link</a>.</p>'.repeat(40)}</article></main><footer>Footer</footer></body></html>`,
  );
const corpusPage = readFileSync(join(corpus, 'webmd-2/source.html'));

const pages = {
  'article-1mb': articleOf(1 * MB),
  'article-19mb': articleOf(19 * MB),
  'article-50mb': articleOf(50 * MB),
  'divs-19mb': Buffer.from('<div>'.repeat(Math.floor((19 * MB) / 5))),
  'nested-200k': Buffer.from(`${'<div>'.repeat(200_000)}deep text${'</div>'.repeat(200_000)}`),
  'small-5kb': smallPage(1),
  'corpus-137kb': corpusPage,
};
const site = createServer((request, response) => {
  const name = new URL(request.url, 'http://x').pathname.slice(1).split('/')[0];
  const body = pages[name];
  if (!body) return response.writeHead(404).end();
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length }).end(body);
});
await new Promise((done) => site.listen(0, '127.0.0.1', done));
const siteUrl = `http://127.0.0.1:${site.address().port}`;

// serve's own event-loop delay: its longest stall since the last SIGUSR2, written where the bench reads it.
const work = join(root, 'bench/.work/event-loop-stall');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const hook = join(work, 'loop-delay.mjs');
writeFileSync(
  hook,
  `
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeFileSync } from 'node:fs';
const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
process.on('SIGUSR2', () => {
  writeFileSync(process.env.LOOP_DELAY_FILE, JSON.stringify({ maxMs: histogram.max / 1e6 }));
  histogram.reset();
});
`,
);

// GET /health back to back from another process; on 'report', its slowest answer since the last one.
const pingerScript = `
const base = process.argv[1];
let slowest = 0, count = 0;
process.on('message', (m) => { if (m === 'report') { process.send({ slowestMs: slowest, pings: count }); slowest = 0; count = 0; } else if (m === 'stop') process.exit(0); });
(async () => { for (;;) { const t = performance.now(); try { await (await fetch(base + '/health')).arrayBuffer(); } catch {} const ms = performance.now() - t; if (ms > slowest) slowest = ms; count++; await new Promise((r) => setTimeout(r, 5)); } })();
`;

async function startBuild(dir, name) {
  const bin = join(dir, 'bin/webwatch.js');
  const home = mkdtempSync(join(tmpdir(), 'webwatch-loop-stall-'));
  const loopFile = join(work, `${name.replace(/\W/g, '_')}.json`);
  const env = { ...process.env, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config'), LOOP_DELAY_FILE: loopFile };
  delete env.NODE_OPTIONS;
  const key = JSON.parse(spawnSync(process.execPath, [bin, 'keys', 'create', '--team', 'bench', '--json'], { env, encoding: 'utf8' }).stdout).key;
  const server = spawn(
    process.execPath,
    ['--import', hook, bin, 'serve', '--port', '0', '--json', '--quiet', '--allow-private-targets', '--rate-limit', '100000000', '--concurrency', '1000'],
    { env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const base = await new Promise((done) => {
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      try {
        done(JSON.parse(out).url.replace(/\/v2\/?$/, ''));
      } catch {
        // Not all of it yet.
      }
    });
  });
  const pinger = spawn(process.execPath, ['-e', pingerScript, base], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const loopDelay = async () => {
    server.kill('SIGUSR2');
    for (let i = 0; i < 100; i++) {
      await new Promise((done) => setTimeout(done, 20));
      try {
        const { maxMs } = JSON.parse(readFileSync(loopFile, 'utf8'));
        rmSync(loopFile);
        return maxMs;
      } catch {
        // Not written yet.
      }
    }
    return undefined;
  };
  const pingReport = () =>
    new Promise((done) => {
      pinger.once('message', done);
      pinger.send('report');
    });
  return {
    name,
    base,
    headers,
    pid: server.pid,
    loopDelay,
    pingReport,
    async stop() {
      pinger.send('stop');
      server.kill('SIGTERM');
      await new Promise((done) => server.on('exit', done));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

async function scrape(build, page, n = 0) {
  const started = performance.now();
  const response = await fetch(`${build.base}/v2/scrape`, {
    method: 'POST',
    headers: build.headers,
    body: JSON.stringify({ url: `${siteUrl}/${page}/${n}`, maxAge: 0, timeout: 120_000 }),
  });
  const body = await response.json();
  return { ms: performance.now() - started, status: response.status, markdownChars: body.data?.markdown?.length, error: body.error, code: body.code };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const largeCases = {
  'article-1mb': { pages: ['article-1mb'] },
  'article-19mb': { pages: ['article-19mb'] },
  'article-50mb': { pages: ['article-50mb'] },
  'divs-19mb': { pages: ['divs-19mb'] },
  'nested-200k': { pages: ['nested-200k'] },
  'four-article-19mb': { pages: ['article-19mb', 'article-19mb', 'article-19mb', 'article-19mb'] },
};

/** One large case on one build: its scrapes at once, the slowest /health answer and serve's longest stall meanwhile. */
async function largeCase(build, name) {
  await build.loopDelay();
  await build.pingReport();
  const started = performance.now();
  const results = await Promise.all(largeCases[name].pages.map((page, i) => scrape(build, page, i)));
  const wallMs = performance.now() - started;
  // The ping held up by a stall is answered when the stall ends: give it time to come back.
  await new Promise((done) => setTimeout(done, 500));
  const ping = await build.pingReport();
  return {
    wallMs,
    slowestHealthMs: ping.slowestMs,
    healthPings: ping.pings,
    loopDelayMaxMs: await build.loopDelay(),
    statuses: results.map((r) => r.status),
    codes: results.map((r) => r.code).filter(Boolean),
    markdownChars: results.map((r) => r.markdownChars),
  };
}

/** Nothing asked for a few seconds: the stall the machine's own load gives, the floor of the others. */
async function idleCase(build) {
  await build.loopDelay();
  await build.pingReport();
  await new Promise((done) => setTimeout(done, 5_000));
  const ping = await build.pingReport();
  return {
    wallMs: 5_000,
    slowestHealthMs: ping.slowestMs,
    healthPings: ping.pings,
    loopDelayMaxMs: await build.loopDelay(),
    statuses: [],
    codes: [],
    markdownChars: [],
  };
}

/** Small pages: the median of one-at-a-time scrapes, then pages a second with eight in flight. */
async function smallCase(build, page) {
  for (let i = 0; i < 100; i++) await scrape(build, page, i);
  const times = [];
  for (let i = 0; i < 60; i++) times.push((await scrape(build, page, i)).ms);
  const seconds = 5;
  let done = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: 8 }, async (_, lane) => {
      for (let i = 0; performance.now() < until; i++, done++) await scrape(build, page, lane * 100_000 + i);
    }),
  );
  return {
    medianMs: +median(times).toFixed(2),
    p90Ms: +[...times].sort((a, b) => a - b)[Math.floor(times.length * 0.9)].toFixed(2),
    pagesPerSecondAt8: +(done / seconds).toFixed(1),
  };
}

const againstCommit = against && spawnSync('git', ['-C', resolve(against), 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
const head = spawnSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
const dirty = spawnSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no', '--', '.', ':!bench'], { encoding: 'utf8' }).stdout.trim() !== '';
const builds = [{ name: `serve ${head}${dirty ? '+' : ''}`, dir: root }, ...(against ? [{ name: `serve ${againstCommit}`, dir: resolve(against) }] : [])];
const started = [];
for (const build of builds) started.push(await startBuild(build.dir, build.name));

// Small pages first, on fresh serves, each warmed up by its own small pages (as a server is).
const chosen = flag('--cases', ['small-5kb', 'corpus-137kb', 'idle', ...Object.keys(largeCases)].join(',')).split(',');
const results = {};
for (const name of chosen) {
  results[name] = {};
  if (largeCases[name] || name === 'idle') {
    for (const build of started) results[name][build.name] = [];
    for (let run = 0; run < runs; run++)
      for (const build of started) results[name][build.name].push(name === 'idle' ? await idleCase(build) : await largeCase(build, name));
    console.log(name);
    for (const build of started) {
      const all = results[name][build.name];
      console.log(
        `  ${build.name.padEnd(22)} scrape ${all.map((r) => Math.round(r.wallMs)).join(', ')} ms  slowest /health ${all.map((r) => Math.round(r.slowestHealthMs)).join(', ')} ms  loop stall ${all.map((r) => Math.round(r.loopDelayMaxMs)).join(', ')} ms  status ${all[0].statuses.join(',')} ${all[0].codes.join(',')}`,
      );
    }
  } else {
    // Each build in turn, twice, so that neither has the quieter minute.
    for (const build of started) results[name][build.name] = [];
    for (let round = 0; round < 2; round++) for (const build of started) results[name][build.name].push(await smallCase(build, name));
    for (const build of started) {
      const [first, second] = results[name][build.name];
      results[name][build.name] = {
        medianMs: Math.min(first.medianMs, second.medianMs),
        p90Ms: Math.min(first.p90Ms, second.p90Ms),
        pagesPerSecondAt8: Math.max(first.pagesPerSecondAt8, second.pagesPerSecondAt8),
        rounds: [first, second],
      };
    }
    for (const build of started) results[name][build.name].loopDelayMaxMs = await build.loopDelay();
    console.log(name);
    for (const build of started) {
      const r = results[name][build.name];
      console.log(
        `  ${build.name.padEnd(22)} one at a time: median ${r.medianMs} ms, p90 ${r.p90Ms} ms  eight at once: ${r.pagesPerSecondAt8} pages/s  (better of two rounds; loop stall ${Math.round(r.loopDelayMaxMs)} ms)`,
      );
    }
  }
}

for (const build of started) await build.stop();
site.close();

const result = {
  date: new Date().toISOString(),
  machine: {
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    loadAverageAtEnd: loadavg().map((value) => +value.toFixed(2)),
  },
  builds: builds.map((build) => build.name),
  runs,
  pageBytes: Object.fromEntries(Object.entries(pages).map(([name, body]) => [name, body.length])),
  results,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/event-loop-stall.json'), `${JSON.stringify(result, null, 2)}\n`);
