/**
 * Secrets never reach the output: a password in the API URL, and secret values of the
 * configuration, whatever the command prints (errors, --verbose logs, --json).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXIT } from '../../src/errors/exit-codes.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run, type Captured } from '../helpers/io.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 's3cret-pw-4711';
const OUTPUT_MODES = [[], ['--verbose'], ['--json'], ['--verbose', '--json']];

const leaks = (result: Captured, secret: string) => `${result.stdout}\n${result.stderr}`.includes(secret);

describe('a password in the API URL', () => {
  let api: TestServer;
  /** The API of the user name and password: the URL webwatch is given. */
  let urlWithPassword: string;
  before(async () => {
    api = await startServer({
      '/v2/monitor': (request, response) => {
        // A POST loses its connection (not resent: it may have arrived); a GET is refused.
        if (request.method === 'POST') return void request.socket.destroy();
        response.writeHead(401, { 'content-type': 'application/json' }).end('{"success":false,"error":"Unauthorized: Invalid token"}');
      },
    });
    urlWithPassword = `${api.url.replace('http://', `http://ops:${PASSWORD}@`)}v2`;
  });
  after(() => api.close());

  it('is never sent: the key goes as a bearer token, and no request carries the password', async () => {
    const result = await run(['--api-url', urlWithPassword, '--api-key', 'ww_key', 'monitor', 'list']);
    assert.equal(result.code, EXIT.auth);
    const seen = api.requests.at(-1)!;
    assert.equal(seen.path, '/v2/monitor');
    assert.equal(seen.headers.authorization, 'Bearer ww_key');
    assert.match(result.stderr, /the API URL's user name and password are not used: webwatch sends only the API key/);
  });

  it('is never printed: API errors, network errors and --verbose logs show the URL without it', async () => {
    const definitions = writeFiles({ 'm.yaml': 'name: M\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["https://example.com/"]}]\n' });
    for (const mode of OUTPUT_MODES) {
      const refused = await run([...mode, '--api-url', urlWithPassword, '--api-key', 'ww_key', 'monitor', 'list']);
      assert.equal(refused.code, EXIT.auth);
      assert.ok(!leaks(refused, PASSWORD), `monitor list ${mode.join(' ')}:\n${refused.stdout}${refused.stderr}`);

      const reset = await run([...mode, '--api-url', urlWithPassword, '--api-key', 'ww_key', 'monitor', 'create', '-f', join(definitions, 'm.yaml')]);
      assert.equal(reset.code, EXIT.failure);
      assert.ok(!leaks(reset, PASSWORD), `monitor create ${mode.join(' ')}:\n${reset.stdout}${reset.stderr}`);
      assert.match(reset.stdout + reset.stderr, new RegExp(`cannot reach the API at ${api.origin}/v2: the connection was reset`));
      if (mode.includes('--verbose')) assert.match(reset.stderr, new RegExp(`-> POST ${api.origin}/v2/monitor `));
    }
  });

  it('is not printed when the key is missing, nor saved or shown by login', async () => {
    const env = { XDG_CONFIG_HOME: tempDir() };
    for (const mode of OUTPUT_MODES) {
      const missing = await run([...mode, '--api-url', urlWithPassword, 'monitor', 'list'], { env });
      assert.equal(missing.code, EXIT.auth);
      assert.ok(!leaks(missing, PASSWORD), missing.stdout + missing.stderr);
    }
    // The stand-in API refuses every key, so login is tried against an API that accepts it.
    const accepting = await startServer(
      {},
      (_request, response) => void response.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"data":[]}'),
    );
    try {
      const url = `${accepting.url.replace('http://', `http://ops:${PASSWORD}@`)}v2`;
      const login = await run(['--verbose', 'login', '--api-url', url, '--api-key', 'ww_key', '--json'], { env });
      assert.equal(login.code, EXIT.ok, login.stderr);
      assert.ok(!leaks(login, PASSWORD), login.stdout + login.stderr);
      assert.equal(JSON.parse(login.stdout).apiUrl, `${accepting.origin}/v2`);
      assert.ok(!readFileSync(JSON.parse(login.stdout).file, 'utf8').includes(PASSWORD), 'the saved credentials hold no password');
    } finally {
      await accepting.close();
    }
  });

  it('in a malformed URL is not echoed: a usage error (exit 2)', async () => {
    for (const mode of OUTPUT_MODES) {
      const result = await run([...mode, '--api-url', `http://ops:${PASSWORD}@bad host/v2`, '--api-key', 'ww_key', 'monitor', 'list']);
      assert.equal(result.code, EXIT.usage);
      assert.match(result.stdout + result.stderr, /the API URL is not a valid URL/);
      assert.ok(!leaks(result, PASSWORD), result.stdout + result.stderr);
    }
  });
});

