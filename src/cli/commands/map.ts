import { Command, Option } from 'commander';
import { contextFor, type Runtime } from '../context.js';

export function mapCommand(runtime: Runtime): Command {
  return new Command('map')
    .description("list a site's URLs from its sitemaps and start page, without scraping each page")
    .argument('<url>', 'the absolute http(s) URL of the site')
    .option('--search <words>', 'only URLs whose address or title has these words, most matches first')
    .addOption(new Option('--sitemap <mode>', 'use the sitemap: include (default), skip, or only').choices(['include', 'skip', 'only']))
    .option('--include-subdomains', 'also list URLs of subdomains')
    .option('--keep-query-parameters', 'keep URLs that differ only in their query apart (they are merged by default)')
    .option('--limit <n>', 'at most this many URLs (default 5000, at most 100000)')
    .option('--timeout <ms>', 'give up after this many milliseconds')
    .addHelpText(
      'after',
      `
One URL per line (URL and title, tab-separated), or {"links": [{"url", "title"?, "description"?}]}
with --json.

Examples:
  $ webwatch map https://docs.example.com --search pricing
  $ webwatch map https://example.com --sitemap only --json | jq -r '.links[].url'`,
    )
    .action(async (url: string, options: unknown, command: Command) => {
      const { runMap } = await import('./map.run.js');
      runtime.exitCode = await runMap(await contextFor(command, runtime), url, options);
    });
}
