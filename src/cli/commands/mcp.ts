import { Command } from 'commander';
import { contextFor, type Runtime } from '../context.js';

export function mcpCommand(runtime: Runtime): Command {
  return new Command('mcp')
    .description("serve webwatch's tools to AI assistants over the Model Context Protocol (stdio, or HTTP with --http)")
    .option('--http', 'serve streamable HTTP at /mcp for several clients, instead of one client on stdin and stdout')
    .option('--host <address>', 'with --http: address to listen on (default 127.0.0.1)')
    .option('--port <n>', 'with --http: port to listen on (default 3003; 0 picks a free one)')
    .option('--allow-private-targets', 'with --http: let tools reach private, loopback and link-local addresses (refused by default)')
    .option(
      '--max-connections <n>',
      'with --http: connections open at once (default 1000): when full, a newcomer takes the place of a connection that has not sent a whole request',
    )
    .option('--max-connections-per-address <n>', 'with --http: connections of one client address at once (default 100; 0: no cap, e.g. behind a reverse proxy)')
    .option('--max-result-chars <n>', 'characters of one tool result before it is cut with a note on how to read on (default 24000)')
    .addHelpText(
      'after',
      `
On the embedded engine by default (no server, account or key); on a remote API with --api-url and
--api-key (or WEBWATCH_API_URL and WEBWATCH_API_KEY), as every command.

Over stdio the assistant starts webwatch on your machine, and its tools follow the command
line's rules (your own sites on 127.0.0.1 are allowed). Over HTTP, as serve does, they refuse
private, loopback and link-local addresses unless --allow-private-targets: a model that reads a
malicious page must not reach your network through webwatch.

Examples:
  $ webwatch mcp
  $ webwatch mcp --http --port 3003`,
    )
    .action(async (options: unknown, command: Command) => {
      const { runMcp } = await import('./mcp.run.js');
      runtime.exitCode = await runMcp(await contextFor(command, runtime), options);
    });
}
