import { Command, Option } from 'commander';
import { contextFor, type Runtime } from '../context.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function scrapeCommand(runtime: Runtime): Command {
  return new Command('scrape')
    .description('scrape pages once and print their markdown (or other formats)')
    .argument('<url...>', 'absolute http(s) URLs')
    .option('-f, --format <formats>', 'comma-separated formats: markdown, html, rawHtml, rawBase64, links, images', collect)
    .option('--options <file>', 'scrape options in YAML (the ScrapeOptions of the v2 interface)')
    .option('-o, --output <path>', 'write to a file (one URL) or into a directory (several URLs)')
    .addOption(new Option('--only-main-content', 'keep only the main content (the default)'))
    .addOption(new Option('--no-only-main-content', 'keep the whole page'))
    .option('--include-tag <selector>', 'keep only elements matching this CSS selector (repeatable)', collect)
    .option('--exclude-tag <selector>', 'drop elements matching this CSS selector (repeatable)', collect)
    .option('-H, --header <header>', 'request header "Name: value" (repeatable)', collect)
    .option('--timeout <ms>', 'request timeout in milliseconds (1000 to 300000)')
    .option('--mobile', 'fetch as a mobile device')
    .option('--country <code>', 'location country, two capital letters (sets Accept-Language)')
    .option('--language <locale>', 'preferred language, in order (repeatable)', collect)
    .option('--max-age <ms>', 'use a cached copy younger than this (default two days; 0: always fetch)')
    .option('--min-age <ms>', 'answer only from the cache, with data at least this old (1: any)')
    .option('--lockdown', 'answer only from the cache and never contact the site')
    .option('--verify-tls', 'verify TLS certificates (by default they are not checked, as in the v2 API)')
    .addHelpText('after', `
Examples:
  $ webwatch scrape https://example.com > page.md
  $ webwatch scrape https://example.com --format markdown,links --json | jq '.data.links'
  $ webwatch scrape https://a.example https://b.example --json > pages.jsonl
  $ webwatch scrape https://example.com --options scrape.yaml -o page.md`)
    .action(async (urls: string[], options: unknown, command: Command) => {
      const { runScrape } = await import('./scrape.run.js');
      runtime.exitCode = await runScrape(await contextFor(command, runtime), urls, options);
    });
}
