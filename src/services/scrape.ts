/**
 * Scrapes of one team: a page on its cache and network rule, its credits booked; several pages
 * with the same options a few at a time, results in the order asked.
 */
import type { ScrapeDocument } from '../contract/scrape.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';
import type { ScrapeService } from './interfaces.js';
import { scrapeEach } from './scrape-each.js';
import { once, type Retention, type Team } from './team.js';

export const scrapeModule = once(() => import('../engine/scrape/scrape.js'));

export interface TeamScrapeService extends ScrapeService {
  /** A scrape; under zero data retention nothing of the page is kept, and the page costs the surcharge. */
  one(url: string, options: ScrapeOptions, signal?: AbortSignal, retention?: Retention): Promise<ScrapeDocument>;
}

export function scrapeService(team: Team): TeamScrapeService {
  const one: TeamScrapeService['one'] = async (url, options, signal, retention) => {
    const document = await (await scrapeModule()).scrape({ url, options }, await team.scrapeContext(signal, retention));
    await team.spent('scrape', document.metadata.creditsUsed);
    return document;
  };
  return {
    one,
    many: async (urls, options, onResult, signal) => {
      let done = 0;
      return scrapeEach({ one }, urls, options, () => onResult?.(++done), signal);
    },
  };
}
