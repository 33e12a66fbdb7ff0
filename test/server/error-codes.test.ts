/**
 * Every error answer of `webwatch serve` carries a `code` beside its message (spec §7.1), so
 * that a script can match on it whatever the message says; and so does every --json error
 * document of the command line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EXIT } from '../../src/errors/exit-codes.js';
import { tempDir } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

describe('error codes of serve', () => {
  let served: ServingWebwatch;
  let key: string;
  before(async () => {
    served = await serveWebwatch({ rateLimitPerMinute: 12, bodyLimit: 2048, allowPrivateTargets: false });
    key = (await served.keys.create('acme', new Date())).key;
  });
  after(() => served.stop());

  it('names each failure with a code, whatever its status', async () => {
    const answers: [string, { status: number; body: Body }, number, string][] = [
      ['no key', await call(served, undefined, 'GET', '/monitor'), 401, 'UNAUTHORIZED'],
      ['a revoked or unknown key', await call(served, 'wk_nothing', 'GET', '/monitor'), 401, 'UNAUTHORIZED'],
      ['a body that is not JSON', await call(served, key, 'POST', '/scrape', '{"url":'), 400, 'BAD_REQUEST'],
      [
        'an invalid field',
        await call(served, key, 'POST', '/monitor', JSON.stringify({ name: 'x', schedule: { cron: 'often' }, targets: [] })),
        400,
        'BAD_REQUEST',
      ],
      ['no URL', await call(served, key, 'POST', '/scrape', '{"url":"ftp://x"}'), 400, 'INVALID_URL'],
      ['a private address', await call(served, key, 'POST', '/scrape', '{"url":"http://127.0.0.1:9/"}'), 403, 'FORBIDDEN'],
      ['an unknown monitor', await call(served, key, 'GET', '/monitor/3f1c1d4e-0000-4000-8000-000000000000'), 404, 'NOT_FOUND'],
      ['a route serve does not have', await call(served, key, 'GET', '/nothing-here'), 404, 'ROUTE_NOT_FOUND'],
      [
        'a body over the limit',
        await call(served, key, 'POST', '/scrape', JSON.stringify({ url: 'https://example.com/', pad: 'x'.repeat(4096) })),
        413,
        'PAYLOAD_TOO_LARGE',
      ],
      [
        'a body that is not JSON at all',
        await call(served, key, 'POST', '/scrape', 'url=x', { type: 'application/x-www-form-urlencoded' }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
    ];
    for (const [what, answer, status, code] of answers) {
      assert.equal(answer.status, status, `${what}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.success, false, what);
      assert.equal(typeof answer.body.error, 'string', what);
      assert.equal(answer.body.code, code, `${what}: ${JSON.stringify(answer.body)}`);
    }
    // The key's 12 requests a minute run out.
    let limited = await call(served, key, 'GET', '/monitor');
    for (let i = 0; i < 12 && limited.status === 200; i++) limited = await call(served, key, 'GET', '/monitor');
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, 'RATE_LIMIT_EXCEEDED');
  });
});

describe('error codes of the command line', () => {
  it("a --json error document always has a code: its own, its HTTP status's, or its exit code's name", async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    const missing = await run(['monitor', 'get', 'Nope', '--json'], { env });
    assert.equal(missing.code, EXIT.notFound);
    assert.equal(JSON.parse(missing.stdout).code, 'NOT_FOUND');
    const usage = await run(['scrape', 'https://example.com/', '--format', 'bogus', '--json'], { env });
    assert.equal(usage.code, EXIT.usage);
    assert.equal(JSON.parse(usage.stdout).code, 'USAGE_ERROR');
  });
});
