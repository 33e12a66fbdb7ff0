/** The MCP tools of single pages and sites' URLs: webwatch_scrape, webwatch_map, webwatch_search. */
import { z } from 'zod';
import { rememberScrape } from './interact.js';
import { cacheNote, freshByDefault } from '../../core/scrape.js';
import { httpUrl } from '../../spec/fields.js';
import { mapRequestSchema, validateMapRequest } from '../../spec/map.js';
import { searchRequestSchema, validateSearchRequest } from '../../spec/search.js';
import { json, textResult } from '../results.js';
import { documentText, guarded, invalid, READ_ONLY as readOnly, type ToolKit } from '../tool-kit.js';

/** Scrape a page, list a site's URLs, search the web. */
export function registerScrapeTools(kit: ToolKit): void {
  const { server, backend, pages, options, scrapeShape, scrapeOptionsOf } = kit;
  server.registerTool(
    'webwatch_scrape',
    {
      title: 'Scrape a page',
      description:
        "Fetch one URL and return its content as markdown (main content only by default), or other formats (html, links, json with a schema, screenshot...). Use it when you know the page; use webwatch_search to find pages, webwatch_map to list a site's URLs, webwatch_crawl for many pages of a site. Fetches the page anew on the embedded engine unless maxAge, minAge or lockdown ask for the cache (a remote API answers from its cache up to its default age); a cached answer says so in its first line, with its age. maxAge: 0 always fetches anew.",
      inputSchema: z.object({ url: httpUrl(), ...scrapeShape }).strict(),
      annotations: readOnly,
    },
    guarded(async ({ url, ...input }, extra) => {
      const asked = scrapeOptionsOf(input);
      const scrapeOptions = options.freshScrapes ? freshByDefault(asked) : asked;
      const document = await backend.scrape.one(url, scrapeOptions, extra.signal);
      rememberScrape(document, scrapeOptions);
      // A cached answer says so before anything else, with its age: a price from two days ago is not today's.
      const note = cacheNote([document], (options.now ?? (() => new Date()))(), scrapeOptions, 'maxAge: 0');
      return textResult(pages.page([note, documentText(document as unknown as Record<string, unknown>)].filter(Boolean).join('\n\n')));
    }),
  );

  server.registerTool(
    'webwatch_map',
    {
      title: 'List the URLs of a site',
      description:
        'List the URLs of a site from its sitemaps and pages, without fetching each page: to find the page that answers a question before scraping it. `search` keeps URLs whose address or title has those words, best first.',
      inputSchema: mapRequestSchema(),
      annotations: readOnly,
    },
    guarded(async (input, extra) => {
      const validation = validateMapRequest(input);
      if (!validation.ok) throw invalid('map request', validation.problems);
      const { links } = await backend.map.links(validation.value, extra.signal);
      return textResult(pages.page(`${links.length} URLs\n${links.map((link) => (link.title ? `${link.url}\t${link.title}` : link.url)).join('\n')}`));
    }),
  );

  server.registerTool(
    'webwatch_search',
    {
      title: 'Search the web',
      description:
        "Search the web with the configured provider and return titles, URLs and descriptions; with scrapeOptions, the results' pages too. Use it when you do not know which page has the answer; then webwatch_scrape the best results.",
      inputSchema: searchRequestSchema(),
      annotations: readOnly,
    },
    guarded(async (input, extra) => {
      const validation = validateSearchRequest(input);
      if (!validation.ok) throw invalid('search request', validation.problems);
      const scrapeOptions = validation.value.scrapeOptions === undefined ? undefined : scrapeOptionsOf(validation.value.scrapeOptions);
      const answer = await backend.search.query(validation.value, scrapeOptions, extra.signal);
      return textResult(pages.page(json(answer)));
    }),
  );
}
