/**
 * Every service of one team on the embedded engine, sharing its database and ledger: what serve
 * keeps per team and key (server/team-services.ts), and what the command line's backend wraps
 * (backend/local/local-backend.ts).
 */
import { agentService, extractService, type TeamAgentService } from './agents.js';
import { checkService, type TeamCheckService } from './checks.js';
import { crawlService, type TeamCrawlService } from './crawl.js';
import { interactService } from './interact.js';
import type { ExtractService, InteractService, MapService, SearchService } from './interfaces.js';
import { mapService } from './map.js';
import { monitorService, type TeamMonitorService } from './monitors.js';
import { parseService, type TeamParseService } from './parse.js';
import { scrapeService, type TeamScrapeService } from './scrape.js';
import { searchService } from './search.js';
import { interactStatesDir, team as teamOf, type TeamOptions } from './team.js';
import { usageService, type TeamUsageService } from './usage.js';

export interface TeamServices {
  readonly team: string;
  readonly scrape: TeamScrapeService;
  readonly parse: TeamParseService;
  readonly interact: InteractService;
  readonly crawl: TeamCrawlService;
  readonly map: MapService;
  readonly search: SearchService;
  readonly usage: TeamUsageService;
  readonly monitors: TeamMonitorService;
  readonly checks: TeamCheckService;
  readonly agents: TeamAgentService;
  readonly extract: ExtractService;
  /** Waits for this process's agent runs, and closes the database unless it was given. */
  close(): Promise<void>;
}

export function teamServices(options: TeamOptions): TeamServices {
  const team = teamOf(options);
  const monitors = monitorService(team);
  const agents = agentService(team);
  return {
    team: team.name,
    scrape: scrapeService(team),
    parse: parseService(team),
    // The command line's engine: the user's code as a plain program, sessions kept as saved states.
    interact: interactService(team, options.interact ?? { policy: 'plain', statesDir: interactStatesDir(options.env, team.name) }),
    crawl: crawlService(team),
    map: mapService(team),
    search: searchService(team),
    usage: usageService(team),
    monitors,
    checks: checkService(team, monitors),
    agents,
    extract: extractService(agents),
    close: async () => {
      // Agent runs of this process end before the database closes.
      await agents.settle();
      await team.close();
    },
  };
}
