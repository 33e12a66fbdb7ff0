/**
 * Credit costs beyond a page's (spec §8 and the hosted API's documented prices): what the usage
 * ledger counts. A page costs what its scrape reports (1, or the §8 extras).
 */

/** A map request, whatever it finds. */
export const MAP_CREDITS = 1;

/** A search: 2 credits per 10 results, rounded up, at least 2 (the hosted API's price). */
export function searchCredits(results: number): number {
  return Math.max(1, Math.ceil(results / 10)) * 2;
}
