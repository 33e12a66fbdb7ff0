#!/usr/bin/env node
// Twenty people following one agent run through `webwatch serve`: 20 processes of
// `webwatch agent trace ID --follow --json` against a serve process whose model (a scripted
// OpenAI-compatible server in this process) takes about a second a turn and then stalls for
// `--stall` seconds, as a real model does on a long answer.
// Measured: the delay from an event being written (its occurredAt, stamped by serve on this
// machine's clock) to each follower printing it (the line arriving on its stdout), p50 and p95
// over every event and follower; the followers' CPU (user + system, from /proc) while the model
// stalls, as a share of one core, and that of one more follower on a pseudo-terminal drawing its
// timeline and ticking status line; and whether every follower saw the whole trace and exited
// with the outcome. Goals (issue: the agent's live view): p95 < 300 ms, idle CPU < 1 % of a core.
// With --against DIR, the followers of another build (a checkout with its own dist/) follow
// the same kind of run on their own serve, in the same run of the bench.
// Usage: npm run build && node bench/agent-follow.mjs [--followers 20] [--turns 10] [--stall 25] [--against DIR]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServe } from './serve-process.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const flag = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const followers = Number(flag('--followers', 20));
const turns = Number(flag('--turns', 10));
const stallSeconds = Number(flag('--stall', 25));
const against = flag('--against', undefined);
const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

// The pages the agent scrapes, one per turn.
const site = createServer((request, response) =>
  response.writeHead(200, { 'content-type': 'text/html' }).end(`<main><h1>Page ${request.url}</h1><p>Some text of ${request.url}.</p></main>`),
);
await new Promise((done) => site.listen(0, '127.0.0.1', done));
const siteOrigin = `http://127.0.0.1:${site.address().port}`;

/** When the scripted model is in its long stall, per run: the bench measures CPU then. */
const stalls = new Map();

