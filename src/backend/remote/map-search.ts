/** Map and search on a remote API: one request each. */
import type { MapLink } from '../../contract/map.js';
import type { SearchAnswer } from '../../contract/search.js';
import type { MapService, SearchService } from '../../services/interfaces.js';
import type { Remote } from './remote.js';

export function remoteMaps({ client }: Remote): MapService {
  return {
    // The hosted API has answered with bare URLs as well as objects.
    links: async (request) => ({
      links: ((await client.request<{ links?: (MapLink | string)[] }>('POST', '/map', { body: request })).links ?? []).map((link) =>
        typeof link === 'string' ? { url: link } : link,
      ),
    }),
  };
}

export function remoteSearches({ client }: Remote): SearchService {
  return {
    query: async (request, scrapeOptions) => {
      const answer = await client.request<{ data?: SearchAnswer; warning?: string }>('POST', '/search', {
        body: { ...request, ...(scrapeOptions && { scrapeOptions }) },
      });
      return { ...answer.data, ...(answer.warning && { warning: answer.warning }) };
    },
  };
}
