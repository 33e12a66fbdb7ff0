import { Command, Option } from 'commander';
import { contextFor, type Runtime } from '../context.js';
import { collect } from '../scrape-flags.js';

export function searchCommand(runtime: Runtime): Command {
  return new Command('search')
    .description('search the web through the configured provider (SearXNG, or a v2 API); optionally scrape each result')
    .argument('<query...>', 'what to search for')
    .option('--limit <n>', 'at most this many results per source (default 5, at most 100)')
    .option('--sources <sources>', 'comma-separated: web (default), news')
    .addOption(new Option('--tbs <range>', 'only results of the past hour, day, week, month or year').choices(['qdr:h', 'qdr:d', 'qdr:w', 'qdr:m', 'qdr:y']))
    .option('--include-domain <domain>', 'only results from this domain or its subdomains (repeatable)', collect)
    .option('--exclude-domain <domain>', 'no results from this domain or its subdomains (repeatable)', collect)
    .option('--scrape', 'scrape each result (markdown unless --format says otherwise)')
    .option('-f, --format <formats>', 'formats of the scraped results (implies --scrape): markdown, html, links, ...', collect)
    .option('--timeout <ms>', 'give up on the search after this many milliseconds')
    .addHelpText('after', `
Without --json: one result per line (position, URL, title), per source. With --json:
{"web": [{"url", "title", "description", "position"}], "news": [...]}, each result with the
scraped document's fields when --scrape is given. Needs a search provider in the config
(search: {provider: searxng, baseUrl: ...}), or a remote API that has one.

Examples:
  $ webwatch search "webwatch release notes" --limit 10
  $ webwatch search gpu launch --sources web,news --tbs qdr:d --json | jq -r '.news[].url'
  $ webwatch search "acme pricing" --scrape -f markdown --json`)
    .action(async (query: string[], options: unknown, command: Command) => {
      const { runSearch } = await import('./search.run.js');
      runtime.exitCode = await runSearch(await contextFor(command, runtime), query.join(' '), options);
    });
}