// The model: a scrape per turn after about a second, then one long stall, then the result.
const model = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    const parsed = JSON.parse(body);
    const task = parsed.messages.find((m) => m.role === 'user').content;
    const turn = parsed.messages.filter((m) => m.role === 'assistant').length;
    const reply = (message, ms) =>
      setTimeout(
        () =>
          response.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              id: `chatcmpl-${turn}`,
              object: 'chat.completion',
              created: Math.floor(Date.now() / 1000),
              model: parsed.model,
              choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }],
              usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
            }),
          ),
        ms,
      );
    const call = (name, args) => ({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `call_${turn}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    // The first turn waits for the followers to start (20 processes take a few seconds on 2 cores).
    if (turn < turns) return reply(call('scrape', { url: `${siteOrigin}/${turn}` }), turn === 0 ? 8000 : 800 + Math.random() * 400);
    stalls.set(task, { from: Date.now(), to: Date.now() + stallSeconds * 1000 });
    return reply(call('finish', { result: { pages: turns } }), stallSeconds * 1000);
  });
});
await new Promise((done) => model.listen(0, '127.0.0.1', done));
const modelUrl = `http://127.0.0.1:${model.address().port}/v1`;

/** A serve of the build at `dir` on a fresh home whose model is the scripted one, with a key. */
async function startBuild(dir) {
  const bin = join(dir, 'bin/webwatch.js');
  const home = mkdtempSync(join(tmpdir(), 'webwatch-agent-follow-'));
  mkdirSync(join(home, 'config/webwatch'), { recursive: true });
  writeFileSync(join(home, 'config/webwatch/config.yaml'), `llm: {baseUrl: "${modelUrl}", model: scripted}\n`);
  const env = { PATH: process.env.PATH, WEBWATCH_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') };
  const { server, base, key } = await startServe(bin, env, ['--concurrency', '100']);
  return {
    bin,
    base,
    key,
    clientEnv: {
      PATH: process.env.PATH,
      WEBWATCH_API_URL: base,
      WEBWATCH_API_KEY: key,
      WEBWATCH_HOME: join(home, 'client'),
      XDG_CONFIG_HOME: join(home, 'client-config'),
    },
    async stop() {
      server.kill('SIGTERM');
      await new Promise((done) => server.on('exit', done));
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** CPU seconds (user + system) a process has used so far, from /proc. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? undefined : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

/** One run followed by `followers` processes of the build: delays, idle CPU, endings. */
async function measure(build, name) {
  const task = `bench run of ${name}`;
  const started = await fetch(`${build.base}/agent`, {
    method: 'POST',
    headers: { authorization: `Bearer ${build.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: task }),
  });
  const { id } = await started.json();
  const delays = [];
  const procs = Array.from({ length: followers }, () => {
    const child = spawn(process.execPath, [build.bin, 'agent', 'trace', id, '--follow', '--json'], { env: build.clientEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const seen = [];
    let buffered = '';
    // Events written before the follower had its first answer are a backlog, not a delay.
    let readyAt;
    child.stdout.on('data', (chunk) => {
      const arrived = Date.now();
      readyAt ??= arrived;
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) {
        const event = JSON.parse(line);
        seen.push(event);
        if (Date.parse(event.occurredAt) >= readyAt) delays.push(arrived - Date.parse(event.occurredAt));
      }
    });
    const exited = new Promise((done) => child.on('exit', (code) => done(code)));
    return { child, seen, exited };
  });
  // One more follower as a person runs it: on a pseudo-terminal (`script`), with its timeline and
  // its ticking status line; measured apart, as it draws while the others only wait.
  const quote = (word) => `'${word.replace(/'/g, `'\\''`)}'`;
  const onTerminal = spawn(
    'script',
    ['-qec', `stty cols 120 rows 40; exec ${[process.execPath, build.bin, 'agent', 'trace', id, '--follow'].map(quote).join(' ')}`, '/dev/null'],
    { env: { ...build.clientEnv, TERM: 'xterm-256color' }, stdio: ['pipe', 'pipe', 'ignore'] },
  );
  onTerminal.stdout.resume();
  const terminalExited = new Promise((done) => onTerminal.on('exit', (code) => done(code)));
  /** The node process under script (script, then the shell, which execs node). */
  const terminalPid = () => {
    const children = (pid) => {
      try {
        return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
      } catch {
        return [];
      }
    };
    return children(onTerminal.pid)[0];
  };
  // Idle CPU: from a second into the stall to a second before it ends, each follower's share of a core.
  while (!stalls.has(task) && procs.some((p) => p.child.exitCode === null)) await new Promise((done) => setTimeout(done, 50));
  let idle;
  const stall = stalls.get(task);
  if (stall) {
    await new Promise((done) => setTimeout(done, Math.max(0, stall.from + 1000 - Date.now())));
    const pty = terminalPid();
    const before = procs.map((p) => cpuSeconds(p.child.pid));
    const ptyBefore = pty && cpuSeconds(pty);
    const t0 = Date.now();
    await new Promise((done) => setTimeout(done, Math.max(1000, stall.to - 1000 - Date.now())));
    const after = procs.map((p) => cpuSeconds(p.child.pid));
    const ptyAfter = pty && cpuSeconds(pty);
    const seconds = (Date.now() - t0) / 1000;
    const shares = procs.flatMap((_, i) => (before[i] !== undefined && after[i] !== undefined ? [(after[i] - before[i]) / seconds] : []));
    idle = {
      seconds: +seconds.toFixed(1),
      followersAlive: shares.length,
      meanPercentOfCore: shares.length ? +((100 * shares.reduce((a, b) => a + b, 0)) / shares.length).toFixed(2) : undefined,
      maxPercentOfCore: shares.length ? +(100 * Math.max(...shares)).toFixed(2) : undefined,
      onTerminalPercentOfCore: ptyBefore !== undefined && ptyAfter !== undefined ? +((100 * (ptyAfter - ptyBefore)) / seconds).toFixed(2) : undefined,
    };
  }
  const codes = await Promise.all(procs.map((p) => p.exited));
  const terminalCode = await terminalExited;
  const complete = procs.filter((p) => p.seen.at(-1)?.type === 'run.finished' && p.seen.every((e, i) => e.producerSequence === i + 1)).length;
  return {
    followers,
    events: Math.max(...procs.map((p) => p.seen.length)),
    delaysMeasured: delays.length,
    delayMs: { p50: quantile(delays, 0.5), p95: quantile(delays, 0.95), max: quantile(delays, 1) },
    idleCpu: idle,
    sawWholeTrace: complete,
    exitCodes: Object.fromEntries([...new Set(codes)].map((code) => [code, codes.filter((c) => c === code).length])),
    onTerminalExitCode: terminalCode,
  };
}

// Named by its commit: the results say which build they compare with, not where it was checked out.
const againstCommit = against && spawnSync('git', ['-C', resolve(against), 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
const builds = [{ name: 'this build', dir: root }, ...(against ? [{ name: `build of ${againstCommit}`, dir: resolve(against) }] : [])];
const results = {};
for (const build of builds) {
  const serving = await startBuild(build.dir);
  try {
    results[build.name] = await measure(serving, build.name);
  } finally {
    await serving.stop();
  }
  const r = results[build.name];
  console.log(
    `${build.name}: ${r.followers} followers, ${r.events} events; delay p50 ${r.delayMs.p50} ms, p95 ${r.delayMs.p95} ms, max ${r.delayMs.max} ms; idle CPU ${r.idleCpu ? `${r.idleCpu.meanPercentOfCore} % of a core (max ${r.idleCpu.maxPercentOfCore} %, ${r.idleCpu.followersAlive} followers still following; on a terminal with its status line ${r.idleCpu.onTerminalPercentOfCore ?? 'ended'} %)` : 'not measured: every follower had ended'}; whole trace seen by ${r.sawWholeTrace}; exit codes ${JSON.stringify(r.exitCodes)}`,
  );
}
site.close();
model.close();

const ours = results['this build'];
const result = {
  date: new Date().toISOString(),
  machine: {
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    loadAverageAtEnd: loadavg().map((value) => +value.toFixed(2)),
  },
  followers,
  turns,
  stallSeconds,
  commit: spawnSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim(),
  ...(against && { against: againstCommit }),
  results,
  goalsMet: { delayP95Under300ms: ours.delayMs.p95 < 300, idleCpuUnder1Percent: (ours.idleCpu?.maxPercentOfCore ?? Infinity) < 1 },
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/agent-follow.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(
  `goals (delay p95 < 300 ms; idle CPU < 1 % of a core): delay ${result.goalsMet.delayP95Under300ms ? 'met' : 'not met'}, idle CPU ${result.goalsMet.idleCpuUnder1Percent ? 'met' : 'not met'}`,
);
