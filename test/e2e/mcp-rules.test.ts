/**
 * Monitors written through `webwatch mcp --http` keep the server's private-address rule: the
 * definition is judged when it is saved, and the rule is stored with it, so that the command
 * line's `monitor run` (and `run --due`) on the same engine home later runs it under that rule,
 * though the command line itself may reach private addresses. Real parts: the built command
 * over the MCP SDK's own client, a site and a webhook receiver on 127.0.0.1 that count hits.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import dnsPromises from 'node:dns/promises';
import { syncBuiltinESMExports } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { tempDir, writeFiles } from '../helpers/files.js';
import { mcpClient, mcpHttpProcess, stopMcpProcess } from '../helpers/mcp-process.js';
import { run } from '../helpers/io.js';
import { html, startServer, type TestServer } from '../helpers/server.js';

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

/**
 * Names under `rebind.test` answer 127.0.0.1 in this process until the returned function is
 * called, for the callback and the promise lookups alike (the private-address rule asks the
 * latter): a name that did not resolve when the monitor was saved now leads to loopback, as a
 * DNS record changed after the save would.
 */
function rebindToLoopback(): () => void {
  const original = { lookup: dns.lookup, promises: dnsPromises.lookup };
  const rebound = (hostname: string) => /(^|\.)rebind\.test$/i.test(hostname);
  type Callback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
  const lookup = (hostname: string, options: LookupOptions | number | Callback, callback?: Callback) => {
    const done = (typeof options === 'function' ? options : callback)!;
    const settings: LookupOptions = typeof options === 'object' ? options : typeof options === 'number' ? { family: options } : {};
    if (!rebound(hostname)) return (original.lookup as (...args: unknown[]) => void)(hostname, settings, done);
    process.nextTick(() => (settings.all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4)));
  };
  const promised = async (hostname: string, options?: LookupOptions) => {
    if (!rebound(hostname)) return (original.promises as (...args: unknown[]) => Promise<unknown>)(hostname, options);
    return options?.all ? [{ address: '127.0.0.1', family: 4 }] : { address: '127.0.0.1', family: 4 };
  };
  (dns as { lookup: unknown }).lookup = lookup;
  (dnsPromises as { lookup: unknown }).lookup = promised;
  syncBuiltinESMExports();
  return () => {
    dns.lookup = original.lookup;
    dnsPromises.lookup = original.promises;
    syncBuiltinESMExports();
  };
}

describe('monitors written through MCP over HTTP', { concurrency: false }, () => {
  let site: TestServer;
  let hooks: TestServer;
  let home: string;
  let mcp: ChildProcess;
  let url: string;
  const clients: Client[] = [];
  // One delivery attempt per run, so that a refused webhook does not keep the command waiting.
  const config = () => writeFiles({ 'webwatch/config.yaml': 'deliveryWaitSeconds: 0\n' });

  before(async () => {
    site = await startServer({ '/page': html('<main><h1>Internal</h1><p>Only for this network.</p></main>') });
    hooks = await startServer({ '/hook': (_q, r) => void r.writeHead(200).end() });
    home = tempDir();
    ({ child: mcp, url } = await mcpHttpProcess([], { PATH: process.env.PATH!, WEBWATCH_HOME: home, XDG_CONFIG_HOME: config(), HOME: tempDir() }));
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await stopMcpProcess(mcp);
    await Promise.all([site.close(), hooks.close()]);
  });

  const connect = () => mcpClient(url, clients);
  const definition = (name: string, pages: string, webhook: string) =>
    `name: ${name}\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["${pages}"]}]\nwebhook: {url: "${webhook}"}\n`;
  const listed = async () =>
    (JSON.parse((await run(['monitor', 'list', '--json'], { env: { WEBWATCH_HOME: home } })).stdout) as { name: string }[]).map((monitor) => monitor.name);

  it('refuses at apply a definition that targets or notifies a private address, as serve does, and stores nothing', async () => {
    const client = await connect();
    const both = await client.callTool({
      name: 'webwatch_monitor_apply',
      arguments: { yaml: definition('Internal', `${site.origin}/page`, `${hooks.origin}/hook`) },
    });
    assert.equal(both.isError, true, textOf(both));
    assert.match(textOf(both), /Forbidden/);
    assert.match(textOf(both), /private, loopback and link-local addresses are refused/);
    assert.match(textOf(both), new RegExp(`${site.origin}/page`));
    // A public page does not carry a webhook to this network.
    const hookOnly = await client.callTool({
      name: 'webwatch_monitor_apply',
      arguments: { yaml: definition('Hook only', 'https://example.com/', `${hooks.origin}/hook`) },
    });
    assert.equal(hookOnly.isError, true, textOf(hookOnly));
    assert.match(textOf(hookOnly), new RegExp(`${hooks.origin}/hook`));
    assert.deepEqual(await listed(), []);
    assert.equal(site.requests.length + hooks.requests.length, 0);
  });

  it('runs a monitor it stored under its rule when the command line runs it: nothing private fetched, no webhook posted', async () => {
    const client = await connect();
    // Names that lead nowhere when the monitor is saved, and to this machine when it runs.
    const pages = `http://site.rebind.test:${new URL(site.origin).port}/page`;
    const webhook = `http://hook.rebind.test:${new URL(hooks.origin).port}/hook`;
    const applied = await client.callTool({ name: 'webwatch_monitor_apply', arguments: { yaml: definition('Rebound', pages, webhook) } });
    assert.equal(applied.isError, undefined, textOf(applied));
    assert.match(textOf(applied), /"created": 1/);

    const restore = rebindToLoopback();
    try {
      const env = { WEBWATCH_HOME: home, XDG_CONFIG_HOME: config() };
      const ran = await run(['monitor', 'run', 'Rebound', '--json'], { env, now: () => new Date() });
      const check = JSON.parse(ran.stdout) as { summary: { error: number; totalPages: number } };
      assert.deepEqual([check.summary.error, check.summary.totalPages], [1, 1], ran.stdout + ran.stderr);
      const pagesOf = JSON.parse((await run(['monitor', 'check', 'Rebound', 'latest', '--json'], { env })).stdout) as { pages: { error: string | null }[] };
      assert.match(
        pagesOf.pages[0]!.error ?? '',
        /^Forbidden: targets on private, loopback and link-local addresses are refused: this monitor was saved under that rule/,
      );
      // The scheduled path: run --due, once the monitor's hour has come.
      const due = await run(['monitor', 'run', '--due', '--json'], { env, now: () => new Date(Date.now() + 2 * 3600_000) });
      assert.equal((JSON.parse(due.stdout) as unknown[]).length, 1, due.stdout + due.stderr);
      assert.equal(site.requests.length, 0, 'the page on 127.0.0.1 was never fetched');
      assert.equal(hooks.requests.length, 0, 'no webhook was posted to 127.0.0.1');

      // The same definition saved by the command line itself reaches its own network (and
      // shows that the names above do lead to the servers).
      const local = { WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: config() };
      await run(['monitor', 'apply', '-f', writeFiles({ 'm.yaml': definition('Rebound', pages, webhook) })], { env: local });
      const own = await run(['monitor', 'run', 'Rebound', '--json'], { env: local, now: () => new Date() });
      assert.equal((JSON.parse(own.stdout) as { summary: { new: number } }).summary.new, 1, own.stdout + own.stderr);
      assert.equal(site.requests.length, 1);
      assert.ok(hooks.requests.length >= 1);
    } finally {
      restore();
    }
  });
});
