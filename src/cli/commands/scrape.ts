import { Command } from 'commander';
import { contextFor, type Runtime } from '../context.js';
import { addScrapeOptionFlags } from '../scrape-flags.js';

export function scrapeCommand(runtime: Runtime): Command {
  return addScrapeOptionFlags(new Command('scrape'))
    .description('scrape pages once and print their markdown (or other formats)')
    .argument('[url...]', 'absolute http(s) URLs')
    .option('-i, --input <file>', 'read URLs from this file, one per line (# comments; - for standard input)')
    .option('-o, --output <path>', 'write to this file, or into this directory: a file per URL and format, named after the URL')
    .addHelpText(
      'after',
      `
Examples:
  $ webwatch scrape https://example.com > page.md
  $ webwatch scrape https://example.com --format markdown,links --json | jq '.data.links'
  $ webwatch scrape https://a.example https://b.example --json > pages.jsonl
  $ webwatch scrape https://example.com --options scrape.yaml -o page.md
  $ webwatch scrape https://example.com -f markdown,links -o pages/   # pages/example.com.md and example.com.links.txt
  $ webwatch scrape --input urls.txt --json > pages.jsonl   # on an API: one batch scrape job

Several URLs on an API (--api-url) are one batch scrape job; Ctrl-C cancels it.`,
    )
    .action(async (urls: string[], options: unknown, command: Command) => {
      const { runScrape } = await import('./scrape.run.js');
      runtime.exitCode = await runScrape(await contextFor(command, runtime), urls, options);
    });
}
