import { Command } from 'commander';
import { contextFor, type Runtime } from '../context.js';

export function loginCommand(runtime: Runtime): Command {
  return new Command('login')
    .description('save an API key (and the API URL) for remote commands; the file is readable by you only')
    .addHelpText(
      'after',
      `
The key comes from --api-key, from standard input when piped, or from a prompt on a terminal.
With an API URL (--api-url, WEBWATCH_API_URL or config), the key is tried first: a key the API
refuses is not saved (exit 3).

Examples:
  $ webwatch login --api-url https://watch.example.com/v2
  $ printf '%s' "$KEY" | webwatch login --api-url http://127.0.0.1:3002/v2`,
    )
    .action(async (_options: unknown, command: Command) => {
      const { runLogin } = await import('./login.run.js');
      runtime.exitCode = await runLogin(await contextFor(command, runtime));
    });
}

export function logoutCommand(runtime: Runtime): Command {
  return new Command('logout').description('forget the API key saved by webwatch login').action(async (_options: unknown, command: Command) => {
    const { runLogout } = await import('./login.run.js');
    runtime.exitCode = await runLogout(await contextFor(command, runtime));
  });
}
