/**
 * How `webwatch serve` reads bodies and answers what goes wrong: the JSON body parser, the error
 * handler and the not-found handler (a Fastify plugin), and the answers to requests that fail
 * before routing (Node's malformed requests, Fastify's path errors). Every error answer is a
 * §7.1 body with a code.
 */
import { isUtf8 } from 'node:buffer';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { firstInvalidUtf8Byte } from '../lib/utf8.js';
import { DatabaseDamagedError } from '../engine/store/database.js';
import { WebwatchError } from '../errors/webwatch-error.js';
import { pathBeyondDepth } from '../spec/depth.js';
import { DATABASE_CORRUPT, ERROR_MESSAGES, TARGET_FAILURE_CODES, TARGET_FAILURE_STATUS } from '../spec/errors.js';
import { MAX_JSON_DEPTH } from '../spec/limits.js';
import { formatPath } from '../spec/schemas.js';
import { unstorableTextIn } from '../spec/stored-text.js';
import { errorBody, invalid } from './http.js';

/** Ids are UUIDs (36 characters); a longer path segment cannot name anything. */
export const MAX_PATH_PARAM_LENGTH = 256;
export const DATABASE_DAMAGED = `${ERROR_MESSAGES.internal}: the server's database is damaged, and its operator must restore it`;
const ROUTE_NOT_OFFERED =
  'this server does not offer this method and path: webwatch serve answers the routes listed in its documentation ("Serving the API", docs/serve.md)';

/** Node's own answers to malformed requests (431 for huge headers, 400, 408), as §7.1 bodies. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, ERROR_MESSAGES.requestTimeout]
        : [400, ERROR_MESSAGES.badRequest];
  const body = JSON.stringify(errorBody(status, message));
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${message}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy();
}

/**
 * Fastify's errors before routing (a path segment too long, a path that is no URL path), once
 * the key is known: a stranger gets 401 and learns nothing of the routes.
 */
export function answerRoutingError(error: Error & { code?: string }, reply: FastifyReply, hasKey: boolean): void {
  if (!hasKey) void reply.code(401).send(errorBody(401, ERROR_MESSAGES.unauthorized));
  else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.code(414).send(errorBody(414, 'URI Too Long', { reason: `a path segment is longer than ${MAX_PATH_PARAM_LENGTH} characters` }));
  } else void reply.code(400).send(errorBody(400, ERROR_MESSAGES.badRequest, [{ path: '', message: 'the request path is not a valid URL path' }]));
}

/**
 * The JSON body parser: JSON.parse, then a bound on nesting (deep enough for any real schema or
 * metadata) checked without recursion, so that no body can exhaust the stack further on.
 */
export function parseJsonBody(request: FastifyRequest, bytes: Buffer, done: (error: Error | null, body?: unknown) => void): void {
  if (bytes.length === 0) return done(null, undefined);
  // Invalid UTF-8 would be decoded to U+FFFD and stored so: it is refused, with where it starts.
  if (!isUtf8(bytes)) return done(invalid([{ path: [], message: `the body is not valid UTF-8 (at byte ${firstInvalidUtf8Byte(bytes)})` }]));
  const text = bytes.toString('utf8');
  // As Fastify's own parser does: a "__proto__" key is refused, never merged into an object's prototype.
  if (/"__proto__"\s*:/.test(text)) {
    return done(new WebwatchError(ERROR_MESSAGES.badRequest, { status: 400, details: [{ path: '', message: 'the key "__proto__" is not allowed' }] }));
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return done(
      new WebwatchError(ERROR_MESSAGES.badRequest, {
        status: 400,
        details: [{ path: '', message: `the body is not valid JSON: ${(error as Error).message}` }],
      }),
    );
  }
  const tooDeep = pathBeyondDepth(body, MAX_JSON_DEPTH);
  if (tooDeep) {
    return done(
      new WebwatchError(ERROR_MESSAGES.badRequest, {
        status: 400,
        details: [{ path: formatPath(tooDeep), message: `nests deeper than ${MAX_JSON_DEPTH} levels` }],
      }),
    );
  }
  const unstorable = unstorableTextIn(body);
  if (unstorable) return done(invalid([unstorable]));
  const ignored = withoutReservedFields(body);
  if (ignored.length > 0) request.ignoredFields = ignored;
  done(null, body);
}

