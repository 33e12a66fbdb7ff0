/**
 * The remote client against a fake v2 server on loopback that injects faults: retries and their
 * timing (recorded by an injected sleep, never slept), error bodies, exit codes.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ApiClient, retryDelayMs } from '../../src/backend/remote/api-client.js';
import { retryAfterSeconds } from '../../src/spec/errors.js';
import type { WebwatchError } from '../../src/errors/webwatch-error.js';
import { EXIT } from '../../src/errors/exit-codes.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';

type Fault = (request: IncomingMessage, response: ServerResponse) => void;

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Fault =>
  (_q, r) =>
    void r.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

describe('ApiClient', () => {
  let server: TestServer;
  /** Answers for the next requests, in order; then 200 with an empty monitor list. */
  let script: Fault[] = [];
  before(async () => {
    server = await startServer({}, (request, response) => {
      const next = script.shift() ?? json(200, { success: true, data: [] });
      next(request, response);
    });
  });
  after(() => server.close());
  beforeEach(() => {
    script = [];
    server.requests.length = 0;
  });

  const client = (options: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) => {
    const sleeps: number[] = [];
    const api = new ApiClient({
      baseUrl: server.origin,
      apiKey: 'ww_secret',
      version: 'test',
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0.25,
      ...options,
    });
    return { api, sleeps };
  };

  it('adds /v2, sends the bearer key, and returns the JSON body', async () => {
    const { api } = client();
    script = [json(200, { success: true, data: [{ id: 'm' }] })];
    assert.deepEqual(await api.request('GET', '/monitor'), { success: true, data: [{ id: 'm' }] });
    assert.equal(server.requests[0]!.path, '/v2/monitor');
    assert.equal(server.requests[0]!.headers.authorization, 'Bearer ww_secret');
    await api.close();
  });

  it('waits Retry-After seconds on 429, then succeeds', async () => {
    const { api, sleeps } = client();
    script = [json(429, { success: false, error: 'Rate limit exceeded' }, { 'retry-after': '7' }), json(200, { ok: 1 })];
    assert.deepEqual(await api.request('GET', '/monitor'), { ok: 1 });
    assert.deepEqual(sleeps, [7000]);
    await api.close();
  });

  it('backs off 2^attempt seconds plus jitter without Retry-After, and gives up after 5 attempts', async () => {
    const { api, sleeps } = client();
    script = Array.from({ length: 5 }, () => json(503, { success: false, error: 'Service Unavailable' }));
    await assert.rejects(api.request('GET', '/monitor'), (error: WebwatchError) => {
      assert.equal(error.message, 'Service Unavailable');
      assert.equal(error.status, 503);
      assert.equal(error.exitCode, EXIT.failure);
      return true;
    });
    assert.equal(server.requests.length, 5);
    assert.deepEqual(sleeps, [2250, 4250, 8250, 16250]);
    await api.close();
  });

  it('caps the backoff at 30 seconds plus jitter', () => {
    assert.equal(
      retryDelayMs(5, undefined, () => 0.5),
      30_500,
    );
    assert.equal(
      retryDelayMs(9, undefined, () => 0.999),
      30_999,
    );
    assert.equal(
      retryDelayMs(1, 3, () => 0.5),
      3000,
    );
    assert.equal(retryAfterSeconds('Wed, 21 Oct 2026 07:28:10 GMT', Date.parse('Wed, 21 Oct 2026 07:28:00 GMT')), 10);
    assert.equal(retryAfterSeconds('soon', 0), undefined);
  });

  it('retries 503 then succeeds; never retries 400, 404 or 409', async () => {
    const { api, sleeps } = client();
    script = [json(503, { success: false, error: 'Service Unavailable' }), json(200, { fine: true })];
    assert.deepEqual(await api.request('POST', '/monitor', { body: {} }), { fine: true });
    assert.equal(sleeps.length, 1);
    for (const [status, error] of [
      [400, 'Bad Request'],
      [404, 'Not Found'],
      [409, 'Conflict'],
    ] as const) {
      server.requests.length = 0;
      script = [json(status, { success: false, error, details: [{ path: 'name', message: 'required' }] })];
      await assert.rejects(api.request('GET', '/monitor/x'), (e: WebwatchError) => e.status === status && e.message === error);
      assert.equal(server.requests.length, 1, `${status} is not retried`);
    }
    await api.close();
  });

  it('retries a 502 from a target that failed for now, not one that failed for good', async () => {
    const { api, sleeps } = client();
    script = [json(502, { success: false, error: 'connection refused by example.com', code: 'SCRAPE_CONNECTION_FAILED' }), json(200, { fine: true })];
    assert.deepEqual(await api.request('POST', '/scrape', { body: {} }), { fine: true });
    assert.equal(sleeps.length, 1);
    server.requests.length = 0;
    script = [json(502, { success: false, error: 'could not resolve host nosuch.invalid', code: 'SCRAPE_DNS_RESOLUTION_ERROR' })];
    await assert.rejects(
      api.request('POST', '/scrape', { body: {} }),
      (e: WebwatchError) => e.code === 'SCRAPE_DNS_RESOLUTION_ERROR' && /nosuch\.invalid/.test(e.message),
    );
    assert.equal(server.requests.length, 1, 'an unknown host is not asked again');
    await api.close();
  });

  it('reads error bodies without success, and tells non-JSON ones apart', async () => {
    const { api } = client();
    script = [json(402, { error: 'Payment Required: Insufficient credits', code: 'NO_CREDITS' })];
    await assert.rejects(
      api.request('GET', '/monitor'),
      (e: WebwatchError) => e.message === 'Payment Required: Insufficient credits' && e.code === 'NO_CREDITS' && e.exitCode === EXIT.limit,
    );
    script = [(_q, r) => void r.writeHead(403, { 'content-type': 'text/html' }).end('<h1>nope</h1>')];
    await assert.rejects(
      api.request('GET', '/monitor'),
      (e: WebwatchError) => /HTTP 403 without a JSON error body/.test(e.message) && e.exitCode === EXIT.auth,
    );
    script = [(_q, r) => void r.writeHead(200, { 'content-type': 'application/json' }).end('{"success": tru')];
    await assert.rejects(api.request('GET', '/monitor'), (e: WebwatchError) => /malformed JSON/.test(e.message) && e.exitCode === EXIT.failure);
    await api.close();
  });

  it('resends a GET after a reset connection, but not a POST', async () => {
    const { api, sleeps } = client();
    const reset: Fault = (request) => request.socket.destroy();
    script = [reset, json(200, { after: 'reset' })];
    assert.deepEqual(await api.request('GET', '/monitor'), { after: 'reset' });
    assert.equal(sleeps.length, 1);
    server.requests.length = 0;
    script = [reset, json(200, { never: 'sent' })];
    await assert.rejects(
      api.request('POST', '/monitor', { body: { name: 'x' } }),
      (e: WebwatchError) => /connection was reset|socket/.test(e.message) && e.exitCode === EXIT.failure,
    );
    assert.equal(server.requests.length, 1);
    await api.close();
  });

  it('times out a body that stops arriving, with the timeout exit code', async () => {
    const { api } = client({ bodyTimeoutMs: 200 });
    const stalls: Fault = (_q, r) => {
      r.writeHead(200, { 'content-type': 'application/json' });
      r.write('{"data": [');
    };
    script = Array.from({ length: 5 }, () => stalls);
    await assert.rejects(api.request('GET', '/monitor'), (e: WebwatchError) => e.exitCode === EXIT.timeout && /timed out/.test(e.message));
    assert.equal(server.requests.length, 5, 'a GET is resent after a timeout');
    await api.close();
  });

  it('logs requests and retries with --verbose, never the key', async () => {
    const env = { WEBWATCH_API_URL: server.origin, WEBWATCH_API_KEY: 'ww_topsecret' };
    script = [json(404, { success: false, error: 'Not Found' })];
    const result = await run(['--verbose', 'monitor', 'get', '0b6f5a3e-1a1b-4c1d-9e1f-2a3b4c5d6e7f'], { env });
    assert.equal(result.code, EXIT.notFound);
    assert.match(result.stderr, /-> GET http:\/\/127\.0\.0\.1:\d+\/v2\/monitor\/0b6f5a3e/);
    assert.match(result.stderr, /<- 404/);
    assert.match(result.stderr, /Bearer <redacted>/);
    assert.doesNotMatch(result.stderr + result.stdout, /topsecret/);
  });

  it('maps API errors to exit codes and prints the error body with --json', async () => {
    const env = { WEBWATCH_API_URL: server.origin, WEBWATCH_API_KEY: 'ww_k' };
    const cases: [Fault, number][] = [
      [json(401, { success: false, error: 'Unauthorized: Invalid token' }), EXIT.auth],
      [json(409, { success: false, error: 'Conflict' }), EXIT.conflict],
      [json(400, { success: false, error: 'Bad Request', details: [{ path: 'x', message: 'bad' }] }), EXIT.usage],
    ];
    for (const [fault, code] of cases) {
      script = [fault];
      const result = await run(['monitor', 'list', '--json'], { env });
      assert.equal(result.code, code);
      const body = JSON.parse(result.stdout);
      assert.equal(body.success, false);
      assert.equal(typeof body.error, 'string');
    }
  });

  it('says so when the API cannot be reached, after one short retry', async () => {
    const started = Date.now();
    const result = await run(['monitor', 'list'], { env: { WEBWATCH_API_URL: 'http://127.0.0.1:1', WEBWATCH_API_KEY: 'ww_k' } });
    assert.equal(result.code, EXIT.failure);
    assert.match(result.stderr, /connection refused; retrying in 0\.5 s \(2 of 2\)/);
    assert.match(result.stderr, /cannot reach the API at http:\/\/127\.0\.0\.1:1\/v2: connection refused/);
    // Not the 30 s of backoff an API that has answered gets (below).
    assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
  });

  it('a refused connection: one short retry before the API has answered, the full backoff after', async () => {
    const closed = await startServer({});
    const address = closed.origin;
    await closed.close();
    const { api, sleeps } = client({ baseUrl: address });
    await assert.rejects(api.request('GET', '/monitor'), (e: WebwatchError) => /connection refused/.test(e.message));
    assert.deepEqual(sleeps, [500]);
    await api.close();
    // A client the API has answered once: refused later (a restart while following), it gets every attempt.
    const restarting = await startServer({}, json(200, { success: true, data: [] }));
    const { api: following, sleeps: waited } = client({ baseUrl: restarting.origin });
    await following.request('GET', '/monitor');
    await restarting.close();
    await assert.rejects(following.request('GET', '/monitor'), (e: WebwatchError) => /connection refused/.test(e.message));
    assert.deepEqual(waited, [2250, 4250, 8250, 16250]);
    await following.close();
  });
});
