import { Command, Option } from 'commander';
import { contextFor, type Runtime } from '../context.js';

export function initCommand(runtime: Runtime): Command {
  return new Command('init')
    .description('write a starter monitor file to edit (and the JSON Schema beside it, for editors); never overwrites')
    .argument('[file]', 'the file to write, or - for standard output', 'monitor.yaml')
    .addOption(
      new Option('-t, --type <type>', 'the kind of its target; the other kinds are written as comments')
        .choices(['scrape', 'crawl', 'search'])
        .default('scrape'),
    )
    .option('--name <name>', "the monitor's name (default: the file's name without .yaml)")
    .option('--url <url>', 'the page to watch (scrape) or the start page (crawl)')
    .addHelpText(
      'after',
      `
Examples:
  $ webwatch init                                   # monitor.yaml, watching pages
  $ webwatch init monitors/docs.yaml --type crawl --url https://example.com/docs/
  $ webwatch init news.yaml --type search --name "Launch news"
  $ webwatch monitor validate monitor.yaml && webwatch monitor apply monitor.yaml`,
    )
    .action(async (file: string, options: unknown, command: Command) => {
      const { runInit } = await import('./init.run.js');
      runtime.exitCode = await runInit(await contextFor(command, runtime), file, options);
    });
}
