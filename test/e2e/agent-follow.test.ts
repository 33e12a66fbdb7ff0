/**
 * Following agent runs as slow as real ones, through the built command (bin/webwatch.js) in
 * processes of their own: on the embedded engine with a follower in another process, through
 * serve, and against an API that answers the trace at once (the hosted API's way) with faults.
 * The model takes seconds a turn with jitter, answers one turn with 429 and Retry-After, stalls
 * another past one long-poll wait and then writes a malformed tool call, and is slow to its
 * first byte on the last. Every follow must end with the run's result and its exit code.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { FOLLOW_WAIT_MS } from '../../src/core/agent/follow.js';
import type { TraceEvent } from '../../src/engine/agent/trace.js';
import { EXIT } from '../../src/errors/exit-codes.js';
import { startFakeAgentApi, type FakeAgentApi } from '../helpers/fake-agent-api.js';
import { startFakeLlm, withLatency, type FakeLlm, type FakeLlmRequestBody, type FakeReply } from '../helpers/fake-llm.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { serveWebwatch } from '../helpers/webwatch-server.js';

const BIN = fileURLToPath(new URL('../../../bin/webwatch.js', import.meta.url));
const RESULT = { founded: 1999, city: 'Lyon' };

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function webwatch(args: string[], env: Record<string, string>): Promise<Ran> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const lines = (text: string): TraceEvent[] =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as TraceEvent);

/**
 * One model per run, as slow as a real one: 2-3 s turns; the second turn is refused once with
 * 429 (Retry-After: 1), then stalls longer than a long-poll wait and writes a tool call whose
 * arguments are not JSON; the third is slow to its first byte and to its body.
 */
function realisticModel(site: TestServer, seed: number) {
  const attempts = new Map<number, number>();
  return withLatency(
    (request: FakeLlmRequestBody): FakeReply => {
      const turn = request.messages.filter((m) => m.role === 'assistant').length;
      const attempt = (attempts.get(turn) ?? 0) + 1;
      attempts.set(turn, attempt);
      if (turn === 0) return { content: 'I will read the about page.', toolCalls: [{ name: 'scrape', arguments: { url: `${site.origin}/about` } }] };
      if (turn === 1 && attempt === 1)
        return {
          status: 429,
          body: { error: { message: 'Rate limit reached for requests', type: 'requests' } },
          headers: { 'retry-after': '1' },
          delayMs: 200,
        };
      if (turn === 1) return { toolCalls: [{ name: 'scrape', arguments: '{"url": "http://' }], delayMs: FOLLOW_WAIT_MS + 1500 };
      return { toolCalls: [{ name: 'finish', arguments: { result: RESULT } }], delayMs: 1500, bodyDelayMs: 1500 };
    },
    { turnMs: 2500, jitterMs: 500, seed },
  );
}

/** The whole trace, once each, in order, to a successful end, with the turns and tool calls a follower shows. */
function assertWholeRun(events: TraceEvent[]) {
  assert.deepEqual(
    events.map((e) => e.producerSequence),
    events.map((_, i) => i + 1),
    'every event once, in order',
  );
  assert.deepEqual(
    events.flatMap((e) => (e.type === 'progress.reported' && e.modelTurn ? [e.modelTurn] : [])),
    [1, 2, 3],
  );
  const scraped = events.find((e) => e.type === 'tool_call.finished');
  assert.ok(scraped && scraped.type === 'tool_call.finished' && typeof scraped.durationMs === 'number');
  const last = events.at(-1)!;
  assert.deepEqual([last.type, last.type === 'run.finished' && last.outcome], ['run.finished', 'succeeded']);
}

/** The first job listed once one exists, by the command line (a job id prefix comes later). */
async function firstJob(env: Record<string, string>): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const listed = await webwatch(['agent', 'list', '--json'], env);
    const jobs = JSON.parse(listed.stdout || '[]') as { id: string }[];
    if (jobs.length > 0) return jobs[0]!.id;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('no agent job appeared');
}

