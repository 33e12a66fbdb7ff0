/** The Backend of a remote v2 API (DESIGN §5): the same services as the embedded engine's, over HTTP, one module per resource. */
import type { Backend } from '../../services/interfaces.js';
import { remoteAgents, remoteExtracts } from './agents.js';
import { remoteCrawls } from './crawl.js';
import { remoteMaps, remoteSearches } from './map-search.js';
import { remoteChecks, remoteMonitors } from './monitors.js';
import { remote, type RemoteOptions } from './remote.js';
import { remoteInteract } from './interact.js';
import { remoteParse } from './parse.js';
import { remoteScrapes } from './scrape.js';
import { remoteUsage } from './usage.js';

export { POLL_INTERVAL_MS } from './remote.js';

export function remoteBackend(options: RemoteOptions): Backend {
  const api = remote(options);
  return {
    description: `the API at ${api.client.base}`,
    inProcess: false,
    scrape: remoteScrapes(api),
    parse: remoteParse(api),
    interact: remoteInteract(api),
    crawl: remoteCrawls(api),
    map: remoteMaps(api),
    search: remoteSearches(api),
    usage: remoteUsage(api),
    monitors: remoteMonitors(api),
    checks: remoteChecks(api),
    agents: remoteAgents(api),
    extract: remoteExtracts(api),
    close: () => api.client.close(),
  };
}
