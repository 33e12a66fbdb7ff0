/**
 * `webwatch mcp --http` as a child process (bin/webwatch.js), on a free port of 127.0.0.1, with
 * --json, so that it says where it listens; and clients of it, the MCP SDK's own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const BIN = fileURLToPath(new URL('../../../bin/webwatch.js', import.meta.url));

/** Starts it with `args` after its own and exactly `env`; its child and the URL it serves. */
export async function mcpHttpProcess(args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', '--json', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      try {
        resolve((JSON.parse(out) as { url: string }).url);
      } catch {
        // Not whole yet.
      }
    });
    child.once('exit', (code) => reject(new Error(`webwatch mcp --http exited ${code}`)));
  });
  return { child, url };
}

/** SIGTERM, and its exit. */
export async function stopMcpProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** A client connected to `url`, kept in `clients` so that the test closes it. */
export async function mcpClient(url: string, clients: Client[]): Promise<Client> {
  const client = new Client({ name: 'webwatch-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}
