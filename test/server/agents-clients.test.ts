/**
 * Agent jobs from the clients' side: `webwatch agent` on the embedded engine and against serve,
 * the hosted service's JS SDK against serve, and a serve process killed mid-run.
 */
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { EXIT } from '../../src/errors/exit-codes.js';
import { startFakeLlm, type FakeLlm, type FakeReply } from '../helpers/fake-llm.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { serveProcess } from '../helpers/serve-process.js';
import { call, serveWebwatch } from '../helpers/webwatch-server.js';
import { sqlRow } from '../helpers/sql.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

const turnsOf = (request: Body) => request.messages.filter((m: Body) => m.role === 'assistant').length;

describe('agent jobs from the clients', () => {
  let site: TestServer;
  let model: FakeLlm;
  let script: (request: Body) => FakeReply = () => ({ content: '"nothing"' });
  /** A config home whose config names the scripted model. */
  let config: string;

  before(async () => {
    site = await startServer({
      '/about': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><h1>About</h1><p>Founded in 1999 in Lyon.</p></main>'),
    });
    model = await startFakeLlm((request) => script(request));
    config = writeFiles({ 'webwatch/config.yaml': `llm: {baseUrl: "${model.url}", model: scripted}\n` });
  });
  after(async () => {
    await model.close();
    await site.close();
  });

  const scrapeThenFinish =
    (result: unknown): ((request: Body) => FakeReply) =>
    (request) =>
      turnsOf(request) === 0
        ? { toolCalls: [{ name: 'scrape', arguments: { url: `${site.origin}/about` } }] }
        : { toolCalls: [{ name: 'finish', arguments: { result } }] };

  it('agent run on the embedded engine: the result on stdout, the timeline on a terminal, the outcome as exit code', async () => {
    script = scrapeThenFinish({ founded: 1999, city: 'Lyon' });
    const schema = writeFiles({
      'schema.json': JSON.stringify({ type: 'object', properties: { founded: { type: 'integer' }, city: { type: 'string' } }, required: ['founded', 'city'] }),
    });
    const env = { XDG_CONFIG_HOME: config, WEBWATCH_HOME: tempDir() };
    const piped = await run(['agent', 'run', 'When and where was it founded?', '--url', `${site.origin}/about`, '--schema', join(schema, 'schema.json')], {
      env,
    });
    assert.equal(piped.code, EXIT.ok, piped.stderr);
    assert.deepEqual(JSON.parse(piped.stdout), { founded: 1999, city: 'Lyon' });

    const onTerminal = await run(['agent', 'run', 'When was it founded?', '--no-color'], { env, tty: true });
    assert.equal(onTerminal.code, EXIT.ok);
    assert.match(onTerminal.stderr, /\d\d:\d\d:\d\d {2}orchestrator {2}tool_call\.started {3}scrape url=http:\/\/127\.0\.0\.1:\d+\/about/);
    assert.match(onTerminal.stderr, /run\.finished +succeeded\n/);

    const list = JSON.parse((await run(['agent', 'list', '--json'], { env })).stdout);
    assert.equal(list.length, 2);
    const id = list[1].id;
    const trace = (await run(['agent', 'trace', id], { env })).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(trace.at(-1).type, 'run.finished');
    const artifact = trace.find((e: Body) => e.type === 'artifact.updated' && e.artifact.kind === 'markdown');
    const snapshot = await run(['agent', 'snapshot', id, artifact.artifact.snapshotId], { env });
    assert.match(snapshot.stdout, /Founded in 1999 in Lyon/);
    // Ids cut short, as docs/agent.md shows them: the job's and the snapshot's first characters.
    const short = await run(['agent', 'snapshot', id.slice(0, 8), artifact.artifact.snapshotId.slice(0, 8)], { env });
    assert.equal(short.code, EXIT.ok, short.stderr);
    assert.equal(short.stdout, snapshot.stdout);
    const tooShort = await run(['agent', 'snapshot', id, 'ab'], { env });
    assert.equal(tooShort.code, EXIT.usage);
    assert.match(tooShort.stderr, /too short to name a snapshot: give at least 4 characters/);
    assert.equal((await run(['agent', 'cancel', id], { env })).code, EXIT.conflict, 'a finished job cannot be cancelled');

    script = () => ({ toolCalls: [{ name: 'refuse', arguments: { reason: 'not allowed' } }] });
    const refused = await run(['agent', 'run', 'do something bad'], { env });
    assert.equal(refused.code, EXIT.agentRefused);
    assert.match(refused.stderr, /refused the task: not allowed/);

    const detached = await run(['agent', 'run', 'x', '--detach'], { env });
    assert.equal(detached.code, EXIT.usage);
    assert.match(detached.stderr, /cannot be detached/);
    const noModel = await run(['agent', 'run', 'x'], { env: { WEBWATCH_HOME: tempDir() } });
    assert.equal(noModel.code, EXIT.usage);
    assert.match(noModel.stderr, /no model is configured for agent jobs: set llm\.baseUrl and llm\.model/);
  });

  it('agent run --detach and trace --follow against serve', async () => {
    script = scrapeThenFinish('done');
    const served = await serveWebwatch({ llm: { baseUrl: model.url, model: 'scripted' } });
    const key = (await served.keys.create('acme', new Date())).key;
    const env = { WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: key };
    const detached = await run(['agent', 'run', 'About?', '--detach', '--json'], { env });
    assert.equal(detached.code, EXIT.ok);
    const { id } = JSON.parse(detached.stdout);
    const followed = await run(['agent', 'trace', id, '--follow', '--json'], { env });
    assert.equal(followed.code, EXIT.ok);
    const events = followed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      events.map((e) => e.producerSequence),
      events.map((_, i) => i + 1),
    );
    assert.equal(events.at(-1).outcome, 'succeeded');
    const status = JSON.parse((await run(['agent', 'status', id, '--json'], { env })).stdout);
    assert.deepEqual([status.status, status.data], ['completed', 'done']);
    await served.stop();
  });

  it("the hosted SDK's agent calls work against serve", async () => {
    script = scrapeThenFinish({ founded: 1999 });
    const served = await serveWebwatch({ llm: { baseUrl: model.url, model: 'scripted' } });
    const client = new Firecrawl({ apiKey: (await served.keys.create('acme', new Date())).key, apiUrl: served.origin });
    const started = await client.startAgent({
      prompt: 'When was it founded?',
      urls: [`${site.origin}/about`],
      schema: { type: 'object', properties: { founded: { type: 'number' } } },
    });
    assert.equal(started.success, true);
    let status = await client.getAgentStatus(started.id);
    for (let i = 0; i < 100 && status.status === 'processing'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      status = await client.getAgentStatus(started.id);
    }
    assert.equal(status.status, 'completed');
    assert.deepEqual(status.data, { founded: 1999 });
    const trace = await client.getAgentTrace(started.id);
    assert.equal(trace.events?.at(-1)?.type, 'run.finished');
    const artifact = trace.events!.find((e) => e.type === 'artifact.updated');
    assert.ok(artifact && artifact.type === 'artifact.updated');
    const snapshot = await client.getAgentSnapshot(started.id, artifact.artifact.snapshotId);
    assert.match(snapshot.snapshot ?? '', /Founded in 1999/);
    const list = await client.listAgents();
    assert.deepEqual(
      list.agents?.map((a) => a.id),
      [started.id],
    );

    script = () => 'hang';
    const slow = await client.startAgent({ prompt: 'slow' });
    assert.equal(await client.cancelAgent(slow.id), true);
    await assert.rejects(client.cancelAgent(slow.id), /Agent is already cancelled/);
    await assert.rejects(client.getAgentStatus('00000000-0000-4000-8000-000000000000'), /Agent job not found/);
    await served.stop();
  });

  it("the hosted service's CLI starts, waits for, reads and cancels agent jobs on serve", async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const { createRequire } = await import('node:module');
    const cli = createRequire(import.meta.url).resolve('firecrawl-cli/dist/index.js');
    const served = await serveWebwatch({ llm: { baseUrl: model.url, model: 'scripted' } });
    const key = (await served.keys.create('acme', new Date())).key;
    const home = tempDir();
    const firecrawl = async (...args: string[]) =>
      (
        await promisify(execFile)(process.execPath, [cli, '--api-url', served.origin, '--api-key', key, ...args], {
          env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home },
          cwd: home,
        })
      ).stdout;

    try {
      script = scrapeThenFinish({ founded: 1999 });
      const waited = JSON.parse(
        await firecrawl('agent', 'When was it founded?', '--urls', `${site.origin}/about`, '--wait', '--poll-interval', '0.2', '--json'),
      );
      assert.deepEqual([waited.status, waited.data], ['completed', { founded: 1999 }]);

      const started = JSON.parse(await firecrawl('agent', 'When was it founded?', '--json'));
      const id: string = started.data.jobId;
      assert.match(id, /^[0-9a-f-]{36}$/);
      for (let i = 0; i < 100 && (await sqlRow(served.db, "SELECT status FROM agent_jobs WHERE id = ? AND status = 'processing'", id)); i++)
        await new Promise((r) => setTimeout(r, 20));
      const status = JSON.parse(await firecrawl('agent', id, '--status', '--json'));
      assert.deepEqual([status.status, status.data], ['completed', { founded: 1999 }]);

      script = () => 'hang';
      const slow: string = JSON.parse(await firecrawl('agent', 'slow one', '--json')).data.jobId;
      await firecrawl('agent', slow, '--cancel');
      const row = (await sqlRow<{ cancel_requested_at: string | null }>(served.db, 'SELECT cancel_requested_at FROM agent_jobs WHERE id = ?', slow))!;
      assert.notEqual(row.cancel_requested_at, null);
    } finally {
      await served.stop();
    }
  });

  it('a job whose serve was killed is finished failed, internal, when serve comes back', async () => {
    script = () => 'hang';
    const home = tempDir();
    const configDir = tempDir();
    mkdirSync(join(configDir, 'webwatch'), { recursive: true });
    writeFileSync(join(configDir, 'webwatch', 'config.yaml'), `llm: {baseUrl: "${model.url}", model: scripted}\n`);
    const key = JSON.parse((await run(['keys', 'create', '--team', 'acme', '--json'], { env: { WEBWATCH_HOME: home } })).stdout).key;
    const startServe = () => serveProcess(['--quiet'], { WEBWATCH_HOME: home, XDG_CONFIG_HOME: configDir }, { allowPrivateTargets: false });
    const first = await startServe();
    const { id } = (await call(first, key, 'POST', '/agent', { prompt: 'never ends' })).body;
    for (let i = 0; i < 100 && model.requests.filter((r) => r.body.messages.some((m: Body) => m.content === 'never ends')).length === 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    await first.kill();

    const second = await startServe();
    const status = (await call(second, key, 'GET', `/agent/${id}`)).body;
    assert.equal(status.status, 'failed');
    assert.match(status.error, /interrupted/);
    const trace = (await call(second, key, 'GET', `/agent/${id}/trace`)).body;
    const last = trace.events.at(-1);
    assert.deepEqual([last.type, last.outcome, last.error.code], ['run.finished', 'failed', 'internal']);
    await second.stop();
  });
});