describe('following agent runs with a model as slow as a real one', { concurrency: true }, () => {
  let site: TestServer;
  const models: FakeLlm[] = [];
  let hosted: FakeAgentApi;

  before(async () => {
    site = await startServer({
      '/about': (_q, r) =>
        void r
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<html><head><title>About</title></head><body><main><h1>About</h1><p>Founded in 1999 in Lyon.</p></main></body></html>'),
    });
  });
  after(async () => {
    await Promise.all(models.map((model) => model.close()));
    await hosted?.close();
    await site.close();
  });

  const model = async (seed: number) => {
    const started = await startFakeLlm(realisticModel(site, seed));
    models.push(started);
    return started;
  };

  it('on the embedded engine: agent run prints the result, and a follower in another process sees the whole trace', async () => {
    const llm = await model(1);
    const env = { WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: writeFiles({ 'webwatch/config.yaml': `llm: {baseUrl: "${llm.url}", model: scripted}\n` }) };
    const running = webwatch(['agent', 'run', 'When and where was it founded?', '--url', `${site.origin}/about`], env);
    const id = await firstJob(env);
    const followed = await webwatch(['agent', 'trace', id.slice(0, 8), '--follow'], env);
    const ran = await running;
    assert.equal(ran.code, EXIT.ok, ran.stderr);
    assert.deepEqual(JSON.parse(ran.stdout), RESULT);
    assert.match(ran.stderr, /succeeded in \d+\.\d s: 3 model turns, 1 tool call, 4 credits, 2 snapshots/);
    assert.equal(followed.code, EXIT.ok, followed.stderr);
    assertWholeRun(lines(followed.stdout));
    assert.equal(llm.requests.length, 4, 'three turns and the one refused with 429');
  });

  it('through serve: agent run waits for the run and prints its result; trace --follow by id prefix sees it all', async () => {
    const llm = await model(2);
    const served = await serveWebwatch({ llm: { baseUrl: llm.url, model: 'scripted' } });
    try {
      const key = (await served.keys.create('acme', new Date())).key;
      const env = { WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: key, WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: tempDir() };
      const running = webwatch(['agent', 'run', 'When and where was it founded?', '--url', `${site.origin}/about`, '--max-credits', '20'], env);
      const id = await firstJob(env);
      const followed = await webwatch(['agent', 'trace', id.slice(0, 6), '--follow', '--json'], env);
      const ran = await running;
      assert.equal(ran.code, EXIT.ok, ran.stderr);
      assert.deepEqual(JSON.parse(ran.stdout), RESULT);
      assert.equal(followed.code, EXIT.ok, followed.stderr);
      assertWholeRun(lines(followed.stdout));
    } finally {
      await served.stop();
    }
  });

  it('against an API that answers the trace at once, with 429 and 502 on the way: the result once its status has it', async () => {
    const turn = (n: number, at: number) => ({
      atMs: at,
      body: { type: 'progress.reported' as const, phase: 'working' as const, message: `model turn ${n}`, modelTurn: n },
    });
    hosted = await startFakeAgentApi((prompt) =>
      prompt === 'lost end'
        ? {
            // A trace that never gets its run.finished: the status ends the follow.
            run: {
              events: [
                { atMs: 0, body: { type: 'run.started' } },
                { atMs: 0, body: { type: 'agent.started' } },
              ],
              statusAtMs: 3000,
              status: { status: 'failed', error: 'Agent run was cancelled' },
            },
          }
        : {
            run: {
              events: [
                { atMs: 0, body: { type: 'run.started' } },
                { atMs: 0, body: { type: 'agent.started' } },
                turn(1, 10),
                { atMs: 3000, body: { type: 'tool_call.started', toolCallId: 'c1', toolName: 'scrape', parameters: { url: 'https://example.com/about' } } },
                { atMs: 4200, body: { type: 'tool_call.finished', toolCallId: 'c1', toolName: 'scrape', result: { title: 'About' } } },
                turn(2, 4210),
                turn(3, 9500),
                { atMs: 12_000, body: { type: 'agent.finished', outcome: 'succeeded', durationMs: 12_000, error: null } },
                { atMs: 12_000, body: { type: 'run.finished', outcome: 'succeeded', error: null } },
              ],
              // The status says so 1.5 s after the trace does.
              statusAtMs: 13_500,
              status: { status: 'completed', data: RESULT },
              credits: 4,
            },
            faults: [
              { traceRequest: 2, status: 429, retryAfterSeconds: 1 },
              { traceRequest: 5, status: 502 },
            ],
          },
    );
    const env = { WEBWATCH_API_URL: hosted.url, WEBWATCH_API_KEY: 'fc-test', WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: tempDir() };
    const [ran, lost] = await Promise.all([webwatch(['agent', 'run', 'When was it founded?'], env), webwatch(['agent', 'run', 'lost end'], env)]);
    assert.equal(ran.code, EXIT.ok, ran.stderr);
    assert.deepEqual(JSON.parse(ran.stdout), RESULT);
    assert.match(ran.stderr, /succeeded in 12\.0 s: 3 model turns, 1 tool call, 4 credits, 0 snapshots/);
    assert.equal(lost.code, EXIT.agentCancelled, lost.stderr);
    assert.match(lost.stderr, /error: Agent run was cancelled/);
    assert.equal(lost.stdout, '', 'no result for a run that did not succeed');
    // It was asked again and again without hammering: the pause grows while nothing comes.
    const asked = [...hosted.traceRequests.values()].map((requests) => requests.length);
    assert.ok(
      asked.every((n) => n >= 5 && n < 40),
      `trace requests per job: ${asked.join(', ')}`,
    );
  });
});
