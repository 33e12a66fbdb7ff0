/**
 * Credit costs beyond a page's (spec §8 and the hosted API's documented prices): what the usage
 * ledger counts. A page costs what its scrape reports (1, or the §8 extras).
 */

import type { ScrapeOptions } from './scrape-options.js';
import { CREDITS } from './limits.js';

/**
 * What one scraped page costs: 1 (`base`: a PDF's pages read), +4 for LLM extraction (the json format or changeTracking's
 * json mode, once however many ask), +4 for the json format's prompt-injection check (§8), +2
 * with threat protection `normal` (§8). The other model formats (summary, question,
 * highlights, onlyCleanContent, product, menu) and branding add nothing: neither §8 nor the
 * hosted API's prices name a cost for them.
 */
export function pageCredits(options: ScrapeOptions, base = 1): number {
  let credits = base;
  const formats = options.formats ?? [];
  const json = formats.find((format) => (typeof format === 'string' ? format === 'json' : format.type === 'json'));
  const trackedJson = formats.some((format) => typeof format !== 'string' && format.type === 'changeTracking' && format.modes?.includes('json'));
  if (json !== undefined || trackedJson) credits += CREDITS.jsonExtraction;
  if (typeof json === 'object' && json.type === 'json' && json.checkPromptInjection) credits += CREDITS.promptInjectionCheck;
  if (options.threatProtection?.mode === 'normal') credits += CREDITS.threatProtectionPerUrl;
  return credits;
}

/**
 * Zero data retention's surcharge on each page of a scrape, crawl or batch that asks for it
 * (the hosted API's +1), or 0 for a team whose surcharge the operator waived (serve's
 * `zeroDataRetentionSurchargeWaived`). Lockdown, which counts as zero data retention, is billed
 * by its own rule (§2.7) and pays no surcharge.
 */
export function zeroDataRetentionSurcharge(waived: boolean): number {
  return waived ? 0 : CREDITS.zeroDataRetentionPerPage;
}

/** A map request, whatever it finds. */
export const MAP_CREDITS = 1;

/** A search: 2 credits per 10 results, rounded up, at least 2 (the hosted API's price). */
export function searchCredits(results: number): number {
  return Math.max(1, Math.ceil(results / 10)) * 2;
}
