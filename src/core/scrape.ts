/** `scrape` as a person or an assistant asks for it: fresh by default, and told when a page came from the cache. */
import type { ScrapeDocument } from '../contract/scrape.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';

/**
 * A scrape someone asks for now (typed at the command line, or an assistant's on the embedded
 * engine) wants the page as it is now (`scrape URL | grep price` after an edit), so it fetches
 * unless maxAge, minAge or lockdown say otherwise. The API's two-day default stays for requests,
 * monitors and crawls (spec §2.7).
 */
export function freshByDefault(options: ScrapeOptions): ScrapeOptions {
  if (options.maxAge !== undefined || options.minAge !== undefined || options.lockdown === true) return options;
  return { ...options, maxAge: 0 };
}

const MINUTE = 60_000;

function ageText(ms: number): string {
  const minutes = Math.floor(ms / MINUTE);
  if (minutes < 1) return 'under a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} days`;
}

/**
 * A copy from the scrape cache can be days old (maxAge defaults to two days): a person, or an
 * assistant, should know, and how to get the page as it is now (`fetchAnew`: "--max-age 0" on
 * the command line, "maxAge: 0" for a tool). Local and API documents both mark a hit with
 * `metadata.cacheState` and, usually, `cachedAt`.
 */
export function cacheNote(documents: readonly ScrapeDocument[], now: Date, options: ScrapeOptions, fetchAnew = '--max-age 0'): string | undefined {
  const hits = documents.filter((document) => document.metadata?.cacheState === 'hit');
  if (hits.length === 0) return undefined;
  const ages = hits.map((document) => now.getTime() - Date.parse(document.metadata.cachedAt ?? '')).filter(Number.isFinite);
  const several = documents.length > 1;
  const age = ages.length > 0 ? `, ${several ? 'up to ' : ''}${ageText(Math.max(0, ...ages))} old` : '';
  // With minAge or lockdown the cache was asked for: nothing to suggest.
  const cacheOnly = options.lockdown === true || options.minAge !== undefined;
  return `${several ? `${hits.length} of ${documents.length} pages ` : ''}from cache${age}${cacheOnly ? '' : `; ${fetchAnew} fetches anew`}`;
}
