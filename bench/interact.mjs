// Interact sessions on `webwatch serve --interact-code`: the time from an interact call to its
// first action on the page (cold: the session and the browser open; warm: the session is open),
// the memory an open session holds (the server's process tree: Node and every Chromium process),
// and what several sessions working at once cost on this machine.
//
//   node bench/interact.mjs [warm-runs] [sessions]     (after npm run build; needs Chromium and bubblewrap)
//
// The first action's time is read from inside the program: it returns Date.now() just before its
// first page call, against the time the client sent the request (one machine, one clock).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServe } from './serve-process.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin/webwatch.js');
const warmRuns = Number(process.argv[2] ?? 30);
const sessionCount = Number(process.argv[3] ?? 8);

const PAGE = `<title>Plans</title><main><h1>Plans</h1>
<button id="annual" onclick="document.getElementById('price').textContent='$100 a year'">Annual</button>
<p id="price">$10 a month</p>${'<p>Some text of the page, to give it a little weight.</p>'.repeat(200)}</main>`;
const site = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE)).listen(0, '127.0.0.1');
await new Promise((resolve) => site.once('listening', resolve));
const origin = `http://127.0.0.1:${site.address().port}`;

const home = mkdtempSync(join(tmpdir(), 'webwatch-interact-bench-'));
const env = { PATH: process.env.PATH, WEBWATCH_HOME: home };
const { server, base, headers } = await startServe(bin, env, ['--interact-code', '--interact-sessions', '32', '--interact-sessions-per-team', '32']);

const post = async (path, body) => {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
};
const scrapeId = async () => (await post('/scrape', { url: `${origin}/`, formats: ['markdown'], maxAge: 0 })).data.metadata.scrapeId;
/** One call whose program notes the time of its first action: [to first action, whole call] in ms. */
const timedCall = async (id) => {
  const sent = Date.now();
  const answer = await post(`/scrape/${id}/interact`, { code: "const started = Date.now(); await page.locator('#annual').click(); return started" });
  return [Number(answer.result) - sent, Date.now() - sent];
};

/** Resident memory of the server and every process below it (Chromium's), in MiB. */
function treeMemoryMb(pid) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  let kb = 0;
  const visit = (id) => {
    try {
      const status = readFileSync(`/proc/${id}/status`, 'utf8');
      kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      // Gone meanwhile.
    }
    for (const child of children.get(id) ?? []) visit(child);
  };
  visit(pid);
  return kb / 1024;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const p90 = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)];
const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

const results = { machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version } };

// Cold: the first call of the first session also starts the browser; then the first call of a new session.
const memoryBefore = treeMemoryMb(server.pid);
const first = await scrapeId();
const [coldFirstAction, coldCall] = await timedCall(first);
const second = await scrapeId();
const [newSessionFirstAction, newSessionCall] = await timedCall(second);
// Warm: the session is open.
const warm = [];
for (let run = 0; run < warmRuns; run++) warm.push(await timedCall(first));
results.latencyMs = {
  coldFirstSession: { toFirstAction: coldFirstAction, call: coldCall },
  newSessionBrowserRunning: { toFirstAction: newSessionFirstAction, call: newSessionCall },
  warm: {
    runs: warmRuns,
    toFirstActionMedian: median(warm.map(([action]) => action)),
    toFirstActionP90: p90(warm.map(([action]) => action)),
    callMedian: median(warm.map(([, call]) => call)),
    callP90: p90(warm.map(([, call]) => call)),
  },
};
await fetch(`${base}/scrape/${second}/interact`, { method: 'DELETE', headers });

// Memory: sessions opened one by one, the whole tree measured after each has settled.
await settle();
const memory = [{ sessions: 1, treeMb: treeMemoryMb(server.pid) }];
const ids = [first];
for (let count = 2; count <= sessionCount; count++) {
  const id = await scrapeId();
  await timedCall(id);
  ids.push(id);
  await settle();
  memory.push({ sessions: count, treeMb: treeMemoryMb(server.pid) });
}
const perSession = (memory.at(-1).treeMb - memory[0].treeMb) / (memory.length - 1);
results.memory = { beforeAnySessionMb: memoryBefore, bySessions: memory, perSessionMb: perSession };

// Several at once: every open session runs a call at the same time, five rounds.
const together = [];
for (const width of [1, 2, 4, sessionCount]) {
  const times = [];
  const started = Date.now();
  for (let round = 0; round < 5; round++) times.push(...(await Promise.all(ids.slice(0, width).map((id) => timedCall(id)))).map(([, call]) => call));
  together.push({ sessionsAtOnce: width, callMedianMs: median(times), callP90Ms: p90(times), callsPerSecond: (width * 5 * 1000) / (Date.now() - started) });
}
results.concurrent = together;

for (const id of ids) await fetch(`${base}/scrape/${id}/interact`, { method: 'DELETE', headers });
server.kill('SIGTERM');
site.close();
writeFileSync(join(root, 'bench/results/interact.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log(JSON.stringify(results, null, 2));
