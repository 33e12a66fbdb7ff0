/**
 * `blockAds`: requests of a page to advertising, analytics (trackers) and consent-management
 * (cookie banner) services are refused. The patterns are Ghostery's tracker database
 * (@ghostery/trackerdb), which ships its list as a ready engine inside the package: nothing is
 * downloaded, and the engine is read once per process, on the first page that blocks ads.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Categories of the database that are blocked; the rest (CDNs, players, embeds, fonts) are content. */
export const BLOCKED_CATEGORIES = new Set(['advertising', 'site_analytics', 'consent', 'pornvertising']);

/** The request types of the filters, from Playwright's resource types (a frame's document is a sub_frame). */
const REQUEST_TYPES: Record<string, string> = {
  document: 'sub_frame',
  stylesheet: 'stylesheet',
  image: 'image',
  media: 'media',
  font: 'font',
  script: 'script',
  texttrack: 'other',
  xhr: 'xhr',
  fetch: 'fetch',
  eventsource: 'other',
  websocket: 'websocket',
  manifest: 'other',
  ping: 'ping',
};

export type AdBlocker = (url: string, resourceType: string, pageUrl: string) => boolean;

let loading: Promise<AdBlocker> | undefined;

/** Whether a request of the page at `pageUrl` goes to an ad, tracker or cookie-banner service. */
export function adBlocker(): Promise<AdBlocker> {
  loading ??= (async () => {
    // Through require, not import: the bundled command line loads it from node_modules when a page first needs it.
    const require = createRequire(import.meta.url);
    const entry = require.resolve('@ghostery/trackerdb');
    const { default: loadTrackerDB } = require(entry) as typeof import('@ghostery/trackerdb');
    const trackerDb = await loadTrackerDB(readFileSync(join(dirname(entry), '..', 'trackerdb.engine')));
    return (url, resourceType, pageUrl) =>
      trackerDb
        .matchUrl({ url, type: (REQUEST_TYPES[resourceType] ?? 'other') as never, sourceUrl: pageUrl }, { getDomainMetadata: false })
        .some((match) => BLOCKED_CATEGORIES.has(match.category.key));
  })();
  return loading;
}
