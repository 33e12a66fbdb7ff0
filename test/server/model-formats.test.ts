/**
 * The model formats through serve, as the hosted JS SDK asks for them: a scripted
 * OpenAI-compatible model on loopback writes them, the team is charged the credits and the
 * tokens, and a serve with no model refuses saying how to configure one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { fencedPageOf, startFakeLlm, systemOf, type FakeLlm } from '../helpers/fake-llm.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

describe('model formats through serve', () => {
  let site: TestServer;
  let model: FakeLlm;
  let served: ServingWebwatch;
  let bare: ServingWebwatch;
  before(async () => {
    site = await startServer({
      '/pricing': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<main><h1>Pricing</h1><p>Pro plan: $10 per month.</p></main>'),
    });
    model = await startFakeLlm((body) => {
      const usage = { prompt_tokens: 50, completion_tokens: 10 };
      if (systemOf(body).startsWith('You summarize')) return { content: 'One plan, Pro, at $10 a month.', usage };
      const price = Number(/\$(\d+)/.exec(fencedPageOf(body) ?? '')?.[1] ?? 0);
      return { content: JSON.stringify({ plan: 'Pro', price }), usage };
    });
    served = await serveWebwatch({ llm: { baseUrl: model.url, model: 'scripted', timeoutMs: 5000 } });
    bare = await serveWebwatch();
  });
  after(async () => {
    await served.stop();
    await bare.stop();
    await model.close();
    await site.close();
  });

  it('summary and json with a schema, through the hosted SDK; credits and tokens charged to the team', async () => {
    const key = (await served.keys.create('acme', new Date())).key;
    const client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
    const schema = { type: 'object', properties: { plan: { type: 'string' }, price: { type: 'number' } }, required: ['plan', 'price'] };
    const document = await client.scrape(`${site.origin}/pricing`, { formats: ['summary', { type: 'json', schema }], maxAge: 0 });
    assert.equal(document.summary, 'One plan, Pro, at $10 a month.');
    assert.deepEqual(document.json, { plan: 'Pro', price: 10 });
    assert.equal(document.metadata?.creditsUsed, 5, '1 for the page, 4 for the extraction');
    assert.equal(model.requests.length, 2);
    const credits = (await call<{ data: { creditsUsed: number } }>(served, key, 'GET', '/team/credit-usage')).body;
    assert.equal(credits.data.creditsUsed, 5);
    const tokens = (await call<{ data: { tokensUsed: number } }>(served, key, 'GET', '/team/token-usage')).body;
    assert.equal(tokens.data.tokensUsed, 120, 'the two model calls, 60 tokens each');
  });

  it('with no model configured: 400 naming what needs one and how to configure it, and the page is not fetched', async () => {
    const key = (await bare.keys.create('acme', new Date())).key;
    const before = site.requests.length;
    const response = await call<{ success: boolean; error: string }>(bare, key, 'POST', '/scrape', {
      url: `${site.origin}/pricing`,
      formats: ['markdown', { type: 'question', question: 'How much?' }],
    });
    assert.equal(response.status, 400);
    const body = response.body;
    assert.equal(body.success, false);
    assert.match(body.error, /the question format needs a language model, and none is configured: set llm\.baseUrl and llm\.model/);
    assert.equal(site.requests.length, before);
  });
});
