/**
 * webwatch's one client for OpenAI-compatible chat-completions servers: Ollama, llama.cpp's
 * server, vLLM and hosted APIs. It speaks through the official `openai` package, loaded on the
 * first `chatModel` call so that commands which never ask a model do not pay for it at start-up.
 *
 * Every failure is a WebwatchError whose code says what went wrong (see LlmErrorCode); messages
 * name the server's host and never the API key.
 */
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { EXIT, exitCodeForStatus } from '../../errors/exit-codes.js';
import { WebwatchError } from '../../errors/webwatch-error.js';

export interface LlmSettings {
  /** The API base, e.g. http://127.0.0.1:11434/v1; `/chat/completions` is added. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** How long one chat may take, retries included; LLM_TIMEOUT_DEFAULT_MS when absent. */
  timeoutMs?: number;
  /** Told the tokens (prompt and completion) of each reply that reports them: the usage ledger. */
  onTokens?: (tokens: number) => void;
}

export interface ChatTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

export interface ChatToolCall {
  id: string;
  name: string;
  /** The raw JSON text the model wrote: parsing and validating it is the caller's job. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ChatToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ChatTool[];
  /** Ask for one JSON object (response_format json_object). */
  json?: boolean;
  temperature?: number;
  /** Cancels the chat at once, pending HTTP request included (LLM_ABORTED). */
  signal?: AbortSignal;
  /** Overrides the settings' timeoutMs for this chat. */
  timeoutMs?: number;
}

export interface ChatReply {
  content: string | null;
  toolCalls: ChatToolCall[];
  /** As the server said it (stop, tool_calls, length...); 'unknown' when it said nothing. */
  finishReason: string;
  usage: { promptTokens: number; completionTokens: number } | null;
}

export interface ChatModel {
  readonly model: string;
  chat(request: ChatRequest): Promise<ChatReply>;
}

export type LlmErrorCode = 'LLM_TIMEOUT' | 'LLM_UNAVAILABLE' | 'LLM_REJECTED' | 'LLM_BAD_RESPONSE' | 'LLM_ABORTED';

export const LLM_TIMEOUT_DEFAULT_MS = 60_000;
/** Retries after a connection failure, 408, 409, 429 or 5xx: few, so a down server fails fast. */
export const LLM_MAX_RETRIES = 2;

const REDACTED = '<redacted>';

const toolCallSchema = z.object({
  id: z.string().nullish(),
  function: z.object({
    name: z.string().min(1),
    // Some servers send the arguments as an object rather than JSON text.
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  }),
});

const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullish(),
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z.array(toolCallSchema).nullish(),
        }),
      }),
    )
    .min(1, 'no choices'),
  // Token counts are informative only: a server that counts oddly still answers.
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullish().catch(null),
});

