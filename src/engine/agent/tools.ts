/**
 * The agent's tools over the engine: scrape and map go through the engine's scrape function
 * with the caller's scrape context (so serve's private-address rule, threat protection and the
 * team's cache apply as to any scrape), search through the configured provider.
 */
import { scrape, type ScrapeContext } from '../scrape/scrape.js';
import type { SearchProvider } from '../search/search.js';
import type { AgentTools } from './run-agent.js';

/** Links a map answers with, at most. */
export const MAP_LINKS_MAX = 200;
const SEARCH_RESULTS = 8;

export function engineTools(context: ScrapeContext, search: SearchProvider | undefined): AgentTools {
  const withSignal = (signal: AbortSignal): ScrapeContext => ({ ...context, signal: context.signal ? AbortSignal.any([context.signal, signal]) : signal });
  return {
    async scrape(url, signal) {
      const document = await scrape({ url, options: { formats: ['markdown'], timeout: 30_000 } }, withSignal(signal));
      return { url: document.metadata.url ?? url, title: document.metadata.title ?? null, markdown: document.markdown ?? '' };
    },
    async map(url, signal) {
      const document = await scrape({ url, options: { formats: ['links'], timeout: 30_000 } }, withSignal(signal));
      const site = new URL(document.metadata.url ?? url).hostname;
      const links = (document.links ?? []).filter((link) => {
        try {
          return new URL(link).hostname === site;
        } catch {
          return false;
        }
      });
      return [...new Set(links)].slice(0, MAP_LINKS_MAX);
    },
    ...(search && {
      async search(query: string) {
        return (await search.search(query, { limit: SEARCH_RESULTS })).map(({ url, title, snippet }) => ({ url, title, snippet }));
      },
    }),
  };
}
