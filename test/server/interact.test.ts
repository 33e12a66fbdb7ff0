/**
 * Interact on `webwatch serve`, through the hosted clients unmodified (the JS SDK 4.42's
 * interact() and stopInteraction(), the CLI 1.23's `interact`): code in bubblewrap with the page
 * as its only reach, prompts on a scripted model that takes its time, state carried between
 * calls, sessions per team and bounded, the signed live view, and every refusal with its code.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { closeBrowserIfOpen } from '../../src/engine/browser/lifetime.js';
import { pythonAvailable } from '../../src/engine/interact/run-code.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { interactToolsMissing } from '../helpers/interact.js';
import { tempDir } from '../helpers/files.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const FIRECRAWL_CLI = createRequire(import.meta.url).resolve('firecrawl-cli/dist/index.js');
const exec = promisify(execFile);

const PLANS = `<html><head><title>Plans</title></head><body><main><h1>Plans</h1>
<button id="annual" onclick="document.getElementById('price').textContent='$100 a year'">Annual</button>
<p id="price">$10 a month</p><a href="/next">Next</a></main></body></html>`;

describe('interact on webwatch serve', { skip: interactToolsMissing }, () => {
  let site: TestServer;
  let model: FakeLlm;
  let served: ServingWebwatch;
  let home: string;
  let acme: string;
  let rival: string;
  before(async () => {
    site = await startServer({
      '/plans': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end(PLANS),
      '/next': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end('<title>Next</title><p>next page</p>'),
      '/spy': (_q, r) => void r.writeHead(200).end('seen'),
      '/account': (_q, r) =>
        void r
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<title>Account</title><main><p id="who">nobody</p><script>document.getElementById("who").textContent = "cookie: " + (document.cookie || "none")</script></main>',
          ),
    });
    // The model clicks the annual tab, reads the page, then answers: after a while each time, as a real one does.
    model = await startFakeLlm((body, index) => {
      const delayMs = 40 + ((index * 53) % 120);
      const tools = body.messages.filter((message) => message.role === 'tool').length;
      if (tools === 0) return { toolCalls: [{ name: 'click', arguments: { selector: '#annual' } }], delayMs };
      if (tools === 1) return { toolCalls: [{ name: 'read_page', arguments: {} }], delayMs };
      const page = body.messages.at(-1)?.content ?? '';
      return { content: `The Pro plan costs ${/\$100 a year/.test(page) ? '$100 a year' : 'something else'}.`, delayMs };
    });
    home = tempDir();
    served = await serveWebwatch({ home, interact: { code: true, perTeam: 2, total: 3 }, llm: { baseUrl: model.url, model: 'scripted', timeoutMs: 10_000 } });
    acme = (await served.keys.create('acme', new Date())).key;
    rival = (await served.keys.create('rival', new Date())).key;
  });
  after(async () => {
    await served.stop();
    await closeBrowserIfOpen();
    await model.close();
    await site.close();
  });
  const scrapeIdOf = async (client: Firecrawl, path = '/plans') =>
    (await client.scrape(`${site.origin}${path}`, { formats: ['markdown'] })).metadata!.scrapeId!;

  it("the SDK's interact() runs code against the page, keeps its state between calls, and stopInteraction() ends it", async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const id = await scrapeIdOf(client);
    const first = await client.interact(id, { code: 'await page.title()' });
    assert.deepEqual(
      { result: first.result, exitCode: first.exitCode, killed: first.killed, truncated: first.truncated, stderr: first.stderr },
      { result: 'Plans', exitCode: 0, killed: false, truncated: false, stderr: '' },
    );
    assert.match(first.liveViewUrl ?? '', /\/v2\/media\/interact\/.+\/live\?team=acme&expires=\d+&signature=[0-9a-f]{64}$/);
    const clicked = await client.interact(id, {
      code: "await page.locator('#annual').click(); await page.evaluate(() => localStorage.setItem('seen', 'yes')); console.log('clicked'); return await page.locator('#price').textContent()",
    });
    assert.deepEqual([clicked.result, clicked.stdout], ['$100 a year', 'clicked\n']);
    // The same page, as the last call left it.
    const again = await client.interact(id, { code: "[await page.locator('#price').textContent(), await page.evaluate(() => localStorage.getItem('seen'))]" });
    assert.deepEqual(JSON.parse(again.result!), ['$100 a year', 'yes']);
    const stopped = await client.stopInteraction(id);
    assert.equal(stopped.success, true);
    assert.ok(typeof stopped.sessionDurationMs === 'number' && stopped.sessionDurationMs > 0);
    assert.equal(stopped.creditsBilled, 2, "a started minute at the hosted API's 2 credits");
    // Ended: stopping again is 404, and a new call opens the page afresh.
    await assert.rejects(client.stopInteraction(id), /no interact session is open|Not Found/);
    const fresh = await client.interact(id, { code: "await page.locator('#price').textContent()" });
    assert.equal(fresh.result, '$10 a month');
    await client.stopInteraction(id);
  });

  it("with the scrape's profile, what a session did stays for the next scrape of that profile", async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const profiled = { formats: ['markdown' as const], profile: { name: 'shop' }, maxAge: 0 };
    const first = await client.scrape(`${site.origin}/account`, profiled);
    assert.match(first.markdown ?? '', /cookie: none/);
    await client.interact(first.metadata!.scrapeId!, { code: "await page.evaluate(() => { document.cookie = 'signedIn=yes; path=/; max-age=3600'; })" });
    await client.stopInteraction(first.metadata!.scrapeId!);
    const again = await client.scrape(`${site.origin}/account`, profiled);
    assert.match(again.markdown ?? '', /cookie: signedIn=yes/);
    const stranger = await client.scrape(`${site.origin}/account`, { formats: ['markdown'], maxAge: 0, waitFor: 100 });
    assert.match(stranger.markdown ?? '', /cookie: none/, 'without the profile, nothing of it');
  });

  it('code reaches nothing but the page: no network, no file of the server, no browser context, no file: page, no file written; a runaway is stopped and a flood cut', async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const id = await scrapeIdOf(client);
    const run = (code: string, timeout?: number) => client.interact(id, { code, ...(timeout && { timeout }) });
    const spied = () => site.requests.filter((request) => request.path === '/spy').length;
    const network = await run(`await fetch('${site.origin}/spy').then((r) => r.status, (e) => 'refused: ' + e.message)`);
    assert.match(network.result ?? '', /^refused:/);
    assert.equal(spied(), 0, 'the program reached no server');
    const database = await run(`(await import('node:fs')).readFileSync(${JSON.stringify(join(home, 'webwatch.db'))}, 'utf8').length`);
    assert.match(database.stderr ?? '', /ENOENT/);
    assert.equal(database.exitCode, 1);
    const environment = await run('Object.keys(process.env).sort().join(",")');
    assert.equal(environment.result, 'LANG,PATH,PWD', "nothing of the server's environment");
    for (const [code, refusal] of [
      ['await page.context()', /page\.context is not available to interact code/],
      ["await page.goto('file:///etc/passwd')", /goto opens http\(s\) pages only, not file: URLs/],
      ["await page.screenshot({ path: '/tmp/written.png' })", /a path option writes a file of the server/],
    ] as const) {
      const refused = await run(code);
      assert.match(refused.stderr ?? '', refusal, code);
      assert.equal(refused.exitCode, 1);
    }
    const runaway = await run("console.log('started'); for (;;) {}", 2);
    assert.deepEqual([runaway.killed, runaway.exitCode, runaway.stdout], [true, 137, 'started\n']);
    const flood = await run("for (let i = 0; i < 20000; i++) console.log('line ' + i + ' of a flood')");
    assert.equal(flood.truncated, true);
    assert.ok(Buffer.byteLength(flood.stdout ?? '') <= 64 * 1024);
    // The session is still there, and the page as it was; the last expression is the result.
    assert.equal((await run('const title = await page.title();\nconsole.log(title); title.toUpperCase()')).result, 'PLANS');
    assert.match((await run('await page.title(')).stderr ?? '', /^SyntaxError: /);
    await client.stopInteraction(id);
  });

  it("Python code, with the names of Playwright's Python API, in the same sandbox", { skip: pythonAvailable() ? undefined : 'no Debian python3' }, async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const id = await scrapeIdOf(client);
    const python = (code: string) => client.interact(id, { code, language: 'python' });
    const printed = await python('print(await page.title())');
    assert.deepEqual([printed.stdout, printed.exitCode], ['Plans\n', 0]);
    const clicked = await python('await page.locator("#annual").click(timeout=2000)\nawait page.locator("#price").text_content()');
    assert.equal(clicked.result, '$100 a year');
    assert.equal((await python('[page.url, await page.title()]')).result, JSON.stringify([`${site.origin}/plans`, 'Plans'], null, 2));
    const network = await python(`import urllib.request\nurllib.request.urlopen("${site.origin}/spy", timeout=2)`);
    assert.equal(network.exitCode, 1);
    assert.match(network.stderr ?? '', /URLError|OSError|unreachable|Name or service/i);
    const failed = await python('raise ValueError("no such plan")');
    assert.deepEqual([failed.exitCode, failed.stderr], [1, 'ValueError: no such plan\n']);
    await client.stopInteraction(id);
  });

  it('a prompt runs on the model with the browser as its tools: it clicks, reads, answers', async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const id = await scrapeIdOf(client);
    const before = model.requests.length;
    const answer = await client.interact(id, { prompt: 'What does the Pro plan cost a year?' });
    assert.equal(answer.output, 'The Pro plan costs $100 a year.');
    assert.match(answer.stdout ?? '', /^click #annual$/m);
    assert.equal(model.requests.length - before, 3);
    // The page reached the model fenced as data.
    const first = JSON.stringify(model.requests[before]!.body.messages);
    assert.match(first, /UNTRUSTED PAGE DATA [0-9a-f]{12}/);
    await client.stopInteraction(id);
  });

  it("sessions are the team's and bounded: another team's key cannot reach them, a team past its sessions gets 429", async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const ids = [await scrapeIdOf(client), await scrapeIdOf(client), await scrapeIdOf(client)];
    const stranger = await call(served, rival, 'POST', `/scrape/${ids[0]}/interact`, { code: 'await page.title()' });
    assert.equal(stranger.status, 404);
    assert.equal(stranger.body.code, 'SCRAPE_NOT_FOUND');
    await client.interact(ids[0]!, { code: '1' });
    await client.interact(ids[1]!, { code: '1' });
    const third = await call(served, acme, 'POST', `/scrape/${ids[2]}/interact`, { code: '1' });
    assert.equal(third.status, 429);
    assert.equal(third.body.code, 'INTERACT_SESSION_LIMIT');
    assert.equal((await call(served, rival, 'DELETE', `/scrape/${ids[0]}/interact`)).status, 404, "a stranger cannot stop the team's session");
    await client.stopInteraction(ids[0]!);
    await client.stopInteraction(ids[1]!);
  });

  it('the live view is a signed link to frames of the page, its interactive one sends clicks; a changed signature is 403, an ended session 410', async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const id = await scrapeIdOf(client);
    const { liveViewUrl, interactiveLiveViewUrl } = await client.interact(id, { code: 'await page.title()' });
    const page = await fetch(liveViewUrl!);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const html = await page.text();
    const frame = /const frame = "([^"]+)"/.exec(html)![1]!;
    const image = await fetch(new URL(frame, served.origin));
    assert.equal(image.headers.get('content-type'), 'image/jpeg');
    assert.deepEqual([...new Uint8Array(await image.arrayBuffer()).subarray(0, 2)], [0xff, 0xd8]);
    assert.doesNotMatch(html, /input/, 'the plain link sends nothing to the page');
    // The interactive link: a click on the Annual button changes the page.
    const controlHtml = await (await fetch(interactiveLiveViewUrl!)).text();
    const input = /const input = "([^"]+)"/.exec(controlHtml)![1]!;
    const box = JSON.parse(
      (
        await client.interact(id, {
          code: "await page.evaluate(() => { const b = document.querySelector('#annual').getBoundingClientRect(); return { x: b.x + b.width / 2, y: b.y + b.height / 2 }; })",
        })
      ).result!,
    );
    const clicked = await fetch(new URL(input, served.origin), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'click', ...box }),
    });
    assert.equal(clicked.status, 200);
    assert.equal((await client.interact(id, { code: "await page.locator('#price').textContent()" })).result, '$100 a year');
    // The view link cannot send input, and a changed signature opens nothing.
    const viewInput = new URL(frame.replace('/frame?', '/input?'), served.origin);
    assert.equal((await fetch(viewInput, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":"key","key":"a"}' })).status, 403);
    assert.equal((await fetch(liveViewUrl!.replace(/signature=[0-9a-f]/, 'signature=0'))).status, 403);
    await client.stopInteraction(id);
    assert.equal((await fetch(liveViewUrl!)).status, 410);
  });

  it('refusals, each with its code: no code or prompt, both, bash, a bad timeout, an unknown scrape', async () => {
    const client = new Firecrawl({ apiKey: acme, apiUrl: served.origin });
    const id = await scrapeIdOf(client);
    const post = (body: unknown, scrapeId = id) => call(served, acme, 'POST', `/scrape/${scrapeId}/interact`, body);
    assert.equal((await post({})).status, 400);
    assert.equal((await post({ code: '1', prompt: 'x' })).status, 400);
    assert.equal((await post({ code: '1', timeout: 301 })).status, 400);
    assert.equal((await post({ code: '1', extra: true })).status, 400);
    const bash = await post({ code: 'snapshot', language: 'bash' });
    assert.deepEqual([bash.status, bash.body.code], [501, 'INTERACT_LANGUAGE_NOT_AVAILABLE']);
    const unknown = await post({ code: '1' }, '00000000-0000-4000-8000-000000000000');
    assert.deepEqual([unknown.status, unknown.body.code], [404, 'SCRAPE_NOT_FOUND']);
  });

  it("the hosted CLI's interact: the last scrape, code, a prompt, then stop", async () => {
    const cliHome = tempDir();
    const firecrawl = async (...args: string[]) =>
      (
        await exec(process.execPath, [FIRECRAWL_CLI, ...args], {
          env: { PATH: process.env.PATH, HOME: cliHome, XDG_CONFIG_HOME: cliHome, FIRECRAWL_API_URL: served.origin, FIRECRAWL_API_KEY: acme },
          cwd: cliHome,
        })
      ).stdout;
    assert.match(await firecrawl('scrape', `${site.origin}/plans`), /Plans/);
    assert.equal((await firecrawl('interact', '-c', "await page.locator('h1').textContent()")).trim(), 'Plans');
    assert.equal((await firecrawl('interact', 'What does the Pro plan cost a year?')).trim(), 'The Pro plan costs $100 a year.');
    assert.match(await firecrawl('interact', 'stop'), /Session stopped[\s\S]*Credits billed: 2/);
  });
});

describe('interact on webwatch serve without --interact-code, and without a model', { skip: interactToolsMissing }, () => {
  let site: TestServer;
  let served: ServingWebwatch;
  let key: string;
  before(async () => {
    site = await startServer({ '/plans': (_q, r) => void r.writeHead(200, { 'content-type': 'text/html' }).end(PLANS) });
    served = await serveWebwatch();
    key = (await served.keys.create('acme', new Date())).key;
  });
  after(async () => {
    await served.stop();
    await site.close();
  });

  it('code is refused until the operator turns it on; a prompt is refused as an agent job is, without a model', async () => {
    const client = new Firecrawl({ apiKey: key, apiUrl: served.origin });
    const id = (await client.scrape(`${site.origin}/plans`, { formats: ['markdown'] })).metadata!.scrapeId!;
    const code = await call(served, key, 'POST', `/scrape/${id}/interact`, { code: 'await page.title()' });
    assert.deepEqual([code.status, code.body.code], [403, 'INTERACT_CODE_DISABLED']);
    assert.match(code.body.error, /serve --interact-code/);
    const prompt = await call(served, key, 'POST', `/scrape/${id}/interact`, { prompt: 'What is the price?' });
    assert.deepEqual([prompt.status, prompt.body.code], [500, 'AGENT_MODEL_NOT_CONFIGURED']);
  });

  it("a team that has used its month's credits opens no session: 402", async () => {
    const capped = await serveWebwatch({ interact: { code: true }, monthlyCredits: 1 });
    try {
      const cappedKey = (await capped.keys.create('acme', new Date())).key;
      const id = (await new Firecrawl({ apiKey: cappedKey, apiUrl: capped.origin }).scrape(`${site.origin}/plans`, { formats: ['markdown'] })).metadata!
        .scrapeId!;
      const refused = await call(capped, cappedKey, 'POST', `/scrape/${id}/interact`, { code: 'await page.title()' });
      assert.equal(refused.status, 402);
      assert.match(JSON.stringify(refused.body), /used its 1 credits of this month/);
    } finally {
      await capped.stop();
    }
  });
});

describe('interact sessions when serve drains', { skip: interactToolsMissing }, () => {
  it("end with the server: the profile's state is written back, and a server on the same home has it", async () => {
    const site = await startServer({
      '/account': (_q, r) =>
        void r
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<title>Account</title><main><p id="who">nobody</p><script>document.getElementById("who").textContent = "cookie: " + (document.cookie || "none")</script></main>',
          ),
    });
    const home = tempDir();
    try {
      const first = await serveWebwatch({ home, interact: { code: true } });
      const key = (await first.keys.create('acme', new Date())).key;
      const client = new Firecrawl({ apiKey: key, apiUrl: first.origin });
      const profiled = { formats: ['markdown' as const], profile: { name: 'drained' }, maxAge: 0 };
      const scrapeId = (await client.scrape(`${site.origin}/account`, profiled)).metadata!.scrapeId!;
      await client.interact(scrapeId, { code: "await page.evaluate(() => { document.cookie = 'kept=yes; path=/; max-age=3600'; })" });
      // No stop: the drain ends the session.
      await first.stop();
      const second = await serveWebwatch({ home });
      try {
        const again = await new Firecrawl({ apiKey: key, apiUrl: second.origin }).scrape(`${site.origin}/account`, profiled);
        assert.match(again.markdown ?? '', /cookie: kept=yes/);
      } finally {
        await second.stop();
      }
    } finally {
      await closeBrowserIfOpen();
      await site.close();
    }
  });
});
