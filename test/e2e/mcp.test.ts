/**
 * `webwatch mcp` as an assistant meets it: the built command started by the MCP SDK's own client,
 * over stdio and over streamable HTTP, calling every tool against sites on 127.0.0.1, a SearXNG
 * stand-in and a model that takes its time. Progress and cancellation of a crawl, refused
 * arguments, errors in the model's terms, the private-address rule of the HTTP transport, and
 * the hosted service's own MCP server (firecrawl-mcp) against `webwatch serve`.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startFakeLlm, withLatency, type FakeLlm, type FakeLlmRequestBody, type FakeReply } from '../helpers/fake-llm.js';
import { interactToolsMissing } from '../helpers/interact.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { mcpClient, mcpHttpProcess } from '../helpers/mcp-process.js';
import { html, startServer, type TestServer } from '../helpers/server.js';
import { serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = `${ROOT}bin/webwatch.js`;

const TOOLS = [
  'webwatch_agent',
  'webwatch_agent_status',
  'webwatch_agent_trace',
  'webwatch_batch_scrape',
  'webwatch_batch_status',
  'webwatch_crawl',
  'webwatch_crawl_status',
  'webwatch_extract',
  'webwatch_interact',
  'webwatch_interact_stop',
  'webwatch_map',
  'webwatch_monitor_apply',
  'webwatch_monitor_check',
  'webwatch_monitor_history',
  'webwatch_monitor_list',
  'webwatch_monitor_run',
  'webwatch_monitor_validate',
  'webwatch_more',
  'webwatch_scrape',
  'webwatch_search',
];

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webwatch mcp', { concurrency: false }, () => {
  let site: TestServer;
  let searxng: TestServer;
  let model: FakeLlm;
  let price = '$29';
  let updatedAgo = 3;

  before(async () => {
    const long = `<html><head><title>Long</title></head><body><main><h1>Long</h1>${Array.from({ length: 400 }, (_, i) => `<p>Paragraph ${i} of a long page, with enough words to fill a model's context quickly.</p>`).join('')}</main></body></html>`;
    site = await startServer(
      {
        '/': html(
          '<html><head><title>Acme</title></head><body><main><h1>Acme analytics</h1><p>Dashboards for small teams.</p><a href="/pricing">Pricing</a> <a href="/about">About</a></main></body></html>',
        ),
        '/pricing': (_q, r) =>
          void r
            .writeHead(200, { 'content-type': 'text/html' })
            .end(
              `<html><head><title>Pricing</title></head><body><main><h1>Pricing</h1><p>Updated ${updatedAgo} hours ago</p><p>Pro plan: ${price}/month for the whole team.</p></main></body></html>`,
            ),
        '/about': html('<html><head><title>About</title></head><body><main><h1>About</h1><p>Founded in 1999 in Lyon.</p></main></body></html>'),
        '/long': html(long),
      },
      async (request, response) => {
        // /slow/N: a page a second slower than a fast one, linking to the next three.
        const match = /^\/slow\/(\d+)$/.exec(new URL(request.url!, 'http://x').pathname);
        if (!match) return void response.writeHead(404).end('not found');
        await delay(400);
        const n = Number(match[1]);
        response
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><head><title>Slow ${n}</title></head><body><main><h1>Slow page ${n}</h1><p>Text of page ${n}.</p>${[1, 2, 3].map((k) => `<a href="/slow/${n * 3 + k}">next</a>`).join(' ')}</main></body></html>`,
          );
      },
    );
    searxng = await startServer({
      '/search': (request, response) => {
        const q = new URL(request.url!, 'http://x').searchParams.get('q');
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ query: q, results: [{ url: `${site.origin}/pricing`, title: 'Acme pricing', content: `Plans of Acme, for ${q}` }] }));
      },
    });
    // A model as slow as a real one: the agent reads the about page, then finishes; an extract answers in JSON.
    model = await startFakeLlm(
      withLatency(
        (request: FakeLlmRequestBody): FakeReply => {
          if (request.response_format?.type === 'json_object') return { content: JSON.stringify({ data: { plans: [{ name: 'Pro', monthly: 29 }] } }) };
          const turn = request.messages.filter((m) => m.role === 'assistant').length;
          if (turn === 0) return { content: 'Reading the about page.', toolCalls: [{ name: 'scrape', arguments: { url: `${site.origin}/about` } }] };
          return { toolCalls: [{ name: 'finish', arguments: { result: { founded: 1999, city: 'Lyon' } } }] };
        },
        { turnMs: 600, jitterMs: 300, seed: 3 },
      ),
    );
  });
  after(async () => {
    await Promise.all([site.close(), searxng.close(), model.close()]);
  });

  const settings = () =>
    writeFiles({ 'webwatch/config.yaml': `search: {provider: searxng, baseUrl: "${searxng.origin}"}\nllm: {baseUrl: "${model.url}", model: scripted}\n` });

  async function stdioClient(args: string[] = [], env: Record<string, string> = {}): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', ...args],
      env: { PATH: process.env.PATH!, WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: settings(), HOME: tempDir(), ...env },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'webwatch-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }

  describe('over stdio, on the embedded engine', () => {
    let client: Client;
    before(async () => {
      client = await stdioClient([], { WEBWATCH_SECRET: 'from-the-environment' });
    });
    after(async () => {
      await client.close();
    });

    it('lists every tool, each with a description for a model and a closed argument schema', async () => {
      const { tools } = await client.listTools();
      // The stdio server reads the user's own files too; the HTTP one (below) does not.
      assert.deepEqual(tools.map((tool) => tool.name).sort(), [...TOOLS, 'webwatch_parse'].sort());
      for (const tool of tools) {
        assert.ok((tool.description ?? '').length > 60, `${tool.name} says when to use it`);
        assert.equal(tool.inputSchema.type, 'object', tool.name);
      }
      // The scrape options of the interface, from src/spec: formats with their names, a closed object.
      const scrape = tools.find((tool) => tool.name === 'webwatch_scrape')!.inputSchema as {
        properties: Record<string, unknown>;
        additionalProperties?: unknown;
      };
      assert.ok(['url', 'formats', 'onlyMainContent', 'maxAge', 'actions', 'parsers'].every((field) => field in scrape.properties));
      assert.equal(scrape.additionalProperties, false);
      // Portable schemas: no `propertyNames` (what a record of string keys adds, and some assistants refuse).
      const nonPortable = tools.filter((tool) => JSON.stringify(tool.inputSchema).includes('"propertyNames"')).map((tool) => tool.name);
      assert.deepEqual(nonPortable, []);
      // ...and what the server accepts is as strict as ever: a header name HTTP cannot carry is refused.
      const badHeader = await client.callTool({ name: 'webwatch_scrape', arguments: { url: 'https://example.com/', headers: { 'Bad Header': 'x' } } });
      assert.equal(badHeader.isError, true);
      assert.match(textOf(badHeader), /Bad Header/);
    });

    it('reads a local file with webwatch_parse, and refuses a relative path', async () => {
      const dir = writeFiles({ 'notes.html': '<title>Notes</title><main><h1>Notes</h1><p>Bring the keys.</p></main>' });
      const parsed = textOf(await client.callTool({ name: 'webwatch_parse', arguments: { filePath: `${dir}/notes.html` } }));
      assert.match(parsed, /^# Notes\n\nBring the keys\./);
      assert.match(parsed, /"sourceFile": "notes.html"/);
      const relative = await client.callTool({ name: 'webwatch_parse', arguments: { filePath: 'notes.html' } });
      assert.equal(relative.isError, true);
      assert.match(textOf(relative), /must be absolute/);
    });

    it('works in a scraped page with webwatch_interact: code in bubblewrap, its state kept, then stopped', { skip: interactToolsMissing }, async () => {
      const scraped = textOf(await client.callTool({ name: 'webwatch_scrape', arguments: { url: `${site.origin}/pricing`, maxAge: 0 } }));
      const scrapeId = /"scrapeId": "([0-9a-f-]{36})"/.exec(scraped)![1]!;
      const set = textOf(
        await client.callTool({
          name: 'webwatch_interact',
          arguments: { scrapeId, code: "await page.evaluate(() => localStorage.setItem('seen', 'yes')); await page.title()" },
        }),
      );
      assert.equal(JSON.parse(set).result, 'Pricing', set);
      const read = JSON.parse(
        textOf(await client.callTool({ name: 'webwatch_interact', arguments: { scrapeId, code: "await page.evaluate(() => localStorage.getItem('seen'))" } })),
      );
      assert.equal(read.result, 'yes');
      // A model's code reaches no network: the sandbox's, not the user's program.
      const network = JSON.parse(
        textOf(
          await client.callTool({
            name: 'webwatch_interact',
            arguments: { scrapeId, code: `await fetch('${site.origin}/').then(() => 'reached', () => 'refused')` },
          }),
        ),
      );
      assert.equal(network.result, 'refused');
      const stopped = JSON.parse(textOf(await client.callTool({ name: 'webwatch_interact_stop', arguments: { scrapeId } })));
      assert.equal(stopped.status, 'stopped');
    });

    it('scrapes a page to markdown, and maps and searches a site', async () => {
      const scraped = textOf(await client.callTool({ name: 'webwatch_scrape', arguments: { url: `${site.origin}/pricing`, maxAge: 0 } }));
      assert.match(scraped, /^# Pricing\n\nUpdated 3 hours ago\n\nPro plan: \$29\/month for the whole team\./);
      assert.match(scraped, /"title": "Pricing"/);
      const mapped = textOf(await client.callTool({ name: 'webwatch_map', arguments: { url: site.origin } }));
      assert.match(mapped, new RegExp(`${site.origin}/pricing`));
      assert.match(mapped, new RegExp(`${site.origin}/about`));
      const found = textOf(await client.callTool({ name: 'webwatch_search', arguments: { query: 'acme plans' } }));
      assert.match(found, /Acme pricing/);
      assert.match(found, /Plans of Acme, for acme plans/);
    });

    it('answers with the page as it is now on the embedded engine, and says in its first line when it answers from the cache', async () => {
      const pricing = `${site.origin}/pricing`;
      assert.match(textOf(await client.callTool({ name: 'webwatch_scrape', arguments: { url: pricing } })), /^# Pricing\n[\s\S]*\$29\/month/);
      price = '$35';
      try {
        const now = textOf(await client.callTool({ name: 'webwatch_scrape', arguments: { url: pricing } }));
        assert.match(now, /^# Pricing\n[\s\S]*Pro plan: \$35\/month/, 'fetched anew, not the copy of a moment ago');
        const cached = textOf(await client.callTool({ name: 'webwatch_scrape', arguments: { url: pricing, maxAge: 3_600_000 } }));
        assert.match(cached, /^from cache, under a minute old; maxAge: 0 fetches anew\n\n# Pricing\n[\s\S]*\$35\/month/);
      } finally {
        price = '$29';
      }
    });

    it("refuses bad arguments by the schema before anything runs, and says tool errors in the model's terms", async () => {
      const before = site.requests.length;
      const refused = await client.callTool({ name: 'webwatch_scrape', arguments: { url: `${site.origin}/`, formats: ['markdwn'] } });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /Input validation error/);
      const unknown = await client.callTool({ name: 'webwatch_scrape', arguments: { url: `${site.origin}/`, maxAgee: 0 } });
      assert.equal(unknown.isError, true);
      assert.equal(site.requests.length, before, 'nothing was fetched');
      const missing = await client.callTool({ name: 'webwatch_monitor_check', arguments: { monitor: 'No such monitor' } });
      assert.equal(missing.isError, true);
      assert.match(textOf(missing), /^error \(NOT_FOUND\): Not Found\n.*No such monitor/);
      assert.doesNotMatch(textOf(missing), /\n\s+at /, 'no stack');
    });

    it('crawls with progress notifications and pages the result through crawl_status', async () => {
      const progress: { progress: number; total?: number; message?: string }[] = [];
      const result = textOf(
        await client.callTool({ name: 'webwatch_crawl', arguments: { url: `${site.origin}/`, crawlOptions: { limit: 10 } } }, undefined, {
          onprogress: (p) => void progress.push(p),
        }),
      );
      const id = /^crawl ([0-9a-f-]{36}): completed, 3 of 10 pages/.exec(result)?.[1];
      assert.ok(id, result);
      // One notification a page, in order (the SDK's client may drop one read with the result).
      assert.ok(progress.length >= 2, JSON.stringify(progress));
      assert.deepEqual(
        progress.map((p) => p.progress),
        [1, 2, 3].slice(0, progress.length),
      );
      assert.ok(progress.every((p) => p.total === 10 && p.message?.includes(id)));
      assert.match(result, /## 1\. .*\n\n# Acme analytics/);
      const rest = textOf(await client.callTool({ name: 'webwatch_crawl_status', arguments: { id, offset: 2 } }));
      assert.match(rest, /completed, 3 of 10 pages/);
      assert.match(rest, /## 3\. /);
      assert.doesNotMatch(rest, /## 1\. /);
    });

    it('stops a crawl when the call is cancelled: no page is fetched after, and its status says cancelled', async () => {
      const stop = new AbortController();
      let jobId: string | undefined;
      const call = client.callTool({ name: 'webwatch_crawl', arguments: { url: `${site.origin}/slow/0`, crawlOptions: { limit: 200 } } }, undefined, {
        signal: stop.signal,
        onprogress: (p) => {
          jobId ??= /crawl ([0-9a-f-]{36})/.exec(p.message ?? '')?.[1];
          if (p.progress >= 2) stop.abort();
        },
      });
      await assert.rejects(call, /abort/i);
      assert.ok(jobId);
      let status = '';
      for (let i = 0; i < 50 && !/: cancelled,/.test(status); i++) {
        status = textOf(await client.callTool({ name: 'webwatch_crawl_status', arguments: { id: jobId } }));
        await delay(100);
      }
      assert.match(status, /: cancelled, \d+ of 200 pages/);
      // Once cancelled, the crawl asks for no page more.
      const asked = () => site.requests.filter((request) => request.path.startsWith('/slow/')).length;
      const then = asked();
      await delay(1500);
      assert.equal(asked(), then, 'pages went on being asked for after the cancel');
      assert.ok(then < 20, `${then} pages asked for`);
    });

    it('scrapes a batch with progress, and cuts a long result with a note on how to read on', async () => {
      const progress: number[] = [];
      const batch = textOf(
        await client.callTool(
          { name: 'webwatch_batch_scrape', arguments: { urls: [`${site.origin}/`, `${site.origin}/about`, `${site.origin}/missing`] } },
          undefined,
          { onprogress: (p) => void progress.push(p.progress) },
        ),
      );
      assert.match(batch, /^batch [0-9a-f-]{36}: completed, 3 of 3 pages/);
      assert.match(batch, /# About\n\nFounded in 1999 in Lyon\./);
      assert.ok(progress.length >= 2 && progress.every((p) => p >= 1 && p <= 3), JSON.stringify(progress));

      const long = textOf(await client.callTool({ name: 'webwatch_scrape', arguments: { url: `${site.origin}/long` } }));
      const note = /\[cut at character (\d+) of (\d+): call webwatch_more with \{"id": "([0-9a-f-]{36})", "offset": (\d+)\} for the rest\]$/.exec(long);
      assert.ok(note, long.slice(-300));
      assert.equal(note[1], '24000');
      const more = textOf(await client.callTool({ name: 'webwatch_more', arguments: { id: note[3], offset: Number(note[4]) } }));
      assert.match(more, /Paragraph 399 of a long page/);
      assert.match(more, /\[end of result /);
    });

    it("validates, applies, lists and runs monitors, and reads a changed page's diff", async () => {
      const yaml = `name: Acme pricing\nschedule: {text: daily at 9:00}\ngoal: Tell me when the price of a plan changes\ntargets:\n  - type: scrape\n    urls: ["${site.origin}/pricing"]\n`;
      const invalid = textOf(
        await client.callTool({ name: 'webwatch_monitor_validate', arguments: { yaml: yaml.replace('daily at 9:00', 'every 2 minutes') } }),
      );
      assert.match(invalid, /^The definition is invalid/);
      assert.match(invalid, /2:\d+ schedule\.text: /);
      assert.match(
        textOf(await client.callTool({ name: 'webwatch_monitor_validate', arguments: { yaml } })),
        /^The definition is valid\.\nvalid: Acme pricing/,
      );
      // A definition a model writes does not read the server's environment.
      const leaking = textOf(
        await client.callTool({
          name: 'webwatch_monitor_validate',
          arguments: { yaml: `${yaml}webhook: {url: "https://collect.example/\${WEBWATCH_SECRET}"}\n` },
        }),
      );
      assert.match(leaking, /^The definition is invalid/);
      assert.match(leaking, /WEBWATCH_SECRET/);
      assert.doesNotMatch(leaking, /from-the-environment/);
      assert.match(textOf(await client.callTool({ name: 'webwatch_monitor_apply', arguments: { yaml, dryRun: true } })), /create Acme pricing/);
      assert.match(textOf(await client.callTool({ name: 'webwatch_monitor_apply', arguments: { yaml } })), /^Applied: .*"created": 1/s);
      assert.match(textOf(await client.callTool({ name: 'webwatch_monitor_apply', arguments: { yaml } })), /unchanged Acme pricing/);
      assert.match(textOf(await client.callTool({ name: 'webwatch_monitor_list', arguments: {} })), /"name": "Acme pricing"/);
      // A header's value is a secret: the model reads the monitor with it masked.
      const withCookie = `name: Members page\nschedule: {cron: "0 9 * * *"}\ntargets:\n  - type: scrape\n    urls: ["${site.origin}/about"]\n    scrapeOptions: {headers: {Cookie: "session=s3cret-value"}}\n`;
      assert.match(textOf(await client.callTool({ name: 'webwatch_monitor_apply', arguments: { yaml: withCookie } })), /"created": 1/);
      const listed = textOf(await client.callTool({ name: 'webwatch_monitor_list', arguments: {} }));
      assert.match(listed, /"Cookie": "<redacted>"/);
      assert.doesNotMatch(listed, /s3cret-value/);

      const progress: string[] = [];
      const first = textOf(
        await client.callTool({ name: 'webwatch_monitor_run', arguments: { monitor: 'Acme pricing' } }, undefined, {
          onprogress: (p) => void progress.push(p.message ?? ''),
        }),
      );
      assert.match(first, /completed: 0 changed, 1 new/);
      assert.match(progress[0] ?? '', /^checking Acme pricing/);
      price = '$35';
      try {
        assert.match(textOf(await client.callTool({ name: 'webwatch_monitor_run', arguments: { monitor: 'acme pricing' } })), /completed: 1 changed, 0 new/);
      } finally {
        price = '$29';
      }
      const check = textOf(await client.callTool({ name: 'webwatch_monitor_check', arguments: { monitor: 'Acme pricing', status: 'changed' } }));
      assert.match(check, /## changed .*\/pricing \(HTTP 200\)/);
      assert.match(check, /-Pro plan: \$29\/month for the whole team\.\n\+Pro plan: \$35\/month for the whole team\./);
      assert.match(check, /judgment: /);
      assert.doesNotMatch(check, /changed fields|"chunks"/, 'the markdown diff is said once, as a diff');
      assert.match(check, /completed: 1 changed, 0 new, 0 removed, 0 same, 0 errors \(1 page\)\n/);
      const history = textOf(await client.callTool({ name: 'webwatch_monitor_history', arguments: { monitor: 'Acme pricing' } })).split('\n');
      assert.equal(history.length, 2);
      assert.match(history[0]!, /check [0-9a-f-]{36} completed: 1 changed, 0 new/);
      assert.match(history[1]!, /completed: 0 changed, 1 new/);
      const noJson = await client.callTool({ name: 'webwatch_monitor_history', arguments: { monitor: 'Acme pricing', field: 'price' } });
      assert.equal(noJson.isError, true);
      assert.match(textOf(noJson), /no page of "Acme pricing" extracts JSON/);
      // Only the time since the update moved: same, and the assistant is told why.
      price = '$35';
      updatedAgo = 4;
      try {
        assert.match(
          textOf(await client.callTool({ name: 'webwatch_monitor_run', arguments: { monitor: 'Acme pricing' } })),
          /completed: 0 changed, 0 new, 0 removed, 1 same/,
        );
      } finally {
        price = '$29';
        updatedAgo = 3;
      }
      const same = textOf(await client.callTool({ name: 'webwatch_monitor_check', arguments: { monitor: 'Acme pricing' } }));
      assert.match(
        same,
        /## same .*\/pricing \(HTTP 200\)\nwhy same: only volatile parts changed: a relative time \("Updated 3 hours ago" → "Updated 4 hours ago"\)/,
      );
    });

    it('runs an agent to its end with its steps as progress, then reads its status and trace; extracts with a model', async () => {
      const steps: string[] = [];
      const ran = textOf(
        await client.callTool(
          { name: 'webwatch_agent', arguments: { prompt: 'When and where was Acme founded?', urls: [`${site.origin}/about`], wait: true } },
          undefined,
          { onprogress: (p) => void steps.push(p.message ?? ''), timeout: 60_000 },
        ),
      );
      const id = /^agent ([0-9a-f-]{36}): completed/.exec(ran)?.[1];
      assert.ok(id, ran);
      assert.match(ran, /"founded": 1999/);
      assert.ok(steps.includes('run.finished'), steps.join(' '));
      assert.match(textOf(await client.callTool({ name: 'webwatch_agent_status', arguments: { id } })), /"status": "completed"/);
      const trace = textOf(await client.callTool({ name: 'webwatch_agent_trace', arguments: { id, since: 1 } }));
      assert.match(trace, /^\d+ events after 1/);
      assert.match(trace, /"type": "run\.finished"/);
      assert.doesNotMatch(trace, /"producerSequence": 1,/);

      const extracted = textOf(
        await client.callTool(
          { name: 'webwatch_extract', arguments: { urls: [`${site.origin}/pricing`], prompt: 'The plans and their monthly prices' } },
          undefined,
          { timeout: 60_000 },
        ),
      );
      assert.match(extracted, /"status": "completed"/);
      assert.match(extracted, /"monthly": 29/);
    });
  });

  describe('on a remote API (webwatch serve), over stdio', () => {
    let served: ServingWebwatch;
    let client: Client;
    before(async () => {
      served = await serveWebwatch({ search: { provider: 'searxng', baseUrl: searxng.origin } });
      const key = (await served.keys.create('acme', new Date())).key;
      client = await stdioClient([], { WEBWATCH_API_URL: served.url, WEBWATCH_API_KEY: key });
    });
    after(async () => {
      await client.close();
      await served.stop();
    });

    it('scrapes, crawls and applies monitors through the API, whose team keeps them', async () => {
      assert.match(
        textOf(await client.callTool({ name: 'webwatch_scrape', arguments: { url: `${site.origin}/about` } })),
        /^# About\n\nFounded in 1999 in Lyon\./,
      );
      const again = textOf(await client.callTool({ name: 'webwatch_scrape', arguments: { url: `${site.origin}/about` } }));
      assert.match(
        again,
        /^from cache, under a minute old; maxAge: 0 fetches anew\n\n# About\n/,
        "the API's own default age holds, and the answer says so first",
      );
      assert.match(
        textOf(await client.callTool({ name: 'webwatch_crawl', arguments: { url: `${site.origin}/`, crawlOptions: { limit: 5 } } })),
        /: completed, 3 of 5 pages/,
      );
      const yaml = `name: Remote pricing\nschedule: {cron: "0 9 * * *"}\ntargets: [{type: scrape, urls: ["${site.origin}/pricing"]}]\n`;
      assert.match(textOf(await client.callTool({ name: 'webwatch_monitor_apply', arguments: { yaml } })), /create Remote pricing \([0-9a-f-]{36}\)/);
      const stored = await fetch(`${served.url}/monitor`, { headers: { authorization: `Bearer ${(await served.keys.create('acme', new Date())).key}` } });
      assert.match(JSON.stringify(await stored.json()), /"name":"Remote pricing"/);
    });
  });

  describe('over streamable HTTP', () => {
    let server: ChildProcess;
    let url: string;
    const clients: Client[] = [];

    const serveMcp = (args: string[]) =>
      mcpHttpProcess(args, { PATH: process.env.PATH!, WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: settings(), HOME: tempDir() });
    const connect = (to: string) => mcpClient(to, clients);

    before(async () => {
      ({ child: server, url } = await serveMcp([]));
    });
    after(async () => {
      await Promise.all(clients.map((client) => client.close()));
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    });

    it('serves several clients at once, each in a session of its own', async () => {
      const [one, two] = await Promise.all([connect(url), connect(url)]);
      const [a, b] = await Promise.all([one.listTools(), two.listTools()]);
      assert.deepEqual(a.tools.map((tool) => tool.name).sort(), TOOLS);
      assert.deepEqual(b.tools.length, TOOLS.length);
      const valid = textOf(
        await two.callTool({
          name: 'webwatch_monitor_validate',
          arguments: { yaml: 'name: x\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["https://example.com/"]}]\n' },
        }),
      );
      assert.match(valid, /^The definition is valid/);
    });

    it('refuses private and loopback addresses by default, as serve does; allows them when told', async () => {
      const client = await connect(url);
      const before = site.requests.length;
      const refused = await client.callTool({ name: 'webwatch_scrape', arguments: { url: `${site.origin}/pricing` } });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /private|loopback/i);
      assert.equal(site.requests.length, before, 'the site was never asked');

      const allowed = await serveMcp(['--allow-private-targets']);
      try {
        const other = await connect(allowed.url);
        assert.match(textOf(await other.callTool({ name: 'webwatch_scrape', arguments: { url: `${site.origin}/pricing` } })), /Pro plan: \$29/);
      } finally {
        allowed.child.kill('SIGTERM');
        await new Promise((resolve) => allowed.child.once('exit', resolve));
      }
    });

    it('answers nothing but MCP at /mcp, and only under its own host name', async () => {
      const wrongPath = await fetch(url.replace('/mcp', '/v2/scrape'), { method: 'POST', body: '{}' });
      assert.equal(wrongPath.status, 404);
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      };
      const { request } = await import('node:http');
      const status = await new Promise<number>((resolve, reject) => {
        const sent = request(
          url,
          { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
          (response) => {
            response.resume();
            resolve(response.statusCode!);
          },
        );
        sent.on('error', reject);
        sent.end(JSON.stringify(initialize));
      });
      assert.equal(status, 403, 'a page that rebinds a name to 127.0.0.1 gets nothing');
      const noSession = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      assert.equal(noSession.status, 400);
    });
  });

  describe("the hosted service's MCP server (firecrawl-mcp) against webwatch serve", () => {
    let served: ServingWebwatch;
    let client: Client;
    before(async () => {
      served = await serveWebwatch({ search: { provider: 'searxng', baseUrl: searxng.origin } });
      const key = (await served.keys.create('acme', new Date())).key;
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [`${ROOT}node_modules/firecrawl-mcp/dist/index.js`],
        env: { PATH: process.env.PATH!, HOME: tempDir(), FIRECRAWL_API_URL: served.origin, FIRECRAWL_API_KEY: key },
        stderr: 'pipe',
      });
      client = new Client({ name: 'webwatch-test', version: '1.0.0' });
      await client.connect(transport);
    });
    after(async () => {
      await client.close();
      await served.stop();
    });

    it('lists and calls its scrape, map and search tools successfully', async () => {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(
        ['firecrawl_scrape', 'firecrawl_map', 'firecrawl_search'].every((name) => names.includes(name)),
        names.join(' '),
      );
      const scraped = await client.callTool({ name: 'firecrawl_scrape', arguments: { url: `${site.origin}/pricing`, formats: ['markdown'] } });
      assert.ok(!scraped.isError, textOf(scraped));
      assert.match(textOf(scraped), /Pro plan: \$29\/month/);
      const mapped = await client.callTool({ name: 'firecrawl_map', arguments: { url: site.origin } });
      assert.ok(!mapped.isError, textOf(mapped));
      assert.match(textOf(mapped), /\/about/);
      const found = await client.callTool({ name: 'firecrawl_search', arguments: { query: 'acme plans', limit: 3 } });
      assert.ok(!found.isError, textOf(found));
      assert.match(textOf(found), /Acme pricing/);
    });
  });
});

describe('docs/mcp.md', () => {
  it('names every tool the server lists, and no other', async () => {
    const { readFileSync } = await import('node:fs');
    const page = readFileSync(`${ROOT}docs/mcp.md`, 'utf8');
    const documented = [...new Set([...page.matchAll(/^\| `(webwatch_[a-z_]+)` \|/gm)].map((match) => match[1]!))].sort();
    // Every tool of the stdio server, which has webwatch_parse besides the HTTP server's.
    assert.deepEqual(documented, [...TOOLS, 'webwatch_parse'].sort());
  });
});
