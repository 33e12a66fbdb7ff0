/** Maps of one team: a site's URLs from its sitemaps and start page, at the map's credits. */
import { MAP_CREDITS } from '../spec/credits.js';
import type { MapService } from './interfaces.js';
import type { Team } from './team.js';

export function mapService(team: Team): MapService {
  return {
    links: async (request, signal) => {
      const links = await (await import('../engine/map/map.js')).mapSite(request, await team.scrapeContext(signal));
      await team.spent('map', MAP_CREDITS);
      return { links };
    },
  };
}
