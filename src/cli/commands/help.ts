import { Command } from 'commander';
import { EXIT_CODE_TABLE } from '../../errors/exit-codes.js';
import { UsageError } from '../../errors/webwatch-error.js';
import { renderRows } from '../../ui/table.js';
import { contextFor, type Runtime } from '../context.js';

export const HELP_TOPICS = ['exit-codes'] as const;

/** `help [command...]` shows a command's help; `help exit-codes` the exit-code table. */
export function helpCommand(runtime: Runtime, program: () => Command): Command {
  return new Command('help')
    .description(`show help for a command, or a topic: ${HELP_TOPICS.join(', ')}`)
    .argument('[command...]', 'command path or topic')
    .action(async (words: string[], _options: unknown, command: Command) => {
      const { output } = await contextFor(command, runtime);
      if (words.length === 1 && words[0] === 'exit-codes') {
        if (output.json) return output.jsonDocument(EXIT_CODE_TABLE);
        const rows = EXIT_CODE_TABLE.map(({ code, meaning }) => [String(code), meaning]);
        return output.data(await renderRows(output, ['code', 'meaning'], rows));
      }
      let target = program();
      for (const word of words) {
        const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (!next) throw new UsageError(`unknown command or help topic "${words.join(' ')}"`, { suggestion: 'run webwatch help' });
        target = next;
      }
      output.data(target.helpInformation());
    });
}
