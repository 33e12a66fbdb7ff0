/** `mcp`: webwatch's tools over the Model Context Protocol, on stdio or streamable HTTP. */
import { z } from 'zod';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { UsageError, WebwatchError } from '../../errors/webwatch-error.js';
import { loadConfig } from '../../config/config.js';
import { openBackend, remoteSettings } from '../backend.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';
import { version } from '../version.js';

const mcpFlags = z.object({
  http: z.boolean().optional(),
  host: z.string().min(1).optional(),
  port: z.coerce.number().int().min(0).max(65535).optional(),
  allowPrivateTargets: z.boolean().optional(),
  maxResultChars: z.coerce.number().int().min(1000).max(10_000_000).optional(),
  maxConnections: z.coerce.number().int().min(1).optional(),
  maxConnectionsPerAddress: z.coerce.number().int().min(0).optional(),
});

export const MCP_PORT_DEFAULT = 3003;

export async function runMcp(context: CommandContext, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(mcpFlags, rawFlags);
  if (
    !flags.http &&
    (flags.host !== undefined ||
      flags.port !== undefined ||
      flags.allowPrivateTargets ||
      flags.maxConnections !== undefined ||
      flags.maxConnectionsPerAddress !== undefined)
  ) {
    throw new UsageError('--host, --port, --allow-private-targets and the connection caps go with --http', { suggestion: 'webwatch mcp --http --port 3003' });
  }
  const [{ createWebwatchMcp }, { Jobs }, { ResultPages }] = await Promise.all([
    import('../../mcp/server.js'),
    import('../../mcp/jobs.js'),
    import('../../mcp/results.js'),
  ]);
  const config = await loadConfig(context.io.env, context.io.cwd());
  const backend = await openBackend(context, 'serving MCP', {
    config,
    publicTargetsOnly: flags.http && !flags.allowPrivateTargets,
    servesSeveral: flags.http === true,
    sandboxedCode: true,
  });
  const jobs = new Jobs();
  const pages = new ResultPages(flags.maxResultChars);
  // On the embedded engine a scrape is of the page as it is now, as the command line's is.
  const freshScrapes = remoteSettings(context, config) === undefined;
  const session = () => createWebwatchMcp({ backend, version: version(), jobs, pages, freshScrapes, localFiles: !flags.http, now: context.io.now });
  const { output } = context;
  try {
    if (!flags.http) {
      // stdout carries the protocol alone; the client ends the session by closing stdin.
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        transport.onclose = resolve;
        process.stdin.once('end', resolve);
        process.once('SIGTERM', resolve);
      });
      await session().connect(transport);
      await closed;
      return EXIT.ok;
    }
    const { serveMcpHttp } = await import('../../mcp/http.js');
    const host = flags.host ?? '127.0.0.1';
    const port = flags.port ?? MCP_PORT_DEFAULT;
    let served;
    try {
      served = await serveMcpHttp({
        host,
        port,
        session,
        ...(flags.maxConnections !== undefined && { maxConnections: flags.maxConnections }),
        ...(flags.maxConnectionsPerAddress !== undefined && { maxConnectionsPerAddress: flags.maxConnectionsPerAddress }),
      });
    } catch (error) {
      throw new WebwatchError(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
    }
    if (output.json) output.jsonDocument({ url: served.url, version: version() });
    else
      output.info(
        `webwatch mcp: streamable HTTP at ${served.url}${flags.allowPrivateTargets ? '' : ' (private addresses refused)'} (Ctrl-C or SIGTERM to stop)`,
      );
    await new Promise<void>((resolve) => {
      process.removeAllListeners('SIGINT');
      process.once('SIGTERM', () => resolve());
      process.once('SIGINT', () => resolve());
    });
    await served.close();
    return EXIT.ok;
  } finally {
    await jobs.stopAll();
    await backend.close();
  }
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { mcp: mcpFlags };
