/**
 * What the local engine cannot do yet, named precisely: a request for one of these fails
 * with a clear error rather than returning an empty field.
 */
import type { ScrapeOptions } from '../../spec/scrape-options.js';

const NEEDS_BROWSER = 'a browser';
const NEEDS_MODEL = 'a language model';

const FORMAT_NEEDS: Record<string, string> = {
  branding: NEEDS_BROWSER,
  summary: NEEDS_MODEL,
  json: NEEDS_MODEL,
  question: NEEDS_MODEL,
  highlights: NEEDS_MODEL,
  product: NEEDS_MODEL,
  menu: NEEDS_MODEL,
  audio: 'a media extractor',
  video: 'a media extractor',
};

/** Each unsupported feature of `options` with what it needs, e.g. `screenshot format (needs a browser)`. */
export function unsupportedFeatures(options: ScrapeOptions): string[] {
  const missing: string[] = [];
  for (const format of options.formats ?? []) {
    const type = typeof format === 'string' ? format : format.type;
    const needs = FORMAT_NEEDS[type];
    if (needs) missing.push(`the ${type} format (needs ${needs})`);
    if (typeof format !== 'string' && format.type === 'changeTracking' && format.modes?.includes('json')) {
      missing.push(`changeTracking json mode (needs ${NEEDS_MODEL})`);
    }
  }
  if (options.onlyCleanContent) missing.push(`onlyCleanContent (needs ${NEEDS_MODEL})`);
  return missing;
}
