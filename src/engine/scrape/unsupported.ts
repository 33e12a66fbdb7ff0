/**
 * What the local engine cannot do, named precisely: a request for one of these fails with a
 * clear error rather than returning an empty field.
 */
import type { ScrapeOptions } from '../../spec/scrape-options.js';

const FORMAT_NEEDS: Record<string, string> = {
  // Media extraction is the hosted service's (it returns a signed storage URL).
  audio: 'the hosted service\'s media extractor',
  video: 'the hosted service\'s media extractor',
};

/** Each unsupported feature of `options` with what it needs, e.g. `the audio format (needs ...)`. */
export function unsupportedFeatures(options: ScrapeOptions): string[] {
  const missing: string[] = [];
  for (const format of options.formats ?? []) {
    const type = typeof format === 'string' ? format : format.type;
    const needs = FORMAT_NEEDS[type];
    if (needs) missing.push(`the ${type} format (needs ${needs})`);
  }
  return missing;
}
