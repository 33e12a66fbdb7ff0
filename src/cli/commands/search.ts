import { Command, Option } from 'commander';
import { contextFor, type Runtime } from '../context.js';
import { collect } from '../scrape-flags.js';

export function searchCommand(runtime: Runtime): Command {
  return new Command('search')
    .description('search the web through the configured provider (SearXNG, or a v2 API); optionally scrape each result')
    .argument('<query...>', 'what to search for')
    .option('--limit <n>', 'at most this many results per source (default 5, at most 100)')
    .option('--sources <sources>', 'comma-separated: web (default), news, images')
    .addOption(new Option('--tbs <range>', 'only results of the past hour, day, week, month or year').choices(['qdr:h', 'qdr:d', 'qdr:w', 'qdr:m', 'qdr:y']))
    .option('--include-domain <domain>', 'only results from this domain or its subdomains (repeatable)', collect)
    .option('--exclude-domain <domain>', 'no results from this domain or its subdomains (repeatable)', collect)
    .option('--scrape', 'scrape each result (markdown unless --format says otherwise)')
    .option('-f, --format <formats>', 'formats of the scraped results (implies --scrape): markdown, html, links, ...', collect)
    .option('--timeout <ms>', 'give up on the search after this many milliseconds')
    .addHelpText(
      'after',
      `
Without --json: one result per line (position, URL, title), per source; an image's URL is
the image's. With --json: {"web": [{"url", "title", "description", "position"}], "news":
[...]}, each web and news result with the scraped document's fields when --scrape is given;
with images among the sources, "web", "news" and "images" ([{"title", "imageUrl",
"imageWidth", "imageHeight", "url", "position"}]) are all there, empty or not. Needs a search provider in the config
(search: {provider: searxng, baseUrl: ...}), or a remote API that has one.

Examples:
  $ webwatch search "webwatch release notes" --limit 10
  $ webwatch search gpu launch --sources web,news --tbs qdr:d --json | jq -r '.news[].url'
  $ webwatch search "acme pricing" --scrape -f markdown --json`,
    )
    .action(async (query: string[], options: unknown, command: Command) => {
      const { runSearch } = await import('./search.run.js');
      runtime.exitCode = await runSearch(await contextFor(command, runtime), query.join(' '), options);
    });
}
