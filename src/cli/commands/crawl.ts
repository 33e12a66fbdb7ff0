import { Command, Option } from 'commander';
import { contextFor, type Runtime } from '../context.js';
import { addScrapeOptionFlags, collect } from '../scrape-flags.js';

export function crawlCommand(runtime: Runtime): Command {
  return addScrapeOptionFlags(new Command('crawl'))
    .description('crawl a site from a URL; one line per page (JSON lines with --json)')
    .argument('<url>', 'the absolute http(s) URL to start from')
    .option('--limit <n>', 'at most this many pages (default 100)')
    .option('--max-depth <n>', 'follow links at most this many hops from the start (default 10)')
    .option('--include-path <regex>', 'crawl only paths matching this regular expression (repeatable)', collect)
    .option('--exclude-path <regex>', 'skip paths matching this regular expression (repeatable)', collect)
    .option('--allow-subdomains', 'also crawl subdomains of the start host')
    .option('--allow-external-links', 'follow links to other sites too')
    .option('--crawl-entire-domain', 'crawl the whole host, not only below the start URL')
    .option('--ignore-robots-txt', 'do not read or respect robots.txt')
    .option('--ignore-query-parameters', 'treat URLs that differ only in their query as one')
    .addOption(new Option('--sitemap <mode>', 'use the sitemap: include (default), skip, or only').choices(['include', 'skip', 'only']))
    .option('--delay <seconds>', 'wait between two requests to the same host')
    .option('--max-concurrency <n>', 'pages fetched at once (default 4)')
    .option('-o, --output <dir>', 'write each page into this directory (markdown, or JSON with --json)')
    .addHelpText('after', `
Examples:
  $ webwatch crawl https://docs.example.com --limit 50
  $ webwatch crawl https://example.com/blog --include-path '^/blog/' --json | jq -r '.data.metadata.title'
  $ webwatch crawl https://example.com -o site/`)
    .action(async (url: string, options: unknown, command: Command) => {
      const { runCrawl } = await import('./crawl.run.js');
      runtime.exitCode = await runCrawl(await contextFor(command, runtime), url, options);
    });
}
