import { Command } from 'commander';
import { contextFor, type Runtime } from '../context.js';

const statusAction = (runtime: Runtime) => async (_options: unknown, command: Command) => {
  const { runAuthStatus } = await import('./auth.run.js');
  runtime.exitCode = await runAuthStatus(await contextFor(command, runtime));
};

const STATUS_HELP = `
Says which engine commands act on: a remote API (its URL, where the URL and key come from, the
key redacted) or the embedded engine, and, for an API, whether it accepts the key (exit 3 when
it does not, 1 when it cannot be reached).`;

export function authCommand(runtime: Runtime): Command {
  return new Command('auth')
    .description('the API and key in use')
    .addCommand(
      new Command('status').description('which API and key are in use, and whether they work').addHelpText('after', STATUS_HELP).action(statusAction(runtime)),
    );
}

export function whoamiCommand(runtime: Runtime): Command {
  return new Command('whoami').description('the same as auth status').addHelpText('after', STATUS_HELP).action(statusAction(runtime));
}
