/**
 * The agent's tools over the engine, and an extract job's: scrape and map go through the
 * engine's own functions with the caller's scrape context (so serve's private-address rule,
 * threat protection and the team's cache apply as to any scrape), search through the configured
 * provider.
 */
import { mapSite } from '../map/map.js';
import { scrape, type ScrapeContext } from '../scrape/scrape.js';
import type { SearchProvider } from '../search/search.js';
import { MAP_CREDITS, searchCredits } from '../../spec/credits.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import type { ExtractReader } from './extract-run.js';
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

/** How long an extract job's site listing may take. */
const LISTING_TIMEOUT_MS = 30_000;
/** Links a site listing looks through for the pages under a path. */
const LISTING_LINKS = 500;

export function extractReader(context: ScrapeContext, search: SearchProvider | undefined): ExtractReader {
  const withSignal = (signal: AbortSignal): ScrapeContext => ({ ...context, signal: context.signal ? AbortSignal.any([context.signal, signal]) : signal });
  return {
    async scrape(url, options: ScrapeOptions, signal) {
      const document = await scrape({ url, options: { ...options, formats: ['markdown'] } }, withSignal(signal));
      return { url: document.metadata.url ?? url, markdown: document.markdown ?? '', credits: document.metadata.creditsUsed };
    },
    async listSite(url, signal) {
      const links = await mapSite({ url, limit: LISTING_LINKS, timeout: LISTING_TIMEOUT_MS }, withSignal(signal));
      return { urls: links.map((link) => link.url), credits: MAP_CREDITS };
    },
    ...(search && {
      async search(query: string, limit: number, signal: AbortSignal) {
        const results = await search.search(query, { limit, signal });
        return { urls: results.map((result) => result.url), credits: searchCredits(results.length) };
      },
    }),
  };
}
