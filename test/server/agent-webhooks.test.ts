/**
 * Webhooks of agent and extract jobs on serve, through the hosted SDK (`startAgent`,
 * `startExtract`, `cancelAgent`): a site, a scripted model as slow and uneven as a real one, and
 * a webhook receiver, all on loopback. Events in order (started, an action per tool call,
 * completed), signed, filtered by `events`, `cancelled` and `failed` with the reason, retried in
 * order after a failure, refused when the URL is bad or private, and the webhook's headers never
 * shown back.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import Firecrawl, { type SdkError } from '@mendable/firecrawl-js';
import { ACTION_ARGUMENT_MAX_CHARS } from '../../src/engine/notify/job-webhooks.js';
import { startFakeLlm, withLatency, type FakeLlm, type FakeLlmRequestBody, type FakeReply } from '../helpers/fake-llm.js';
import { html, readBody, startServer, type TestServer } from '../helpers/server.js';
import { sqlRows } from '../helpers/sql.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

interface Delivery {
  at: number;
  text: string;
  body: Body;
  headers: IncomingMessage['headers'];
}

const SECRET = 'agent-hook-secret';
const PAGE_TEXT = 'The Pro plan costs 12 dollars a month, billed yearly.';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const allText = (request: FakeLlmRequestBody) => request.messages.map((message) => message.content ?? '').join('\n');
const toolTurns = (request: FakeLlmRequestBody) => request.messages.filter((message) => message.role === 'tool').length;

describe('webhooks of agent and extract jobs', () => {
  let site: TestServer;
  let receiver: TestServer;
  let model: FakeLlm;
  let serve: ServingWebwatch;
  let client: Firecrawl;
  let key: string;
  let received: Delivery[] = [];
  /** Answers for the next deliveries, in order; then 200. */
  let answers: ((response: ServerResponse) => void)[] = [];

  /**
   * The model, by what the job asks (its prompt names the scenario): an agent that scrapes,
   * lists a site's links and finishes; one whose second turn never comes back (to be
   * cancelled); a model server that is down; and an extraction's JSON answer.
   */
  function script(request: FakeLlmRequestBody): FakeReply {
    const text = allText(request);
    if (text.includes('model-down'))
      return { status: 503, body: { error: { message: 'overloaded', type: 'server_error' } }, headers: { 'retry-after-ms': '20' } };
    if (!request.tools) return { content: JSON.stringify({ price: 12 }) };
    const turn = toolTurns(request);
    if (text.includes('stall')) {
      return turn === 0 ? { toolCalls: [{ name: 'scrape', arguments: { url: `${site.origin}/pricing` } }] } : 'hang';
    }
    if (turn === 0) return { content: 'Reading the pricing page first.', toolCalls: [{ name: 'scrape', arguments: { url: `${site.origin}/pricing` } }] };
    if (turn === 1) return { toolCalls: [{ name: 'map', arguments: { url: `${site.origin}/`, note: 'x'.repeat(1000) } }] };
    return { toolCalls: [{ name: 'finish', arguments: { result: { price: 12 } } }] };
  }

  before(async () => {
    site = await startServer({
      '/': html(`<main><h1>Home</h1><a href="/pricing">Pricing</a> <a href="/about">About</a></main>`),
      '/pricing': html(`<main><h1>Pricing</h1><p>${PAGE_TEXT}</p></main>`),
      '/about': html('<main><h1>About</h1></main>'),
    });
    receiver = await startServer({}, async (request, response) => {
      const text = await readBody(request);
      received.push({ at: performance.now(), text, body: JSON.parse(text), headers: request.headers });
      const answer = answers.shift();
      if (answer) answer(response);
      else response.writeHead(200).end('ok');
    });
    // Real models take their time, unevenly: each turn 300 to 800 ms.
    model = await startFakeLlm(withLatency(script, { turnMs: 550, jitterMs: 250, seed: 11 }));
    serve = await serveWebwatch({ webhookSecret: SECRET, llm: { baseUrl: model.url, model: 'scripted', timeoutMs: 60_000 } });
    key = (await serve.keys.create('acme', new Date())).key;
    client = new Firecrawl({ apiKey: key, apiUrl: serve.origin });
  });
  after(async () => {
    await serve.stop();
    await model.close();
    await site.close();
    await receiver.close();
  });
  beforeEach(() => {
    received = [];
    answers = [];
  });

  /** Polls the job's status until it has ended; the status, and when it was first read ended. */
  async function ended(path: string): Promise<{ status: Body; at: number }> {
    for (let i = 0; i < 600; i++) {
      const status = (await call(serve.url, key, 'GET', path)).body;
      if (status.status !== 'processing') return { status, at: performance.now() };
      await sleep(25);
    }
    throw new Error(`${path} did not end`);
  }

  /** Waits until a delivery of `type` (of job `id`) has come, within `ms`; the deliveries of the job then. */
  async function until(id: string, type: string, ms = 10_000): Promise<Delivery[]> {
    const stop = performance.now() + ms;
    while (performance.now() < stop) {
      const ofJob = received.filter((delivery) => delivery.body.id === id);
      if (ofJob.some((delivery) => delivery.body.type === type)) return ofJob;
      await sleep(10);
    }
    throw new Error(`no ${type} delivery of ${id} within ${ms} ms: got ${received.map((d) => d.body.type).join(', ')}`);
  }

  const signatureOf = (text: string) => `sha256=${createHmac('sha256', SECRET).update(text).digest('hex')}`;
  const withoutSuccess = ({ success: _, ...rest }: Body) => rest;

  it("an agent's webhook hears started, an action per tool call (small, no page text), and completed with the job's status, in order, signed", async () => {
    const started = await client.startAgent({
      prompt: 'What does the Pro plan cost?',
      urls: [`${site.origin}/`],
      webhook: { url: `${receiver.origin}/hook?token=t1`, headers: { Authorization: 'Bearer receiver-secret' }, metadata: { ticket: '42' } },
    });
    const { status, at } = await ended(`/agent/${started.id}`);
    assert.equal(status.status, 'completed', JSON.stringify(status));
    const deliveries = await until(started.id, 'agent.completed');
    const completedAt = deliveries.at(-1)!.at;
    assert.ok(completedAt - at < 1500, `agent.completed came ${Math.round(completedAt - at)} ms after the status read completed`);

    assert.deepEqual(
      deliveries.map((d) => d.body.type),
      ['agent.started', 'agent.action', 'agent.action', 'agent.completed'],
    );
    // Actions go out as the agent works, not at the next look for deliveries.
    assert.ok(deliveries[1]!.at < at, 'the first action arrived while the job was running');
    for (const delivery of deliveries) {
      assert.equal(delivery.headers['x-webwatch-signature'], signatureOf(delivery.text), 'the signature is the HMAC of the body');
      assert.equal(delivery.headers.authorization, 'Bearer receiver-secret');
      assert.equal(delivery.body.id, started.id);
      assert.deepEqual(delivery.body.metadata, { ticket: '42' });
      assert.equal(delivery.body.success, true);
      assert.doesNotMatch(delivery.text, /12 dollars a month/, 'no page text in any event');
    }
    assert.equal(new Set(deliveries.map((d) => d.body.webhookId)).size, deliveries.length, 'each delivery has its own webhookId');
    assert.deepEqual(deliveries[0]!.body.data, []);
    const [scrape, map] = [deliveries[1]!.body.data, deliveries[2]!.body.data];
    assert.deepEqual(scrape, [{ action: 'scrape', input: { url: `${site.origin}/pricing` }, step: 1, agent: 'orchestrator', creditsUsed: 1 }]);
    assert.equal(map[0].action, 'map');
    assert.equal(map[0].step, 2);
    assert.equal(map[0].input.url, `${site.origin}/`);
    assert.equal(map[0].input.note, `${'x'.repeat(ACTION_ARGUMENT_MAX_CHARS)}…`, 'a long argument is cut');
    assert.ok(deliveries[2]!.text.length < 1000, `an action is small: ${deliveries[2]!.text.length} characters`);
    // The last event carries the job as GET /v2/agent/{id} answers it.
    const completed = deliveries[3]!.body;
    assert.deepEqual(completed.data, [withoutSuccess(status)]);
    assert.deepEqual(completed.data[0].data, { price: 12 });

    // No answer shows the webhook's headers, nor its URL's token.
    for (const path of [`/agent/${started.id}`, '/agent', `/agent/${started.id}/trace`]) {
      assert.doesNotMatch(JSON.stringify((await call(serve.url, key, 'GET', path)).body), /receiver-secret|token=t1/, path);
    }
    // Delivered bodies are not kept: the job has its result.
    assert.deepEqual(await sqlRows(serve.db, "SELECT count(*) AS n FROM outbox WHERE job_id = ? AND (status != 'delivered' OR body != '')", started.id), [
      { n: 0 },
    ]);
  });

  it('takes only the events asked for; a plain URL hears them all', async () => {
    const filtered = await client.startAgent({
      prompt: 'What does the Pro plan cost?',
      webhook: { url: `${receiver.origin}/only-ends`, events: ['completed', 'failed'] },
    });
    const plain = await client.startAgent({ prompt: 'What does the Pro plan cost?', webhook: `${receiver.origin}/all` });
    await until(filtered.id, 'agent.completed');
    const all = await until(plain.id, 'agent.completed');
    await sleep(300);
    assert.deepEqual(
      received.filter((d) => d.body.id === filtered.id).map((d) => d.body.type),
      ['agent.completed'],
    );
    assert.deepEqual(
      all.map((d) => d.body.type),
      ['agent.started', 'agent.action', 'agent.action', 'agent.completed'],
    );
    assert.deepEqual(all[0]!.body.metadata, {});
  });

  it('a cancelled agent sends agent.cancelled, and nothing after it', async () => {
    const started = await client.startAgent({ prompt: 'stall on the second turn', webhook: `${receiver.origin}/hook` });
    await until(started.id, 'agent.action');
    assert.equal(await client.cancelAgent(started.id), true);
    const deliveries = await until(started.id, 'agent.cancelled');
    const { status } = await ended(`/agent/${started.id}`);
    assert.deepEqual(
      deliveries.map((d) => d.body.type),
      ['agent.started', 'agent.action', 'agent.cancelled'],
    );
    const cancelled = deliveries[2]!.body;
    assert.equal(cancelled.success, false);
    assert.equal(cancelled.error, status.error);
    assert.match(cancelled.error, /cancelled/);
    assert.deepEqual(cancelled.data, [withoutSuccess(status)]);
    await sleep(500);
    assert.equal(received.filter((d) => d.body.id === started.id).length, 3, 'nothing after agent.cancelled');
  });

  it('a model that is down fails the agent and the extract job: agent.failed and extract.failed, with the reason', async () => {
    const agent = await client.startAgent({ prompt: 'model-down: what does it cost?', webhook: `${receiver.origin}/hook` });
    const extract = await client.startExtract({ urls: [`${site.origin}/pricing`], prompt: 'model-down: the price', webhook: `${receiver.origin}/hook` });
    const agentEvents = await until(agent.id, 'agent.failed');
    const extractEvents = await until(extract.id!, 'extract.failed');
    const agentStatus = (await ended(`/agent/${agent.id}`)).status;
    const extractStatus = (await ended(`/extract/${extract.id}`)).status;
    assert.deepEqual(
      agentEvents.map((d) => d.body.type),
      ['agent.started', 'agent.failed'],
    );
    assert.deepEqual(
      extractEvents.map((d) => d.body.type),
      ['extract.started', 'extract.failed'],
    );
    for (const [failed, status] of [
      [agentEvents[1]!.body, agentStatus],
      [extractEvents[1]!.body, extractStatus],
    ] as const) {
      assert.equal(failed.success, false);
      assert.equal(failed.error, status.error);
      assert.match(failed.error, /HTTP 503/);
      assert.deepEqual(failed.data, [withoutSuccess(status)]);
    }
  });

  it("an extract job's webhook, through startExtract: started, then completed with the job's status; no warning that it is not called", async () => {
    const started = await client.startExtract({
      urls: [`${site.origin}/pricing`],
      prompt: 'the price of the Pro plan',
      schema: { type: 'object', properties: { price: { type: 'number' } } },
      webhook: {
        url: `${receiver.origin}/extract`,
        headers: { 'X-Team': 'blue' },
        metadata: { run: 'e1' },
        events: ['started', 'page', 'completed', 'failed'],
      },
    });
    assert.equal(started.warning, undefined, 'no warning');
    const { status } = await ended(`/extract/${started.id}`);
    assert.equal(status.status, 'completed', JSON.stringify(status));
    const deliveries = await until(started.id!, 'extract.completed');
    assert.deepEqual(
      deliveries.map((d) => d.body.type),
      ['extract.started', 'extract.completed'],
    );
    assert.deepEqual(deliveries[1]!.body.data, [withoutSuccess(status)]);
    assert.deepEqual(deliveries[1]!.body.data[0].data, { price: 12 });
    for (const delivery of deliveries) {
      assert.equal(delivery.headers['x-webwatch-signature'], signatureOf(delivery.text));
      assert.equal(delivery.headers['x-team'], 'blue');
      assert.deepEqual(delivery.body.metadata, { run: 'e1' });
    }
    assert.doesNotMatch(JSON.stringify((await call(serve.url, key, 'GET', `/extract/${started.id}`)).body), /X-Team|blue/);
  });

  it('a receiver that fails is tried again, and the events after the failed one wait for it', async () => {
    answers = [(response) => void response.writeHead(503, { 'retry-after': '1' }).end('busy')];
    const started = await client.startAgent({ prompt: 'What does the Pro plan cost?', webhook: `${receiver.origin}/hook` });
    const deliveries = await until(started.id, 'agent.completed', 15_000);
    assert.deepEqual(
      deliveries.map((d) => d.body.type),
      ['agent.started', 'agent.started', 'agent.action', 'agent.action', 'agent.completed'],
    );
    assert.equal(deliveries[1]!.text, deliveries[0]!.text, 'a retry sends the same body, webhookId included');
    assert.ok(deliveries[1]!.at - deliveries[0]!.at >= 900, `retried after ${Math.round(deliveries[1]!.at - deliveries[0]!.at)} ms, as Retry-After said`);
    assert.deepEqual(await sqlRows(serve.db, 'SELECT attempts FROM outbox WHERE job_id = ? ORDER BY attempts DESC LIMIT 1', started.id), [{ attempts: 2 }]);
  });

  it('a bad webhook is a 400 naming the field; a private one, on a server that refuses them, a 403 naming its URL', async () => {
    const refused = async (start: () => Promise<unknown>) => {
      try {
        await start();
      } catch (error) {
        return error as SdkError;
      }
      throw new Error('the request was accepted');
    };
    const notUrl = await refused(() => client.startAgent({ prompt: 'p', webhook: 'not a url' }));
    assert.equal(notUrl.status, 400);
    assert.deepEqual(notUrl.details, [{ path: 'webhook', message: 'must be an absolute URL starting with http:// or https://' }]);
    const ftp = await refused(() => client.startExtract({ urls: [`${site.origin}/pricing`], prompt: 'p', webhook: { url: 'ftp://example.com/hook' } }));
    assert.equal(ftp.status, 400);
    assert.deepEqual(ftp.details, [{ path: 'webhook.url', message: 'must use http or https, not ftp' }]);
    // `page` is a crawl's event, not an agent's.
    const { status, body } = await call(serve.url, key, 'POST', '/agent', { prompt: 'p', webhook: { url: `${receiver.origin}/hook`, events: ['page'] } });
    assert.equal(status, 400);
    assert.deepEqual(
      body.details.map((d: Body) => d.path),
      ['webhook.events[0]'],
    );
    assert.match(body.details[0].message, /started, action, completed, failed, cancelled/);
    const headers = await call(serve.url, key, 'POST', '/extract', {
      urls: [`${site.origin}/pricing`],
      prompt: 'p',
      webhook: { url: `${receiver.origin}/hook`, headers: { Host: 'x' } },
    });
    assert.equal(headers.status, 400);
    assert.deepEqual(
      headers.body.details.map((d: Body) => d.path),
      ['webhook.headers.Host'],
    );

    const guarded = await serveWebwatch({ allowPrivateTargets: false, llm: { baseUrl: model.url, model: 'scripted' } });
    try {
      const guardedKey = (await guarded.keys.create('acme', new Date())).key;
      const hook = `http://localhost:${new URL(receiver.origin).port}/hook`;
      for (const [path, payload] of [
        ['/agent', { prompt: 'p', webhook: hook }],
        ['/extract', { urls: ['https://example.com/'], prompt: 'p', webhook: { url: hook } }],
      ] as const) {
        const answer = await call(guarded.url, guardedKey, 'POST', path, payload);
        assert.equal(answer.status, 403, path);
        assert.equal(answer.body.details.url, hook);
      }
      assert.deepEqual(await sqlRows(guarded.db, 'SELECT count(*) AS n FROM agent_jobs'), [{ n: 0 }], 'nothing was queued');
    } finally {
      await guarded.stop();
    }
    assert.equal(received.length, 0);
  });
});
