/** Web searches of one team over the configured provider; with scrape options, each result scraped at its own credits. */
import { searchCredits } from '../spec/credits.js';
import type { SearchService } from './interfaces.js';
import { scrapeModule } from './scrape.js';
import type { Team } from './team.js';

export function searchService(team: Team): SearchService {
  return {
    query: async (request, scrapeOptions, signal) => {
      const [{ webSearch }, { scrape }] = await Promise.all([import('../engine/search/web-search.js'), scrapeModule()]);
      let scraped = 0;
      const answer = await webSearch(request, {
        provider: team.searchProvider,
        now: team.now,
        ...(signal && { signal }),
        ...(scrapeOptions && {
          scrape: async (url: string, each: AbortSignal) => {
            const document = await scrape({ url, options: scrapeOptions }, await team.scrapeContext(each));
            scraped += document.metadata.creditsUsed;
            return document;
          },
        }),
      });
      const creditsUsed = searchCredits((answer.web?.length ?? 0) + (answer.news?.length ?? 0) + (answer.images?.length ?? 0)) + scraped;
      await team.spent('search', creditsUsed);
      return { ...answer, creditsUsed };
    },
  };
}
