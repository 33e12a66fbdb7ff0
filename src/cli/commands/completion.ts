import { Argument, Command } from 'commander';
import { contextFor, type Runtime } from '../context.js';
import { COMPLETION_SHELLS, completionScript, type CompletionShell } from '../completion/scripts.js';

export function completionCommand(runtime: Runtime, program: () => Command): Command {
  return new Command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'the shell').choices(COMPLETION_SHELLS))
    .addHelpText('after', `
Examples:
  $ webwatch completion bash > ~/.local/share/bash-completion/completions/webwatch
  $ webwatch completion zsh > "\${fpath[1]}/_webwatch"
  $ webwatch completion fish > ~/.config/fish/completions/webwatch.fish`)
    .action(async (shell: CompletionShell, _options: unknown, command: Command) => {
      (await contextFor(command, runtime)).output.data(completionScript(shell, program()));
    });
}
