/**
 * A scripted OpenAI-compatible chat-completions server on 127.0.0.1: real HTTP and the real wire
 * format (choices[0].message with tool_calls, finish_reason, usage). Each request is answered by
 * the test's `reply` function; every request body and its authorization header are recorded.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './server.js';

/** A message as it arrives on the wire (OpenAI's shape, snake_case). */
export interface FakeLlmMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** A chat-completions request body as the server received it. */
export interface FakeLlmRequestBody {
  model: string;
  messages: FakeLlmMessage[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  response_format?: { type: string };
  temperature?: number;
  [field: string]: unknown;
}

/** How a real model server takes its time: nothing at all for `delayMs`, then the headers, then the body after `bodyDelayMs`. */
export interface Timing {
  delayMs?: number;
  bodyDelayMs?: number;
}

export type FakeReply =
  /** An answer: text, tool calls (arguments sent as given when a string, else as JSON), or both. */
  | ({
      content?: string | null;
      toolCalls?: { id?: string; name: string; arguments: unknown }[];
      finishReason?: string;
      usage?: { prompt_tokens: number; completion_tokens: number } | null;
    } & Timing)
  /** Any other answer, e.g. an error: a string body is sent as it is, anything else as JSON. */
  | ({ status: number; body: unknown; headers?: Record<string, string> } & Timing)
  /** Never answer (until the client gives up or the server closes). */
  | 'hang';

export interface FakeLlmRequest {
  body: FakeLlmRequestBody;
  authorization: string | undefined;
  headers: IncomingHttpHeaders;
  /** Resolves when the client closed the connection before the answer was sent. */
  abandoned: Promise<void>;
}

export interface FakeLlm {
  /** The API base to configure, ending in /v1. */
  url: string;
  origin: string;
  requests: FakeLlmRequest[];
  close(): Promise<void>;
}

export async function startFakeLlm(reply: (request: FakeLlmRequestBody, index: number) => FakeReply | Promise<FakeReply>): Promise<FakeLlm> {
  const requests: FakeLlmRequest[] = [];
  const server = createServer(async (request, response) => {
    if (request.method !== 'POST' || new URL(request.url ?? '/', 'http://x').pathname !== '/v1/chat/completions') {
      send(response, 404, { error: { message: `no route ${request.method} ${request.url}`, type: 'invalid_request_error' } });
      return;
    }
    let body: FakeLlmRequestBody;
    try {
      body = JSON.parse(await readBody(request)) as FakeLlmRequestBody;
    } catch {
      send(response, 400, { error: { message: 'the body is not JSON', type: 'invalid_request_error' } });
      return;
    }
    const abandoned = new Promise<void>((resolve) => response.once('close', () => !response.writableFinished && resolve()));
    const index = requests.push({ body, authorization: request.headers.authorization, headers: request.headers, abandoned }) - 1;
    try {
      const answer = await reply(body, index);
      if (answer === 'hang') return;
      if (answer.delayMs) await pause(answer.delayMs, abandoned);
      if (response.destroyed) return;
      if ('status' in answer) {
        const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
        response.writeHead(answer.status, { 'content-type': typeof answer.body === 'string' ? 'text/plain' : 'application/json', ...answer.headers });
        if (answer.bodyDelayMs) await pause(answer.bodyDelayMs, abandoned);
        response.end(text);
        return;
      }
      const text = JSON.stringify(completion(body, index, answer));
      response.writeHead(200, { 'content-type': 'application/json' });
      if (answer.bodyDelayMs) {
        // The first byte of the body, then the rest: a server that streams its answer slowly.
        response.write(text.slice(0, 1));
        await pause(answer.bodyDelayMs, abandoned);
        if (!response.destroyed) response.end(text.slice(1));
      } else response.end(text);
    } catch (error) {
      send(response, 500, { error: { message: `the fake model's script failed: ${String(error)}`, type: 'server_error' } });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/v1`,
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits `ms`, or less when the client went away. */
const pause = (ms: number, abandoned: Promise<void>) => Promise.race([new Promise<void>((resolve) => setTimeout(resolve, ms)), abandoned]);

/**
 * A model as slow as a real one: each reply of `script` is sent after `turnMs` plus or minus
 * `jitterMs` (uniformly, from a seeded generator, so a run is repeatable); replies that set
 * their own timing keep it.
 */
export function withLatency(script: (request: FakeLlmRequestBody, index: number) => FakeReply, options: { turnMs: number; jitterMs: number; seed?: number }) {
  let state = options.seed ?? 1;
  const random = () => {
    // mulberry32: small, seedable, good enough for jitter.
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (request: FakeLlmRequestBody, index: number): FakeReply => {
    const reply = script(request, index);
    if (reply === 'hang' || reply.delayMs !== undefined || reply.bodyDelayMs !== undefined) return reply;
    return { ...reply, delayMs: Math.max(0, Math.round(options.turnMs + (random() * 2 - 1) * options.jitterMs)) };
  };
}

function send(response: ServerResponse<IncomingMessage>, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const words = (text: string | null | undefined) => (text ?? '').split(/\s+/).filter(Boolean).length;

function completion(request: FakeLlmRequestBody, index: number, answer: Exclude<FakeReply, 'hang' | { status: number }>) {
  const toolCalls = (answer.toolCalls ?? []).map((call, position) => ({
    id: call.id ?? `call_${index}_${position}`,
    type: 'function',
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
  }));
  const content = answer.content ?? null;
  // Counted in words: enough for tests to see that usage is passed on.
  const promptTokens = request.messages.reduce((sum, message) => sum + words(message.content), 0);
  const completionTokens = words(content) + toolCalls.reduce((sum, call) => sum + words(call.function.arguments), 0);
  return {
    id: `chatcmpl-fake-${index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, ...(toolCalls.length > 0 && { tool_calls: toolCalls }) },
        logprobs: null,
        finish_reason: answer.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    usage:
      answer.usage === null
        ? undefined
        : (answer.usage ?? { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens }),
  };
}

/** The system message of a request: the task and the caller's own prompt, question or query. */
export const systemOf = (body: FakeLlmRequestBody) => body.messages.find((message) => message.role === 'system')?.content ?? '';

/**
 * The page data of a request: what stands between the two identical `<<<PAGE DATA ...>>>`
 * markers of its first user message (undefined when the page is not fenced so).
 */
export function fencedPageOf(body: FakeLlmRequestBody): string | undefined {
  const user = body.messages.find((message) => message.role === 'user')?.content ?? '';
  const match = /(<<<PAGE DATA [0-9a-f]+>>>)\n([\s\S]*)\n\1$/.exec(user);
  return match?.[2];
}

/** A reply whose content is `value` as JSON text. */
export const jsonReply = (value: unknown): FakeReply => ({ content: JSON.stringify(value) });
