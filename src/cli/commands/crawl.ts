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
    .option('--regex-on-full-url', 'match --include-path and --exclude-path against the whole URL, not its path and query')
    .option('--allow-subdomains', 'also crawl subdomains of the start host')
    .option('--allow-external-links', 'follow links to other sites too')
    .option('--crawl-entire-domain', 'crawl the whole host, not only below the start URL')
    .option('--ignore-robots-txt', 'do not read or respect robots.txt')
    .option('--ignore-query-parameters', 'treat URLs that differ only in their query as one')
    .addOption(new Option('--sitemap <mode>', 'use the sitemap: include (default), skip, or only').choices(['include', 'skip', 'only']))
    .option('--delay <seconds>', 'wait between two requests to the same host')
    .option('--max-concurrency <n>', 'pages fetched at once (default 4)')
    .option('-o, --output <dir>', 'write each page into this directory: a file per format, named after the URL (JSON with --json)')
    .option('--detach', 'start the crawl on the API and print its id without waiting (see crawl status)')
    .addHelpText(
      'after',
      `
Examples:
  $ webwatch crawl https://docs.example.com --limit 50
  $ webwatch crawl https://example.com/blog --include-path '^/blog/' --json | jq -r '.data.metadata.title'
  $ webwatch crawl https://example.com -o site/
  $ webwatch --api-url http://127.0.0.1:3002 crawl https://example.com --detach   # prints the id
  $ webwatch crawl status <id> --documents --json

Crawl jobs on an API (webwatch serve, or --api-url) can be left and read later:
  crawl status <id>, crawl cancel <id>, crawl errors <id>, crawl list (running ones).
Ctrl-C during a crawl on an API cancels the API's crawl too.`,
    )
    .action(async (url: string, options: unknown, command: Command) => {
      const { runCrawl } = await import('./crawl.run.js');
      runtime.exitCode = await runCrawl(await contextFor(command, runtime), url, options);
    })
    .addCommand(
      jobCommand(runtime, 'status', 'a crawl job: its state and counts; --documents prints its pages', (c) =>
        c.option('--documents', 'print the crawled documents too (JSON lines with --json)'),
      ),
    )
    .addCommand(jobCommand(runtime, 'cancel', 'stop a running crawl job at once'))
    .addCommand(jobCommand(runtime, 'errors', "a crawl job's failed pages, and URLs robots.txt kept it from"))
    .addCommand(
      new Command('list').description("the running crawl jobs of the API key's team").action(async (_options: unknown, command: Command) => {
        const { runCrawlList } = await import('./crawl.run.js');
        runtime.exitCode = await runCrawlList(await contextFor(command, runtime));
      }),
    );
}

function jobCommand(runtime: Runtime, name: 'status' | 'cancel' | 'errors', description: string, extra: (command: Command) => Command = (c) => c): Command {
  return extra(new Command(name).description(description).argument('<id>', 'the crawl job id')).action(
    async (id: string, options: unknown, command: Command) => {
      const { runCrawlJob } = await import('./crawl.run.js');
      runtime.exitCode = await runCrawlJob(await contextFor(command, runtime), name, id, options);
    },
  );
}