describe('secret values in the configuration', () => {
  const configured = (files: Record<string, string>) => ({ cwd: writeFiles(files), env: { HOME: tempDir(), XDG_CONFIG_HOME: tempDir() } });

  it('a webhookSecret of the wrong type is refused without echoing it, in any output mode', async () => {
    const options = configured({ '.webwatchrc.yaml': 'webhookSecret: 12345678\n' });
    for (const mode of OUTPUT_MODES) {
      const result = await run([...mode, 'monitor', 'list'], options);
      assert.equal(result.code, EXIT.usage);
      assert.match(result.stdout + result.stderr, /\.webwatchrc\.yaml:1:16: webhookSecret: must be text, not a number/);
      assert.ok(!leaks(result, '12345678'), result.stdout + result.stderr);
    }
  });

  it('nor a password in an address, nor a value under a secret-looking name', async () => {
    const options = configured({ '.webwatchrc.yaml': `smtp: "smtps://ops:${PASSWORD}@mail.example.com"\nserve: {port: 80808, apiToken: 99887766}\n` });
    const result = await run(['monitor', 'list', '--json'], options);
    assert.equal(result.code, EXIT.usage);
    const details: string[] = JSON.parse(result.stdout).details;
    assert.ok(
      details.some((line) => /smtp: must be a mapping of fields, not text$/.test(line)),
      details.join('\n'),
    );
    assert.ok(!leaks(result, PASSWORD) && !leaks(result, '99887766'), result.stdout);
    // Values that are no secret are still quoted, which helps to find them.
    assert.ok(
      details.some((line) => /serve\.port: must be at most 65535 \(got 80808\)$/.test(line)),
      details.join('\n'),
    );
  });

  it('a file that does not parse is named with the position of the error, never the line', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { '.webwatchrc.yaml': `serve: {port: 8080}\nwebhookSecret: ${PASSWORD}: x\n` },
        /\.webwatchrc\.yaml:2:\d+: invalid YAML: Nested mappings are not allowed in compact mappings$/m,
      ],
      [{ '.webwatchrc.json': `{\n  "webhookSecret": "${PASSWORD}" x\n}` }, /\.webwatchrc\.json:2:\d+: invalid JSON$/m],
      [{ '.webwatchrc.json': `{"webhookSecret": ${PASSWORD}}` }, /\.webwatchrc\.json: invalid JSON$/m],
      [{ '.webwatchrc.yaml': `serve: {port: 8080}\n---\nwebhookSecret: ${PASSWORD}\n` }, /\.webwatchrc\.yaml:2:1: invalid YAML: more than one document$/m],
    ];
    for (const [files, message] of cases) {
      for (const mode of OUTPUT_MODES) {
        const result = await run([...mode, 'monitor', 'list'], configured(files));
        assert.equal(result.code, EXIT.usage);
        assert.match(mode.includes('--json') ? JSON.parse(result.stdout).error : result.stderr, message);
        assert.ok(!leaks(result, PASSWORD), result.stdout + result.stderr);
      }
    }
  });
});