/**
 * Fields the hosted API reserves for its experiments (`__experimental_*`) or its own test
 * fixtures (`useMock`): its clients and test suites send them, and it ignores what it does not
 * know of them. They are taken out of the body (at its top and in its `scrapeOptions`), so that
 * the closed schemas see the rest, and named in the answer's `warning` (ignoredFieldsWarning).
 */
function withoutReservedFields(body: unknown): string[] {
  const ignored: string[] = [];
  const strip = (value: unknown, prefix: string) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return;
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (key.startsWith('__experimental_') || key === 'useMock') {
        ignored.push(`${prefix}${key}`);
        delete record[key];
      }
    }
  };
  strip(body, '');
  if (body && typeof body === 'object') strip((body as Record<string, unknown>).scrapeOptions, 'scrapeOptions.');
  return ignored;
}

/** The warning of an answer to a body with reserved fields: which were ignored. */
export function ignoredFieldsWarning(fields: readonly string[]): string {
  return `ignored, as fields the hosted API reserves for its experiments and tests: ${fields.join(', ')}`;
}

/** Every error a route throws, and every route this server does not have, as a §7.1 answer. */
export const errorReplies = fp<{ bodyLimit: number }>(
  async (app, options) => {
    // A successful JSON answer to a body whose reserved fields were ignored says so in its warning.
    app.addHook('onSend', async (request, reply, payload) => {
      if (!request.ignoredFields || reply.statusCode >= 400 || typeof payload !== 'string' || !payload.startsWith('{')) return payload;
      const answer = JSON.parse(payload) as Record<string, unknown>;
      const warning = ignoredFieldsWarning(request.ignoredFields);
      // A scrape's document carries its warning itself (`data.warning`), other answers at their top.
      const data = answer.data as Record<string, unknown> | undefined;
      const holder = data && typeof data === 'object' && !Array.isArray(data) && 'metadata' in data ? data : answer;
      holder.warning = typeof holder.warning === 'string' && holder.warning ? `${holder.warning}; ${warning}` : warning;
      return JSON.stringify(answer);
    });
    app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
      if (error instanceof DatabaseDamagedError) {
        // The log names the file for the operator; a client learns what failed and why, not where the server keeps its data.
        request.log.error({ err: error }, 'the database is damaged');
        return reply.code(500).send(errorBody(500, DATABASE_DAMAGED, { reason: error.reason }, DATABASE_CORRUPT));
      }
      if (error instanceof WebwatchError && error.status !== undefined) {
        return reply.code(error.status).send(errorBody(error.status, error.message, error.details, error.code));
      }
      if (error instanceof WebwatchError && error.code && TARGET_FAILURE_CODES.has(error.code)) {
        // The target site failed, not the server: the code and message say how.
        const status = TARGET_FAILURE_STATUS.get(error.code) ?? 502;
        return reply.code(status).send(errorBody(status, error.message, undefined, error.code));
      }
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return reply.code(413).send(errorBody(413, ERROR_MESSAGES.payloadTooLarge, { limitBytes: options.bodyLimit }));
      }
      if (error.statusCode === 415) return reply.code(415).send(errorBody(415, 'Unsupported Media Type', { expected: 'application/json' }));
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
        // Malformed JSON and other bad bodies.
        return reply.code(400).send(errorBody(400, ERROR_MESSAGES.badRequest, [{ path: '', message: error.message }]));
      }
      request.log.error({ err: error }, 'unhandled error');
      // An engine failure with a code of its own (a missing browser, a model's bad answer) says which.
      if (error instanceof WebwatchError && error.code)
        return reply.code(500).send(errorBody(500, ERROR_MESSAGES.internal, { reason: error.message }, error.code));
      return reply.code(500).send(errorBody(500, ERROR_MESSAGES.internal));
    });
    // A route this server does not have: §7.2's `Not Found` as written, and what and why in the
    // details and the code, so that it cannot be mistaken for an unknown id of a route it has.
    app.setNotFoundHandler((request, reply) =>
      reply
        .code(404)
        .send(
          errorBody(404, ERROR_MESSAGES.notFound, { method: request.method, path: request.url.split('?', 1)[0], reason: ROUTE_NOT_OFFERED }, 'ROUTE_NOT_FOUND'),
        ),
    );
  },
  { name: 'webwatch-error-replies' },
);
