/** Errors on a terminal say what and why, with a hint that fits, from the local engine and from an API. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { run } from '../helpers/io.js';
import { writeFiles } from '../helpers/files.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const MONITORS = {
  'm.yaml': 'name: Acme blog\nschedule: { cron: "0 * * * *" }\ntargets: [{ type: scrape, urls: ["https://example.com/blog"] }]\n',
};

describe('errors from an API, on a terminal', () => {
  let served: ServingWebwatch;
  let ww: (args: string[], env?: Record<string, string>) => ReturnType<typeof run>;

  before(async () => {
    served = await serveWebwatch({ allowPrivateTargets: false });
    const key = (await served.keys.create('acme', new Date())).key;
    ww = (args, env = {}) => run(args, { env: { WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: key, ...env } });
    assert.equal((await ww(['monitor', 'apply', '-f', writeFiles(MONITORS)])).code, 0);
  });
  after(() => served.stop());

  it('a paused monitor: what, and how to resume it (as on the local engine)', async () => {
    assert.equal((await ww(['monitor', 'pause', 'acme blog'])).code, 0);
    const result = await ww(['monitor', 'run', 'acme blog']);
    assert.equal(result.code, 5);
    assert.equal(result.stderr, 'error: monitor "Acme blog" is paused\nhint: resume it with: webwatch monitor resume "Acme blog"\n');
  });

  it('a refused key: the hint says how to see and change which key is used', async () => {
    const result = await ww(['monitor', 'list'], { WEBWATCH_API_KEY: 'ww_not_a_key' });
    assert.equal(result.code, 3);
    assert.match(result.stderr, /^error: Unauthorized: Invalid token\nhint: the API refused the key: webwatch auth status shows/);
  });

  it('the private-address rule: the address, the rule and the flag', async () => {
    const result = await ww(['scrape', 'http://127.0.0.1:9/']);
    assert.equal(result.code, 3);
    assert.match(
      result.stderr,
      /^error: url "http:\/\/127\.0\.0\.1:9\/", address "127\.0\.0\.1": targets on private, loopback and link-local addresses are refused; start serve with --allow-private-targets/,
    );
  });

  it('an unknown monitor names what was not found and where to look', async () => {
    const result = await ww(['monitor', 'get', 'nope']);
    assert.equal(result.code, 4);
    assert.equal(result.stderr, 'error: monitor "nope": no monitor has this id, id prefix or name\nhint: webwatch monitor list shows them\n');
  });

  it('a server without a model for agents: its reason is shown, and it is not retried', async () => {
    const started = Date.now();
    const result = await ww(['agent', 'run', 'find the price']);
    assert.equal(result.code, 2, 'a missing model is configuration to set, on the server as here');
    assert.match(result.stderr, /^error: Failed to passthrough agent request\.\n {2}no model is configured for agent jobs: set llm\.baseUrl/);
    assert.doesNotMatch(result.stderr, /retrying/);
    assert.ok(Date.now() - started < 2000, 'answered at once, without backoff');
  });

  it('a server without a search provider: the reason says how to configure one', async () => {
    const result = await ww(['search', 'acme']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^error: no search provider is configured\n {2}add to the config: search: \{provider: searxng/);
  });
});

describe('flag values that do not fit, on a terminal', () => {
  it('say which flag, what it takes and what was typed', async () => {
    const cases: [string[], string][] = [
      [['crawl', '--limit', 'abc', 'https://example.com'], 'error: --limit: must be a number, not the text "abc"'],
      [['scrape', '--timeout', '1.5', 'https://example.com'], 'error: --timeout: must be a whole number, not the text "1.5"'],
      [['serve', '--port', '70000'], 'error: --port: must be at most 65535 (got 70000)'],
      [['agent', 'run', '--max-credits', '0', 'Find the prices'], 'error: --max-credits: must be at least 1 (got 0)'],
    ];
    for (const [args, first] of cases) {
      const result = await run(args);
      assert.equal(result.code, 2, args.join(' '));
      assert.equal(result.stderr.split('\n')[0], first);
    }
  });

  it('never quote the value of a flag named like a secret', async () => {
    const { z } = await import('zod');
    const { parseFlags } = await import('../../src/cli/flags.js');
    assert.throws(
      () => parseFlags(z.object({ apiKey: z.coerce.number() }), { apiKey: 'sk-live-4711' }),
      (error: Error) => {
        assert.equal(error.message, '--api-key: must be a number, not text');
        return true;
      },
    );
  });
});
