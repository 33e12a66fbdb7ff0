/**
 * A definition one client of `webwatch mcp --http` sends cannot hold up the others: while one
 * session validates a small file that stands for millions of values, another session's pings
 * are answered at once. Robust to the machine's speed: the longest ping is compared with the
 * validation's own time, which a validation on the server's thread would hold every ping for.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { tempDir } from '../helpers/files.js';
import { mcpClient, mcpHttpProcess, stopMcpProcess } from '../helpers/mcp-process.js';
import { aliasBomb } from '../helpers/yaml-bomb.js';

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webwatch mcp --http validating a definition', () => {
  let mcp: ChildProcess;
  let url: string;
  const clients: Client[] = [];

  before(async () => {
    ({ child: mcp, url } = await mcpHttpProcess([], { PATH: process.env.PATH!, WEBWATCH_HOME: tempDir(), XDG_CONFIG_HOME: tempDir(), HOME: tempDir() }));
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await stopMcpProcess(mcp);
  });

  const connect = () => mcpClient(url, clients);

  it("answers another session's pings while one validates a file of 99 aliases of 200,000 values", { timeout: 120_000 }, async () => {
    const [validating, pinging] = await Promise.all([connect(), connect()]);
    await pinging.ping();
    const started = performance.now();
    let validated = false;
    const validation = validating
      .callTool({ name: 'webwatch_monitor_validate', arguments: { yaml: aliasBomb() } }, undefined, { timeout: 110_000 })
      .finally(() => {
        validated = true;
      });
    const pings: number[] = [];
    while (!validated) {
      const sent = performance.now();
      await pinging.ping();
      pings.push(performance.now() - sent);
      await delay(20);
    }
    const result = await validation;
    const took = performance.now() - started;
    assert.match(textOf(result), /^The definition is invalid/);
    assert.match(textOf(result), /YAML aliases expand this document to 20,000,\d+ values from the 200,\d+ written: at most 100,000 more are allowed/);
    const longest = Math.max(...pings);
    // On the server's thread, the validation held a ping for about as long as it ran.
    assert.ok(pings.length >= 3, `${pings.length} pings in ${Math.round(took)} ms`);
    assert.ok(longest < took / 3, `the longest ping took ${Math.round(longest)} ms of the validation's ${Math.round(took)} ms`);
    // The server goes on: the next definition is validated as usual.
    assert.match(
      textOf(
        await validating.callTool({
          name: 'webwatch_monitor_validate',
          arguments: { yaml: 'name: x\nschedule: {cron: "0 * * * *"}\ntargets: [{type: scrape, urls: ["https://example.com/"]}]\n' },
        }),
      ),
      /^The definition is valid/,
    );
  });
});
