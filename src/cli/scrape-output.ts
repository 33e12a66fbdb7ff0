/** What `scrape` says about its documents besides the data: where they came from. */
import type { ScrapeDocument } from '../engine/scrape/document.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';

const MINUTE = 60_000;

function ageText(ms: number): string {
  const minutes = Math.floor(ms / MINUTE);
  if (minutes < 1) return 'under a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} days`;
}

/**
 * A copy from the scrape cache can be days old (maxAge defaults to two days): a person should
 * know, and how to get the page as it is now. Local and API documents both mark a hit with
 * `metadata.cacheState` and, usually, `cachedAt`.
 */
export function cacheNote(documents: readonly ScrapeDocument[], now: Date, options: ScrapeOptions): string | undefined {
  const hits = documents.filter((document) => document.metadata?.cacheState === 'hit');
  if (hits.length === 0) return undefined;
  const ages = hits.map((document) => now.getTime() - Date.parse(document.metadata.cachedAt ?? '')).filter(Number.isFinite);
  const several = documents.length > 1;
  const age = ages.length > 0 ? `, ${several ? 'up to ' : ''}${ageText(Math.max(0, ...ages))} old` : '';
  // With minAge or lockdown the cache was asked for: nothing to suggest.
  const cacheOnly = options.lockdown === true || options.minAge !== undefined;
  return `${several ? `${hits.length} of ${documents.length} pages ` : ''}from cache${age}${cacheOnly ? '' : '; --max-age 0 fetches anew'}`;
}
