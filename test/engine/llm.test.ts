/** The chat-completions client against a scripted OpenAI-compatible server on 127.0.0.1. */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, afterEach, describe, it } from 'node:test';
import { chatModel, LLM_MAX_RETRIES, type ChatModel } from '../../src/engine/llm/chat.js';
import { EXIT } from '../../src/errors/exit-codes.js';
import { WebwatchError } from '../../src/errors/webwatch-error.js';
import { startFakeLlm, type FakeLlm, type FakeReply } from '../helpers/fake-llm.js';

const KEY = 'sk-webwatch-test-0123456789abcdef';

async function failure(promise: Promise<unknown>): Promise<WebwatchError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof WebwatchError, `expected a WebwatchError, got ${error}`);
    return error;
  }
  assert.fail('expected a failure');
}

/** Every text of an error a user or a log could see. */
const visible = (error: WebwatchError) => [error.message, error.suggestion ?? '', JSON.stringify(error.details), String(error.stack)].join('\n');

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('chatModel', () => {
  const servers: FakeLlm[] = [];
  const fake = async (reply: (request: Parameters<Parameters<typeof startFakeLlm>[0]>[0], index: number) => FakeReply | Promise<FakeReply>) => {
    const server = await startFakeLlm(reply);
    servers.push(server);
    return server;
  };
  const model = (server: FakeLlm, extra: { apiKey?: string; timeoutMs?: number } = {}): Promise<ChatModel> =>
    chatModel({ baseUrl: server.url, model: 'test-model', ...extra });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  after(() => {
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_ADMIN_KEY;
    delete process.env.OPENAI_ORG_ID;
    delete process.env.OPENAI_PROJECT_ID;
  });

  it('returns a plain answer with its finish reason and token counts', async () => {
    const server = await fake(() => ({ content: 'The price went up.' }));
    const llm = await model(server);
    const reply = await llm.chat({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What changed on the page?' },
      ],
    });
    assert.equal(llm.model, 'test-model');
    assert.deepEqual(reply, { content: 'The price went up.', toolCalls: [], finishReason: 'stop', usage: { promptTokens: 7, completionTokens: 4 } });
    const [request] = server.requests;
    assert.equal(request!.body.model, 'test-model');
    assert.deepEqual(request!.body.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What changed on the page?' },
    ]);
    assert.equal(request!.body.tools, undefined);
    assert.equal(request!.body.response_format, undefined, 'no JSON mode unless asked');
  });

  it('sends tools, parses two tool calls of one reply, and sends the results back in the OpenAI shape', async () => {
    const server = await fake((_request, index) =>
      index === 0
        ? {
            toolCalls: [
              { id: 'call_a', name: 'scrape', arguments: { url: 'https://example.com/a' } },
              { id: 'call_b', name: 'search', arguments: '{"query": "gpu prices"' },
            ],
          }
        : { content: 'Done: both pages read.' },
    );
    const llm = await model(server);
    const tools = [
      { name: 'scrape', description: 'Read one page', parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] } },
      { name: 'search', description: 'Search the web', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
    ];
    const messages = [{ role: 'user' as const, content: 'Compare the two pages.' }];
    const first = await llm.chat({ messages, tools });
    assert.equal(first.finishReason, 'tool_calls');
    assert.equal(first.content, null);
    assert.deepEqual(first.toolCalls, [
      { id: 'call_a', name: 'scrape', arguments: '{"url":"https://example.com/a"}' },
      // Broken JSON from the model reaches the caller as it was written.
      { id: 'call_b', name: 'search', arguments: '{"query": "gpu prices"' },
    ]);
    assert.deepEqual(
      server.requests[0]!.body.tools,
      tools.map((tool) => ({ type: 'function', function: tool })),
    );

    const second = await llm.chat({
      tools,
      messages: [
        ...messages,
        { role: 'assistant', content: first.content, toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: 'call_a', content: '# Page A' },
        { role: 'tool', toolCallId: 'call_b', content: 'error: the arguments are not JSON' },
      ],
    });
    assert.equal(second.content, 'Done: both pages read.');
    assert.deepEqual(server.requests[1]!.body.messages.slice(1), [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'scrape', arguments: '{"url":"https://example.com/a"}' } },
          { id: 'call_b', type: 'function', function: { name: 'search', arguments: '{"query": "gpu prices"' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '# Page A' },
      { role: 'tool', tool_call_id: 'call_b', content: 'error: the arguments are not JSON' },
    ]);
  });

  it('asks for a JSON object in JSON mode, with the temperature given', async () => {
    const server = await fake(() => ({ content: '{"meaningful": true}' }));
    const reply = await (await model(server)).chat({ messages: [{ role: 'user', content: 'Judge.' }], json: true, temperature: 0 });
    assert.equal(reply.content, '{"meaningful": true}');
    assert.deepEqual(server.requests[0]!.body.response_format, { type: 'json_object' });
    assert.equal(server.requests[0]!.body.temperature, 0);
  });

  it('sends the bearer key, and no key at all when none is set, whatever OPENAI_* variables say', async () => {
    process.env.OPENAI_API_KEY = 'sk-meant-for-another-tool';
    process.env.OPENAI_ADMIN_KEY = 'sk-admin-meant-for-another-tool';
    process.env.OPENAI_ORG_ID = 'org-of-another-tool';
    process.env.OPENAI_PROJECT_ID = 'proj-of-another-tool';
    const server = await fake(() => ({ content: 'ok' }));
    await (await model(server, { apiKey: KEY })).chat({ messages: [{ role: 'user', content: 'hi' }] });
    await (await model(server)).chat({ messages: [{ role: 'user', content: 'hi' }] });
    assert.deepEqual(
      server.requests.map((request) => request.authorization),
      [`Bearer ${KEY}`, undefined],
    );
    for (const request of server.requests) {
      assert.deepEqual(
        Object.keys(request.headers).filter((name) => name.startsWith('openai-')),
        [],
        'no organization or project header',
      );
    }
  });

  it('writes nothing to the terminal, even when OPENAI_LOG asks the library to', async () => {
    process.env.OPENAI_LOG = 'debug';
    const written: unknown[][] = [];
    const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
    const originals = methods.map((method) => console[method]);
    methods.forEach((method) => (console[method] = (...args: unknown[]) => void written.push(args)));
    try {
      const server = await fake((_request, index) =>
        index === 0 ? { status: 500, body: { error: { message: 'busy' } }, headers: { 'retry-after-ms': '0' } } : { content: 'ok' },
      );
      await (await model(server, { apiKey: KEY })).chat({ messages: [{ role: 'user', content: 'hi' }] });
    } finally {
      methods.forEach((method, index) => (console[method] = originals[index]!));
      delete process.env.OPENAI_LOG;
    }
    assert.deepEqual(written, []);
  });

  it('passes on a server that omits usage and tool call ids', async () => {
    const server = await fake(() => ({
      status: 200,
      body: { choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ function: { name: 'scrape', arguments: { url: 'https://x' } } }] } }] },
    }));
    const reply = await (await model(server)).chat({ messages: [{ role: 'user', content: 'go' }] });
    assert.deepEqual(reply, {
      content: null,
      toolCalls: [{ id: 'call_0', name: 'scrape', arguments: '{"url":"https://x"}' }],
      finishReason: 'unknown',
      usage: null,
    });
  });

  it("a refused key is LLM_REJECTED with the server's message, not retried, and the key is not echoed", async () => {
    // Some servers quote the key they refuse.
    const server = await fake(() => ({
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error', code: 'invalid_api_key' } },
    }));
    const error = await failure((await model(server, { apiKey: KEY })).chat({ messages: [{ role: 'user', content: 'hi' }] }));
    assert.equal(error.code, 'LLM_REJECTED');
    assert.equal(error.exitCode, EXIT.auth);
    assert.equal(error.status, undefined, "the model server's status is not webwatch's own");
    assert.match(
      error.message,
      new RegExp(
        `^the model server at 127\\.0\\.0\\.1:${new URL(server.origin).port} refused the request with HTTP 401: Incorrect API key provided: <redacted>$`,
      ),
    );
    assert.doesNotMatch(visible(error), new RegExp(KEY));
    assert.equal(server.requests.length, 1);
  });

  it("an unknown model is LLM_REJECTED naming the model, whatever the error body's shape", async () => {
    const bodies: unknown[] = [
      { error: { message: 'model "test-model" not found, try pulling it first', type: 'api_error' } },
      { object: 'error', message: 'The model `test-model` does not exist.', type: 'NotFoundError', code: 404 },
    ];
    const server = await fake((_request, index) => ({ status: 404, body: bodies[index] }));
    const llm = await model(server);
    const ollama = await failure(llm.chat({ messages: [{ role: 'user', content: 'hi' }] }));
    const vllm = await failure(llm.chat({ messages: [{ role: 'user', content: 'hi' }] }));
    assert.equal(ollama.code, 'LLM_REJECTED');
    assert.equal(ollama.exitCode, EXIT.notFound);
    assert.match(ollama.message, /HTTP 404: model "test-model" not found, try pulling it first$/);
    assert.match(vllm.message, /HTTP 404: The model `test-model` does not exist\.$/);
    assert.match(ollama.suggestion ?? '', /"test-model"/);
    assert.deepEqual(ollama.details, { host: new URL(server.origin).host, model: 'test-model', status: 404 });
  });

  it('a server failing with 5xx is LLM_UNAVAILABLE after a bounded number of retries', async () => {
    const server = await fake(() => ({ status: 500, body: { error: { message: 'out of memory loading the model' } } }));
    const error = await failure((await model(server, { apiKey: KEY })).chat({ messages: [{ role: 'user', content: 'hi' }] }));
    assert.equal(error.code, 'LLM_UNAVAILABLE');
    assert.equal(error.exitCode, EXIT.failure);
    assert.match(error.message, /failed with HTTP 500 \(3 attempts\): out of memory loading the model$/);
    assert.equal(server.requests.length, LLM_MAX_RETRIES + 1);
    assert.doesNotMatch(visible(error), new RegExp(KEY));
  });

  it('retries a server that is loading the model, waiting as long as Retry-After says', async () => {
    const waits = [{ 'retry-after-ms': '700' }, { 'retry-after': '1' }];
    const server = await fake((_request, index) =>
      index < waits.length ? { status: 503, body: { error: { message: 'loading model' } }, headers: waits[index] } : { content: 'ready' },
    );
    const started = Date.now();
    const reply = await (await model(server)).chat({ messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(reply.content, 'ready');
    assert.equal(server.requests.length, 3);
    // Without the headers the two back-offs would come to 1.5 s at most.
    assert.ok(Date.now() - started >= 1700, 'the waits asked for were kept');
  });

  it('a Retry-After beyond the time left fails at once with what the server said', async () => {
    const server = await fake(() => ({ status: 429, body: { error: { message: 'rate limit reached' } }, headers: { 'retry-after': '30' } }));
    const started = Date.now();
    const error = await failure((await model(server, { timeoutMs: 5000 })).chat({ messages: [{ role: 'user', content: 'hi' }] }));
    assert.equal(error.code, 'LLM_REJECTED');
    assert.equal(error.exitCode, EXIT.limit);
    assert.match(error.message, /HTTP 429: rate limit reached$/);
    assert.equal(server.requests.length, 1);
    assert.ok(Date.now() - started < 2000);
  });

  it('a closed port is LLM_UNAVAILABLE, naming the host', async () => {
    const port = await closedPort();
    const llm = await chatModel({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'test-model', apiKey: KEY });
    const error = await failure(llm.chat({ messages: [{ role: 'user', content: 'hi' }] }));
    assert.equal(error.code, 'LLM_UNAVAILABLE');
    assert.equal(error.message, `the model server at 127.0.0.1:${port} is unavailable: connection refused`);
    assert.doesNotMatch(visible(error), new RegExp(KEY));
  });

  it('a server that never answers is LLM_TIMEOUT once timeoutMs has passed, retries included', async () => {
    const server = await fake(() => 'hang');
    const started = Date.now();
    const error = await failure((await model(server, { apiKey: KEY, timeoutMs: 300 })).chat({ messages: [{ role: 'user', content: 'hi' }] }));
    const elapsed = Date.now() - started;
    assert.equal(error.code, 'LLM_TIMEOUT');
    assert.equal(error.exitCode, EXIT.timeout);
    assert.match(error.message, /did not answer within 300 ms$/);
    assert.ok(elapsed < 2000, `took ${elapsed} ms`);
    assert.equal(server.requests.length, 1, 'no retry once the time is up');
    await server.requests[0]!.abandoned;
    assert.doesNotMatch(visible(error), new RegExp(KEY));
  });

  it('a per-chat timeoutMs overrides the settings', async () => {
    const server = await fake(() => 'hang');
    const llm = await model(server, { timeoutMs: 60_000 });
    const error = await failure(llm.chat({ messages: [{ role: 'user', content: 'hi' }], timeoutMs: 200 }));
    assert.equal(error.code, 'LLM_TIMEOUT');
    assert.match(error.message, /within 200 ms$/);
  });

  it('an abort mid-request is LLM_ABORTED at once, and the server sees the connection closed', async () => {
    const server = await fake(() => 'hang');
    const llm = await model(server, { apiKey: KEY });
    const controller = new AbortController();
    const chat = failure(llm.chat({ messages: [{ role: 'user', content: 'hi' }], signal: controller.signal }));
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const abortedAt = Date.now();
    controller.abort();
    const error = await chat;
    const elapsed = Date.now() - abortedAt;
    assert.equal(error.code, 'LLM_ABORTED');
    assert.equal(error.exitCode, EXIT.interrupted);
    assert.ok(elapsed < 500, `took ${elapsed} ms`);
    await server.requests[0]!.abandoned;
    assert.doesNotMatch(visible(error), new RegExp(KEY));
  });

  it('an abort during the back-off between retries ends the chat at once', async () => {
    const server = await fake(() => ({ status: 503, body: { error: { message: 'loading model' } }, headers: { 'retry-after': '30' } }));
    const controller = new AbortController();
    const chat = failure((await model(server)).chat({ messages: [{ role: 'user', content: 'hi' }], signal: controller.signal }));
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const abortedAt = Date.now();
    controller.abort();
    const error = await chat;
    assert.equal(error.code, 'LLM_ABORTED');
    assert.ok(Date.now() - abortedAt < 500);
    assert.equal(server.requests.length, 1);
  });

  it('an already aborted signal sends nothing', async () => {
    const server = await fake(() => ({ content: 'ok' }));
    const error = await failure((await model(server)).chat({ messages: [{ role: 'user', content: 'hi' }], signal: AbortSignal.abort() }));
    assert.equal(error.code, 'LLM_ABORTED');
    assert.equal(server.requests.length, 0);
  });

  it('an answer without choices, or that is not JSON, is LLM_BAD_RESPONSE', async () => {
    const answers: FakeReply[] = [
      { status: 200, body: { id: 'x', object: 'chat.completion', choices: [] } },
      { status: 200, body: '<html>a proxy page</html>' },
      { status: 200, body: '{"choices": [', headers: { 'content-type': 'application/json' } },
    ];
    const server = await fake((_request, index) => answers[index]!);
    const llm = await model(server, { apiKey: KEY });
    const errors = [];
    for (let i = 0; i < answers.length; i++) errors.push(await failure(llm.chat({ messages: [{ role: 'user', content: 'hi' }] })));
    assert.deepEqual(
      errors.map((error) => error.code),
      ['LLM_BAD_RESPONSE', 'LLM_BAD_RESPONSE', 'LLM_BAD_RESPONSE'],
    );
    assert.match(errors[0]!.message, /^the model server at 127\.0\.0\.1:\d+ answered without a usable reply \(choices: no choices\)$/);
    for (const error of errors) assert.doesNotMatch(visible(error), new RegExp(KEY));
  });

  it('never sends or prints credentials written into the base URL', async () => {
    const server = await fake(() => ({ status: 401, body: { error: { message: 'no key' } } }));
    const withCredentials = server.url.replace('http://', 'http://someone:url-password@');
    const error = await failure((await chatModel({ baseUrl: withCredentials, model: 'test-model' })).chat({ messages: [{ role: 'user', content: 'hi' }] }));
    assert.equal(error.code, 'LLM_REJECTED');
    assert.equal(server.requests[0]!.authorization, undefined);
    assert.doesNotMatch(visible(error), /url-password|someone/);
  });
});
