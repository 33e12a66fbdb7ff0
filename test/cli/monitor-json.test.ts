/**
 * Monitors whose targets extract JSON (the json format, changeTracking's json mode): the
 * extracted fields decide what changed, each changed leaf as {previous, current}, with the
 * JSON kept as the page's snapshot. The model is a scripted OpenAI-compatible server on loopback.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { tempDir, writeFiles } from '../helpers/files.js';
import { run } from '../helpers/io.js';
import { fencedPageOf, jsonReply, startFakeLlm, systemOf, type FakeLlm } from '../helpers/fake-llm.js';
import { startServer, type TestServer } from '../helpers/server.js';

describe('JSON monitors', () => {
  let site: TestServer;
  let model: FakeLlm;
  let price = '10';
  let updated = 'Monday';
  before(async () => {
    site = await startServer({
      '/pricing': (_q, r) =>
        void r
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<main><h1>Pricing</h1><p>Pro plan: $${price} per month.</p><p>Updated ${updated}</p></main>`),
    });
    // The extraction reads the price off the page it is given; nothing else is asked of it here.
    model = await startFakeLlm((body) => {
      if (!systemOf(body).startsWith('You extract')) return { status: 500, body: { error: { message: `unexpected task: ${systemOf(body).slice(0, 40)}` } } };
      const found = /\$(\d+)/.exec(fencedPageOf(body) ?? '');
      return jsonReply({ plan: 'Pro', price: Number(found?.[1] ?? 0) });
    });
  });
  after(async () => {
    await site.close();
    await model.close();
  });
  beforeEach(() => {
    model.requests.length = 0;
    price = '10';
    updated = 'Monday';
  });

  const SCHEMA = '{type: object, properties: {plan: {type: string}, price: {type: number}}, required: [plan, price]}';
  const setUp = async (formats: string) => {
    const config = writeFiles({ 'webwatch/config.yaml': `llm: {baseUrl: "${model.url}", model: test-model}\n` });
    const env = { WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: config };
    const file = writeFiles({
      'm.yaml': `name: Plans\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${site.origin}/pricing"], scrapeOptions: {formats: ${formats}}}]\n`,
    });
    const applied = await run(['monitor', 'apply', '-f', file], { env });
    assert.equal(applied.code, 0, applied.stderr);
    return env;
  };
  /** What the last check cost, and its id. */
  let credits: number | undefined;
  let checkId = '';
  const check = async (env: Record<string, string>) => {
    const ran = await run(['monitor', 'run', 'Plans', '--json'], { env });
    assert.equal(ran.code, 0, ran.stderr);
    const id = JSON.parse(ran.stdout).id as string;
    checkId = id;
    const detail = JSON.parse((await run(['monitor', 'check', 'Plans', id, '--json'], { env })).stdout);
    credits = detail.actualCredits;
    return detail.pages[0];
  };

  it('the json format: fields decide, a changed price is one leaf, and the JSON is the snapshot', async () => {
    const env = await setUp(`[{type: json, schema: ${SCHEMA}}]`);
    const first = await check(env);
    assert.equal(first.status, 'new');
    assert.deepEqual(first.snapshot, { json: { plan: 'Pro', price: 10 } });
    assert.equal(credits, 5, 'the page and its extraction');

    updated = 'Tuesday';
    const reworded = await check(env);
    assert.equal(reworded.status, 'same', 'the markdown changed but not the extracted fields');
    assert.deepEqual(reworded.snapshot, { json: { plan: 'Pro', price: 10 } });
    assert.equal(reworded.diff, null);

    price = '12';
    const changed = await check(env);
    assert.equal(changed.status, 'changed');
    assert.deepEqual(changed.diff, { json: { price: { previous: 10, current: 12 } } }, 'no markdown diff without git-diff mode');
    assert.deepEqual(changed.snapshot, { json: { plan: 'Pro', price: 12 } });
    const shown = await run(['monitor', 'check', 'Plans', checkId], { env: { ...env, NO_COLOR: '1' }, tty: true });
    assert.match(shown.stdout, /^-price: 10\n\+price: 12$/m, 'the changed fields, as diff lines');
    assert.equal(model.requests.length, 3, 'one extraction per fetched page');

    // The same response again: not converted, not asked of the model, still the snapshot it had.
    const unchanged = await check(env);
    assert.equal(unchanged.status, 'same');
    assert.equal(credits, 1, 'the page only: nothing was extracted');
    assert.deepEqual(unchanged.snapshot, { json: { plan: 'Pro', price: 12 } });
    assert.equal(model.requests.length, 3);
  });

  it('changeTracking in git-diff and json modes: both the field diff and the markdown lines', async () => {
    const env = await setUp(`[markdown, {type: changeTracking, modes: [git-diff, json], schema: ${SCHEMA}}]`);
    assert.equal((await check(env)).status, 'new');
    price = '12';
    updated = 'Tuesday';
    const changed = await check(env);
    assert.equal(changed.status, 'changed');
    assert.deepEqual(changed.diff.json, { price: { previous: 10, current: 12 } });
    assert.match(changed.diff.text, /-Pro plan: \$10 per month\.\n\+Pro plan: \$12 per month\./);
    // The report shows both: the fields, and the markdown side by side with the words marked.
    const report = (await run(['monitor', 'report', 'Plans', 'latest', '-o', '-'], { env })).stdout;
    assert.match(report, /<code>price<\/code><\/td><td class="before"><code>10<\/code>/);
    assert.match(report, /Pro plan: \$<del>10<\/del> per month\./);
    assert.match(report, /Pro plan: \$<ins>12<\/ins> per month\./);
  });

  it('a JSON monitor with no model configured: the check fails the page saying how to configure one', async () => {
    const env = { WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: tempDir() };
    const file = writeFiles({
      'm.yaml': `name: Plans\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${site.origin}/pricing"], scrapeOptions: {formats: [json]}}]\n`,
    });
    assert.equal((await run(['monitor', 'apply', '-f', file], { env })).code, 0);
    const ran = await run(['monitor', 'run', 'Plans', '--json'], { env });
    const id = JSON.parse(ran.stdout).id as string;
    const page = JSON.parse((await run(['monitor', 'check', 'Plans', id, '--json'], { env })).stdout).pages[0];
    assert.equal(page.status, 'error');
    assert.match(page.error, /the json format needs a language model, and none is configured: set llm\.baseUrl and llm\.model/);
    assert.equal(model.requests.length, 0);
  });

  it('history --field: a price over 30 checks, oldest to newest, as JSON, rows and a sparkline; the report shows its fields', async () => {
    const env = await setUp(`[{type: json, schema: ${SCHEMA}}]`);
    const prices = Array.from({ length: 30 }, (_, i) => 10 + ((i * 7) % 11));
    const ids: string[] = [];
    for (const value of prices) {
      price = String(value);
      // Each check at its own time, as a schedule runs them.
      const ran = await run(['monitor', 'run', 'Plans', '--json'], { env, now: () => new Date() });
      ids.push(JSON.parse(ran.stdout).id);
    }
    const json = JSON.parse((await run(['monitor', 'history', 'Plans', '--field', 'price', '--json'], { env })).stdout);
    assert.equal(json.field, 'price');
    assert.deepEqual(
      json.points.map((p: { value: number }) => p.value),
      prices,
    );
    assert.deepEqual(
      json.points.map((p: { checkId: string }) => p.checkId),
      ids,
    );
    assert.ok(json.points.every((p: { url: string }) => p.url === `${site.origin}/pricing`));
    // A shorter window ends at the newest check.
    const last5 = JSON.parse((await run(['monitor', 'history', 'Plans', '--field', 'price', '--limit', '5', '--json'], { env })).stdout);
    assert.deepEqual(
      last5.points.map((p: { value: number }) => p.value),
      prices.slice(-5),
    );
    const tty = await run(['monitor', 'history', 'Plans', '--field', 'price'], { env, tty: true, columns: 120 });
    const ticks = '▁▂▃▄▅▆▇█';
    const expected = prices.map((v) => ticks[Math.round(((v - 10) / 10) * 7)]).join('');
    assert.match(tty.stderr, new RegExp(`price, oldest to newest: ${expected}`));
    // Newest first in the table; piped, tab-separated values whole.
    const piped = await run(['monitor', 'history', 'Plans', '--field', 'price'], { env });
    assert.deepEqual(
      piped.stdout
        .trim()
        .split('\n')
        .map((line) => Number(line.split('\t')[2])),
      [...prices].reverse(),
    );
    // A field the JSON does not have is empty at every check; a path that cannot be read is the user's mistake.
    const missing = JSON.parse((await run(['monitor', 'history', 'Plans', '--field', 'plans[0].price', '--json'], { env })).stdout);
    assert.ok(missing.points.length === 30 && missing.points.every((p: { value: unknown }) => p.value === null));
    const bad = await run(['monitor', 'history', 'Plans', '--field', 'price[x]'], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--field price\[x\]: cannot read the path at "\[x\]"/);
    // The report of the last check: the changed field, before and after.
    const report = (await run(['monitor', 'report', 'Plans', 'latest', '-o', '-'], { env })).stdout;
    assert.match(report, new RegExp(`<code>price</code></td><td class="before"><code>${prices[28]}</code></td><td class="after"><code>${prices[29]}</code>`));
  });

  it('history --field on a monitor that extracts no JSON says so', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    const file = writeFiles({ 'm.yaml': `name: Plain\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${site.origin}/pricing"]}]\n` });
    await run(['monitor', 'apply', '-f', file], { env });
    await run(['monitor', 'run', 'Plain'], { env });
    const result = await run(['monitor', 'history', 'Plain', '--field', 'price', '--json'], { env });
    assert.equal(result.code, 2);
    assert.match(JSON.parse(result.stdout).error, /no page of "Plain" extracts JSON in its last 1 check/);
  });
});
