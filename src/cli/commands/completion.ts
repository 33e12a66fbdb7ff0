import { Argument, Command } from 'commander';
import { contextFor, globalOptionsOf, type Runtime } from '../context.js';
import { Output } from '../../ui/output.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

export function completionCommand(runtime: Runtime, program: () => Command): Command {
  return new Command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      `
Completes commands, flags, flag values (formats, statuses, files) and, from the backend in use,
monitor names and check ids.

Examples:
  $ webwatch completion bash > ~/.local/share/bash-completion/completions/webwatch
  $ webwatch completion zsh > "\${fpath[1]}/_webwatch"
  $ webwatch completion fish > ~/.config/fish/completions/webwatch.fish`,
    )
    .action(async (shell: (typeof SHELLS)[number], _options: unknown, command: Command) => {
      const { completionScript } = await import('../completion/scripts.js');
      (await contextFor(command, runtime)).output.data(completionScript(shell, program()));
    });
}

/** What the completion scripts call for names they cannot know: hidden from help and completion. */
export function completeCommand(runtime: Runtime): Command {
  return new Command('__complete')
    .argument('<what>', 'monitors, or checks')
    .argument('[monitor]', 'the monitor whose checks to list')
    .action(async (what: string, monitor: string | undefined, _options: unknown, command: Command) => {
      const globals = { ...globalOptionsOf(command), quiet: true };
      const context = { io: runtime.io, globals, output: await Output.create(runtime.io, globals) };
      runtime.exitCode = await (await import('./completion.run.js')).runComplete(context, what, monitor);
    });
}