export async function chatModel(settings: LlmSettings): Promise<ChatModel> {
  const { default: OpenAIClient } = await import('openai');
  const base = new URL(settings.baseUrl);
  // Credentials in the URL would be sent by no one and printed by the library's errors: drop them.
  base.username = '';
  base.password = '';
  const server = { host: base.host, model: settings.model, apiKey: settings.apiKey };
  const errorBodies = new WeakMap<object, unknown>();
  /** Keeps each error answer's whole body: the library keeps only its `error` member, and vLLM has none. */
  class Client extends OpenAIClient {
    protected override makeStatusError(status: number, body: object, message: string | undefined, headers: Headers) {
      const error = super.makeStatusError(status, body, message, headers);
      errorBodies.set(error, body ?? message);
      return error;
    }
  }
  const client = new Client({
    baseURL: base.href,
    // The library requires a key; keyless servers (Ollama, llama.cpp) get none sent, see defaultHeaders.
    apiKey: settings.apiKey ?? 'none',
    // Explicit nulls, or the library would take OPENAI_* variables meant for other tools (the
    // organization and project are sent as headers) to whatever server webwatch is configured with.
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    ...(settings.apiKey === undefined && { defaultHeaders: { authorization: null } }),
    // webwatch retries itself (see chat): the library's back-off sleep cannot be cancelled, and an
    // abort or a timeout during it would keep the process alive for as long as Retry-After says.
    maxRetries: 0,
    // The engine never writes to the terminal, whatever OPENAI_LOG says.
    logLevel: 'off',
  });

  return {
    model: settings.model,
    async chat(request) {
      const timeoutMs = request.timeoutMs ?? settings.timeoutMs ?? LLM_TIMEOUT_DEFAULT_MS;
      const endsAt = Date.now() + timeoutMs;
      const deadline = AbortSignal.timeout(timeoutMs);
      // Cancels the pending HTTP request (the library aborts its fetch) and any back-off sleep.
      const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
      const failed = (error: unknown, attempts: number) => {
        if (request.signal?.aborted) return llmError(server, 'LLM_ABORTED', `the request to the model server at ${server.host} was cancelled`);
        if (deadline.aborted || isInstance(error, OpenAIClient.APIConnectionTimeoutError)) {
          return llmError(server, 'LLM_TIMEOUT', `the model server at ${server.host} did not answer within ${duration(timeoutMs)}`);
        }
        return libraryFailure(error, server, attempts, OpenAIClient, errorBodies);
      };
      const body = requestBody(settings.model, request);

      for (let attempt = 1; ; attempt++) {
        if (signal.aborted) throw failed(undefined, attempt - 1);
        let completion: unknown;
        try {
          completion = await client.chat.completions.create(body, { signal, timeout: Math.max(1, Math.ceil(endsAt - Date.now())) });
        } catch (error) {
          const wait = attempt <= LLM_MAX_RETRIES && !signal.aborted ? retryWait(error, attempt, OpenAIClient) : undefined;
          // A wait past the deadline would only end in a timeout: say what the server said instead.
          if (wait === undefined || Date.now() + wait >= endsAt) throw failed(error, attempt);
          await sleep(wait, undefined, { signal }).catch(() => undefined);
          continue;
        }
        const reply = replyOf(completion, server);
        if (reply.usage) settings.onTokens?.(reply.usage.promptTokens + reply.usage.completionTokens);
        return reply;
      }
    },
  };
}

/**
 * How long to wait before trying again, or undefined when the failure is not worth a retry.
 * Retried, as the library would: a failed connection, 408, 409, 429 and 5xx.
 */
function retryWait(error: unknown, attempt: number, library: typeof OpenAI): number | undefined {
  if (isInstance(error, library.APIConnectionTimeoutError)) return undefined;
  if (isInstance(error, library.APIConnectionError)) return backoff(attempt);
  if (!isInstance(error, library.APIError) || typeof error.status !== 'number') return undefined;
  const headers = (error as { headers?: Headers }).headers;
  if (headers?.get('x-should-retry') === 'false') return undefined;
  const retryable = [408, 409, 429].includes(error.status) || error.status >= 500 || headers?.get('x-should-retry') === 'true';
  if (!retryable) return undefined;
  const afterMs = Number(headers?.get('retry-after-ms') ?? Number.NaN);
  if (afterMs >= 0) return afterMs;
  const after = headers?.get('retry-after');
  if (after) {
    const seconds = Number(after);
    const wait = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
    if (wait >= 0) return wait;
  }
  return backoff(attempt);
}

/** 0.5 s, then 1 s, ... with up to a quarter off, so clients that failed together do not return together. */
function backoff(attempt: number): number {
  return Math.min(500 * 2 ** (attempt - 1), 8000) * (1 - Math.random() * 0.25);
}

interface Server {
  host: string;
  model: string;
  apiKey: string | undefined;
}

function requestBody(model: string, request: ChatRequest): ChatCompletionCreateParamsNonStreaming {
  return {
    model,
    messages: request.messages.map(wireMessage),
    ...(request.tools && request.tools.length > 0 && { tools: request.tools.map(wireTool) }),
    ...(request.json && { response_format: { type: 'json_object' } }),
    ...(request.temperature !== undefined && { temperature: request.temperature }),
  };
}

function wireMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        // An empty tool_calls array is refused by some servers: leave it out.
        ...(message.toolCalls &&
          message.toolCalls.length > 0 && {
            tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })),
          }),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function wireTool(tool: ChatTool): ChatCompletionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

