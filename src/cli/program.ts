/** The command tree. Building it loads no heavy module: actions import theirs when they run. */
import { Command, Option } from 'commander';
import { completionCommand } from './commands/completion.js';
import { helpCommand } from './commands/help.js';
import { monitorCommand } from './commands/monitor/index.js';
import { schemaCommand } from './commands/schema.js';
import type { Runtime } from './context.js';

export const VERSION = '0.1.0';

export function buildProgram(runtime: Runtime): Command {
  const program = new Command('webwatch');
  const root = () => program;
  program
    .description('Web monitoring and scraping: monitor definitions in YAML, checked locally, run remotely or on an embedded engine.')
    .version(VERSION, '-V, --version', 'print the version')
    .addOption(new Option('--json', 'print one JSON document on stdout (errors too)'))
    .addOption(new Option('--no-color', 'no colour (also NO_COLOR=1 or TERM=dumb)'))
    .addOption(new Option('-q, --quiet', 'no messages on stderr, only data and errors'))
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .showSuggestionAfterError(true)
    .addHelpText('after', '\nRun "webwatch help exit-codes" for the exit codes.')
    .addCommand(monitorCommand(runtime))
    .addCommand(schemaCommand(runtime))
    .addCommand(completionCommand(runtime, root))
    .addCommand(helpCommand(runtime, root));
  return program;
}
