import { Argument, Command } from 'commander';
import { contextFor, type Runtime } from '../context.js';

export function schemaCommand(runtime: Runtime): Command {
  return new Command('schema')
    .description('print the JSON Schema of monitor definition files or of scrape options, for editors')
    .addArgument(new Argument('[subject]', 'what to describe').choices(['monitor', 'scrape-options']).default('monitor'))
    .addHelpText(
      'after',
      `
Examples:
  $ webwatch schema > webwatch-monitor.schema.json
  then put this first line in a definition file:
  # yaml-language-server: $schema=./webwatch-monitor.schema.json`,
    )
    .action(async (subject: 'monitor' | 'scrape-options', _options: unknown, command: Command) => {
      const { jsonSchemaFor } = await import('../../spec/json-schema.js');
      (await contextFor(command, runtime)).output.jsonDocument(jsonSchemaFor(subject));
    });
}