function replyOf(completion: unknown, server: Server): ChatReply {
  const parsed = completionSchema.safeParse(completion);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const what = issue ? `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}` : 'not a chat completion';
    throw llmError(server, 'LLM_BAD_RESPONSE', `the model server at ${server.host} answered without a usable reply (${what})`);
  }
  const [choice] = parsed.data.choices;
  const usage = parsed.data.usage;
  return {
    content: choice!.message.content ?? null,
    toolCalls: (choice!.message.tool_calls ?? []).map((call, index) => ({
      // Some servers leave ids out; a stable one lets the tool result refer to its call.
      id: call.id || `call_${index}`,
      name: call.function.name,
      arguments: typeof call.function.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function.arguments ?? {}),
    })),
    finishReason: choice!.finish_reason ?? 'unknown',
    usage: usage ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens } : null,
  };
}

/** The error for what the library threw: an HTTP status, a failed connection, or an unreadable body. */
function libraryFailure(error: unknown, server: Server, attempts: number, library: typeof OpenAI, errorBodies: WeakMap<object, unknown>): WebwatchError {
  if (isInstance(error, library.APIConnectionError)) {
    return llmError(server, 'LLM_UNAVAILABLE', `the model server at ${server.host} is unavailable: ${connectionProblem(error)}`, {
      suggestion: 'check that the model server is running and that baseUrl points at it',
    });
  }
  if (isInstance(error, library.APIError) && typeof error.status === 'number') {
    const status = error.status;
    const said = serverMessage(errorBodies.get(error));
    const because = said ? `: ${said}` : '';
    if (status >= 500) {
      return llmError(
        server,
        'LLM_UNAVAILABLE',
        `the model server at ${server.host} failed with HTTP ${status}${attempts > 1 ? ` (${attempts} attempts)` : ''}${because}`,
        { upstreamStatus: status },
      );
    }
    const suggestion =
      status === 401 || status === 403
        ? "check the model server's API key"
        : status === 404
          ? `check that the server has the model "${server.model}" and that baseUrl ends in /v1`
          : undefined;
    return llmError(server, 'LLM_REJECTED', `the model server at ${server.host} refused the request with HTTP ${status}${because}`, {
      upstreamStatus: status,
      ...(suggestion && { suggestion }),
    });
  }
  // A 200 whose body is not JSON, or a body cut short.
  const message = error instanceof Error ? error.message : String(error);
  return llmError(server, 'LLM_BAD_RESPONSE', `the model server at ${server.host} answered without a usable reply (${message.slice(0, 200)})`);
}

function llmError(server: Server, code: LlmErrorCode, message: string, extra: { upstreamStatus?: number; suggestion?: string } = {}): WebwatchError {
  const redact = (text: string) => (server.apiKey ? text.replaceAll(server.apiKey, REDACTED) : text);
  return new WebwatchError(redact(message), {
    code,
    // Not `status`: that would make `webwatch serve` answer with the model server's status.
    exitCode:
      code === 'LLM_TIMEOUT'
        ? EXIT.timeout
        : code === 'LLM_ABORTED'
          ? EXIT.interrupted
          : extra.upstreamStatus !== undefined && extra.upstreamStatus < 500
            ? exitCodeForStatus(extra.upstreamStatus)
            : EXIT.failure,
    ...(extra.suggestion && { suggestion: redact(extra.suggestion) }),
    details: { host: server.host, model: server.model, ...(extra.upstreamStatus !== undefined && { status: extra.upstreamStatus }) },
  });
}

/** What the server said in an error answer: OpenAI's `{error: {message}}`, a top-level `message` (vLLM), FastAPI's `detail`, or plain text. */
function serverMessage(body: unknown): string | undefined {
  const field = (value: unknown, name: string) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined);
  const error = field(body, 'error');
  const candidates = [field(error, 'message'), error, field(body, 'message'), field(body, 'detail'), body];
  const text = candidates.find((candidate): candidate is string => typeof candidate === 'string' && candidate.trim() !== '');
  return text ? oneLine(text) : undefined;
}

function connectionProblem(error: Error): string {
  const cause = (error as { cause?: { code?: unknown; cause?: { code?: unknown; message?: unknown }; message?: unknown } }).cause;
  const code = cause?.code ?? cause?.cause?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'its host name does not resolve';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed before an answer';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'the connection timed out';
    default:
      return typeof code === 'string' ? code : oneLine(String(cause?.cause?.message ?? cause?.message ?? error.message));
  }
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}...` : flat;
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

/** The library's classes come from the module loaded at run time; compare through that module. */
function isInstance<T>(value: unknown, type: abstract new (...args: never[]) => T): value is T {
  return value instanceof type;
}
