/**
 * `webwatch extract` in-process: on the embedded engine with a scripted model on loopback, and
 * against `webwatch serve`; the result on stdout, the status document with --json, sources,
 * warnings and failures with their exit codes.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXIT } from '../../src/errors/exit-codes.js';
import { EXTRACT_CREDITS } from '../../src/engine/agent/extract-run.js';
import { startFakeLlm, withLatency, type FakeLlm, type FakeLlmRequestBody, type FakeReply } from '../helpers/fake-llm.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { html, startServer, type TestServer } from '../helpers/server.js';
import { serveWebwatch } from '../helpers/webwatch-server.js';

describe('webwatch extract', () => {
  let site: TestServer;
  let model: FakeLlm;
  let script: (request: FakeLlmRequestBody) => Exclude<FakeReply, 'hang'> = () => ({ content: '{}' });
  let config: string;
  let schemaFile: string;

  before(async () => {
    site = await startServer({
      '/pricing': html('<main><h1>Pricing</h1><p>Pro plan: $12 a month</p></main>'),
      '/team': html('<main><h1>Team</h1><p>Ada Lovelace, founder</p></main>'),
    });
    model = await startFakeLlm(withLatency((request) => script(request), { turnMs: 80, jitterMs: 60, seed: 3 }));
    config = writeFiles({ 'webwatch/config.yaml': `llm: {baseUrl: "${model.url}", model: scripted}\n` });
    schemaFile = join(
      writeFiles({
        'schema.json': JSON.stringify({ type: 'object', properties: { price: { type: 'number' }, founder: { type: 'string' } }, required: ['price'] }),
      }),
      'schema.json',
    );
  });
  after(async () => {
    await model.close();
    await site.close();
  });

  it('on the embedded engine: the result on stdout, sources on stderr, the status document with --json', async () => {
    script = () => ({ content: JSON.stringify({ data: { price: 12, founder: 'Ada Lovelace' }, sources: { price: [1], founder: [2] } }) });
    const env = { XDG_CONFIG_HOME: config, WEBWATCH_HOME: tempDir() };
    const urls = [`${site.origin}/pricing`, `${site.origin}/team`];
    const piped = await run(['extract', ...urls, '--prompt', 'the price and the founder', '--schema', schemaFile, '--show-sources'], { env });
    assert.equal(piped.code, EXIT.ok, piped.stderr);
    assert.deepEqual(JSON.parse(piped.stdout), { price: 12, founder: 'Ada Lovelace' });
    assert.match(piped.stderr, new RegExp(`source price: ${site.origin}/pricing\\n`));
    assert.match(piped.stderr, new RegExp(`source founder: ${site.origin}/team\\n`));
    assert.match(piped.stderr, new RegExp(`: ${2 + EXTRACT_CREDITS.extraction} credits\\n`));

    const json = await run(['extract', ...urls, '--prompt', 'the price and the founder', '--show-sources', '--json'], { env });
    assert.equal(json.code, EXIT.ok, json.stderr);
    const document = JSON.parse(json.stdout);
    assert.equal(document.status, 'completed');
    assert.deepEqual(document.sources, { price: [`${site.origin}/pricing`], founder: [`${site.origin}/team`] });
    assert.equal(document.creditsUsed, 2 + EXTRACT_CREDITS.extraction);

    // A URL that cannot be read is a warning, the rest is read.
    script = () => ({ content: '{"price": 12}' });
    const partly = await run(['extract', `${site.origin}/pricing`, 'http://127.0.0.1:9/gone', '--schema', schemaFile], { env });
    assert.equal(partly.code, EXIT.ok, partly.stderr);
    assert.deepEqual(JSON.parse(partly.stdout), { price: 12 });
    assert.match(partly.stderr, /warning: http:\/\/127\.0\.0\.1:9\/gone could not be read/);
  });

  it('failures: bad flags exit 2, a job the model fails exits 1 with the reason (a --json error document), no model exits 2', async () => {
    const env = { XDG_CONFIG_HOME: config, WEBWATCH_HOME: tempDir() };
    const noPrompt = await run(['extract', `${site.origin}/pricing`], { env });
    assert.equal(noPrompt.code, EXIT.usage);
    assert.match(noPrompt.stderr, /--prompt: a prompt or a schema is required/);
    const badUrl = await run(['extract', 'example.com', '--prompt', 'x'], { env });
    assert.equal(badUrl.code, EXIT.usage);
    assert.match(badUrl.stderr, /<urls>\[0\]: must be an absolute URL/);

    script = () => ({ content: 'no JSON here' });
    const failed = await run(['extract', `${site.origin}/pricing`, '--prompt', 'x', '--json'], { env });
    assert.equal(failed.code, EXIT.failure);
    const error = JSON.parse(failed.stdout);
    assert.equal(error.success, false);
    assert.equal(error.code, 'EXTRACT_FAILED');
    assert.match(error.error, /did not produce a result matching the schema in 3 attempts: the answer is not JSON/);

    const noModel = await run(['extract', `${site.origin}/pricing`, '--prompt', 'x'], { env: { WEBWATCH_HOME: tempDir() } });
    assert.equal(noModel.code, EXIT.usage);
    assert.match(noModel.stderr, /no model is configured/);
  });

  it('against webwatch serve: the server runs the job, the command waits for it', async () => {
    script = () => ({ content: '{"price": 12}' });
    const served = await serveWebwatch({ llm: { baseUrl: model.url, model: 'scripted', timeoutMs: 5000 } });
    try {
      const key = (await served.keys.create('acme', new Date())).key;
      const env = { WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: key };
      const result = await run(['extract', `${site.origin}/pricing`, 'not a url', '--ignore-invalid-urls', '--schema', schemaFile, '--json'], { env });
      assert.equal(result.code, EXIT.ok, result.stderr);
      const document = JSON.parse(result.stdout);
      assert.deepEqual([document.status, document.data], ['completed', { price: 12 }]);
      assert.match(result.stderr, /warning: urls\[1\] was left out/);
    } finally {
      await served.stop();
    }
  });
});
