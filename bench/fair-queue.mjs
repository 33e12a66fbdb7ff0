#!/usr/bin/env node
/**
 * One team's queued work beside another's flood (`webwatch serve` in its own process, default
 * `--job-concurrency 20`): team A starts 20 crawls of a slow site (each page answers after 2 s
 * and links to 20 more; `limit: 40`), then team B starts a 2-page crawl, a monitor run and an
 * agent job (a scripted model on 127.0.0.1 that finishes at its first turn). Measured: the time
 * from B's request to each of its jobs ending, alone (unloaded) and under A's crawls (loaded).
 * Goal: loaded within 2x of unloaded. With `--bin PATH` given twice, the builds run side by side
 * in the same run, each on a fresh home.
 * Usage: npm run build && node bench/fair-queue.mjs [--bin bin/webwatch.js --bin OLD/bin/webwatch.js] [--runs 3]
 * Writes bench/results/fair-queue.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startServe } from './serve-process.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { bin: { type: 'string', multiple: true }, runs: { type: 'string', default: '3' } } });
const bins = (args.bin ?? ['bin/webwatch.js']).map((bin) => resolve(bin));
/** The first build is this one, a second the build before: results name no path of the machine. */
const label = (bin) => (bin === bins[0] ? 'this build' : 'build before');
const RUNS = Number(args.runs);

const listen = async (handler) => {
  const server = createServer(handler);
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
};
const page = (title, body) => `<html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
// The slow site: every page after 2 s, with 20 links further down.
const slow = await listen((request, response) => {
  if (request.url === '/robots.txt' || request.url === '/sitemap.xml') return void response.writeHead(404).end();
  const links = Array.from({ length: 20 }, (_, i) => `<a href="${request.url.replace(/\/$/, '')}/${i}">${i}</a>`).join(' ');
  setTimeout(() => response.writeHead(200, { 'content-type': 'text/html' }).end(page(request.url, `<p>Slow page ${request.url}.</p>${links}`)), 2_000);
});
// Team B's site: two quick pages.
const quick = await listen((request, response) => {
  if (request.url === '/robots.txt' || request.url === '/sitemap.xml') return void response.writeHead(404).end();
  response.writeHead(200, { 'content-type': 'text/html' }).end(page(request.url, `<p>Quick page ${request.url}.</p><a href="/two">two</a>`));
});
// The model: finishes at once with a result.
const model = await listen((request, response) => {
  let text = '';
  request.on('data', (chunk) => (text += chunk));
  request.on('end', () => {
    const body = JSON.parse(text);
    const message = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'finish', arguments: JSON.stringify({ result: { ok: true } }) } }],
    };
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'c',
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, message, finish_reason: 'tool_calls' }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
    );
  });
});

async function api(base, key, method, path, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body && { body: JSON.stringify(body) }),
  });
  return response.json();
}
async function until(probe) {
  for (;;) {
    const value = await probe();
    if (value) return value;
    await new Promise((done) => setTimeout(done, 20));
  }
}

/** Team B's three jobs, started together: each one's seconds from its request to its end. */
async function teamB(base, key, round) {
  const at = performance.now();
  const crawl = (async () => {
    const { id } = await api(base, key, 'POST', '/crawl', { url: `${quick.origin}/${round}/`, limit: 2, scrapeOptions: { maxAge: 0 } });
    await until(async () => ['completed', 'failed'].includes((await api(base, key, 'GET', `/crawl/${id}`)).status));
    return (performance.now() - at) / 1000;
  })();
  const check = (async () => {
    const monitor = (
      await api(base, key, 'POST', '/monitor', {
        name: `B ${round}`,
        schedule: { cron: '0 0 * * *' },
        targets: [{ type: 'scrape', urls: [`${quick.origin}/m/${round}`] }],
      })
    ).data;
    const started = performance.now();
    const run = (await api(base, key, 'POST', `/monitor/${monitor.id}/run`, {})).data;
    await until(async () => !['queued', 'running'].includes((await api(base, key, 'GET', `/monitor/${monitor.id}/checks/${run.id}`)).data.status));
    return (performance.now() - started) / 1000;
  })();
  const agent = (async () => {
    const { id } = await api(base, key, 'POST', '/agent', { prompt: `job ${round}` });
    await until(async () => ['completed', 'failed'].includes((await api(base, key, 'GET', `/agent/${id}`)).status));
    return (performance.now() - at) / 1000;
  })();
  const [crawlS, checkS, agentS] = await Promise.all([crawl, check, agent]);
  return { crawl: crawlS, check: checkS, agent: agentS };
}

async function measure(bin) {
  const home = mkdtempSync(join(tmpdir(), 'webwatch-fair-'));
  mkdirSync(join(home, 'config', 'webwatch'), { recursive: true });
  writeFileSync(join(home, 'config', 'webwatch', 'config.yaml'), `llm: {baseUrl: "${model.origin}/v1", model: scripted}\n`);
  const env = { PATH: process.env.PATH, HOME: home, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') };
  const { server, base, key: keyA } = await startServe(bin, env);
  const keyB = JSON.parse(spawnSync(process.execPath, [bin, 'keys', 'create', '--team', 'other', '--json'], { env, encoding: 'utf8' }).stdout).key;
  try {
    // A first round warms the server up; the second is the unloaded figure.
    await teamB(base, keyB, 'warm');
    const unloaded = await teamB(base, keyB, 'alone');
    const crawls = [];
    for (let i = 0; i < 20; i++)
      crawls.push((await api(base, keyA, 'POST', '/crawl', { url: `${slow.origin}/a${i}/`, limit: 40, scrapeOptions: { maxAge: 0 } })).id);
    // A's crawls are claimed and fetching.
    await new Promise((done) => setTimeout(done, 3_000));
    const loaded = await teamB(base, keyB, 'loaded');
    for (const id of crawls) await api(base, keyA, 'DELETE', `/crawl/${id}`);
    return { unloaded, loaded };
  } finally {
    server.kill('SIGTERM');
    await new Promise((done) => server.once('exit', done));
    rmSync(home, { recursive: true, force: true });
  }
}

const results = Object.fromEntries(bins.map((bin) => [label(bin), []]));
for (let run = 0; run < RUNS; run++) {
  for (const bin of bins) {
    const measured = await measure(bin);
    results[label(bin)].push(measured);
    console.log(`${label(bin)}: unloaded ${JSON.stringify(measured.unloaded)} loaded ${JSON.stringify(measured.loaded)}`);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const summary = Object.fromEntries(
  bins.map((bin) => [
    label(bin),
    Object.fromEntries(
      ['crawl', 'check', 'agent'].map((job) => {
        const unloaded = median(results[label(bin)].map((r) => r.unloaded[job]));
        const loaded = median(results[label(bin)].map((r) => r.loaded[job]));
        return [job, { unloadedS: +unloaded.toFixed(2), loadedS: +loaded.toFixed(2), ratio: +(loaded / unloaded).toFixed(1) }];
      }),
    ),
  ]),
);
console.log(JSON.stringify(summary, null, 2));
writeFileSync(
  join(ROOT, 'bench/results/fair-queue.json'),
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version },
      runs: RUNS,
      summary,
      results,
    },
    null,
    2,
  )}\n`,
);
for (const { server } of [slow, quick, model]) server.close();
process.exit(0);
