/** Which API and key are in use, whether they work; a hidden key prompt; retries said aloud. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const BIN = fileURLToPath(new URL('../../../bin/webwatch.js', import.meta.url));

describe('auth status and whoami', () => {
  let served: ServingWebwatch;
  let key: string;
  before(async () => {
    served = await serveWebwatch();
    key = (await served.keys.create('acme', new Date())).key;
  });
  after(() => served.stop());

  it('on the embedded engine says so, and needs no key', async () => {
    const result = await run(['auth', 'status'], { env: { WEBWATCH_HOME: '/tmp/ww-home-x' } });
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^engine: +the embedded engine \(no server, no key\)\ndatabase: +\/tmp\/ww-home-x\/webwatch.db\n$/);
  });

  it('names the API, where its URL and key come from, the key redacted, and that it works', async () => {
    const result = await run(['whoami'], { env: { WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: key } });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`engine: +the API at ${served.url} \\(from WEBWATCH_API_URL\\)`));
    assert.match(result.stdout, new RegExp(`key: +${key.slice(0, 3)}…${key.slice(-4)} \\(from WEBWATCH_API_KEY\\)`));
    assert.match(result.stdout, /works: +yes/);
    assert.ok(!result.stdout.includes(key) && !result.stderr.includes(key), 'never the whole key');
    const json = JSON.parse((await run(['auth', 'status', '--json', '--api-key', key], { env: { WEBWATCH_API_URL: served.url } })).stdout);
    assert.deepEqual(
      { ...json, key: undefined },
      { engine: 'remote', apiUrl: served.url, apiUrlFrom: 'WEBWATCH_API_URL', key: undefined, keyFrom: '--api-key', works: true },
    );
  });

  it('a key the API refuses is exit 3 with the reason; an API that does not answer is exit 1 at once', async () => {
    const refused = await run(['auth', 'status'], { env: { WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: 'ww_not_a_key_at_all_0000' } });
    assert.equal(refused.code, 3);
    assert.match(refused.stdout, /works: +no: Unauthorized/);
    const started = Date.now();
    const down = await run(['auth', 'status'], { env: { WEBWATCH_API_URL: 'http://127.0.0.1:9/v2', WEBWATCH_API_KEY: key } });
    assert.equal(down.code, 1);
    assert.match(down.stdout, /works: +no: cannot reach the API/);
    assert.ok(Date.now() - started < 5000, 'one attempt, no retries');
    const none = await run(['auth', 'status'], { env: { WEBWATCH_API_URL: served.url } });
    assert.equal(none.code, 3);
    assert.match(none.stdout, /key: +none/);
  });
});

describe('retries of a remote API are said on stderr', () => {
  let flaky: TestServer;
  let calls = 0;
  before(async () => {
    flaky = await startServer({
      '/v2/monitor': (_q, r) => {
        calls++;
        if (calls <= 2)
          return void r.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"success":false,"error":"Service Unavailable"}');
        r.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"data":[]}');
      },
    });
  });
  after(() => flaky.close());

  it('each retry gets a line with what failed and the attempt; --quiet drops them', async () => {
    const env = { WEBWATCH_API_URL: `${flaky.origin}/v2`, WEBWATCH_API_KEY: 'ww_key_for_the_flaky_api' };
    const result = await run(['monitor', 'list'], { env });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, new RegExp(`${flaky.origin} answered 503; retrying in 0.0 s \\(2 of 5\\)\\n.*answered 503; retrying in 0.0 s \\(3 of 5\\)`));
    calls = 0;
    const quiet = await run(['monitor', 'list', '--quiet'], { env });
    assert.doesNotMatch(quiet.stderr, /retrying/);
  });
});

describe('login on a terminal', () => {
  it('does not echo the key typed at the prompt', { skip: process.platform !== 'linux' }, async () => {
    const served = await serveWebwatch();
    try {
      const key = (await served.keys.create('acme', new Date())).key;
      const home = tempDir();
      // `script` gives the command a real pseudo-terminal, which echoes what is typed unless raw.
      const child = spawn('script', ['-qec', `${process.execPath} ${BIN} login --api-url ${served.url}`, '/dev/null'], {
        env: { PATH: process.env.PATH, WEBWATCH_HOME: home, XDG_CONFIG_HOME: home, NO_COLOR: '1', HOME: home },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let seen = '';
      let typed = false;
      child.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (!typed && seen.includes('API key (not shown): ')) {
          typed = true;
          child.stdin.write(`${key}\r`);
        }
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      child.stdin.end();
      assert.equal(code, 0, seen);
      assert.match(seen, /saved the API key for/);
      assert.ok(!seen.includes(key.slice(4, 20)), `the key is not echoed: ${JSON.stringify(seen)}`);
    } finally {
      await served.stop();
    }
  });
});
