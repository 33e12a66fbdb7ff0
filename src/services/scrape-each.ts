/**
 * Several pages scraped one by one through any ScrapeService, a few at a time, results in the
 * order asked: the engine's `many`, and the command line's single page on an API (no batch job).
 */
import { inParallel } from '../lib/in-parallel.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';
import type { ScrapeResult, ScrapeService } from './interfaces.js';

/** Pages scraped at once. */
export const SCRAPE_CONCURRENCY = 4;

/** Each of `urls` scraped by `scrapes.one`, a few at a time; a failure is that URL's result. */
export async function scrapeEach(
  scrapes: Pick<ScrapeService, 'one'>,
  urls: readonly string[],
  options: ScrapeOptions,
  onResult?: (result: ScrapeResult, index: number) => void,
  signal?: AbortSignal,
): Promise<ScrapeResult[]> {
  const results = await inParallel(
    urls,
    SCRAPE_CONCURRENCY,
    async (url, index) => {
      let result: ScrapeResult;
      try {
        result = { url, document: await scrapes.one(url, options, signal) };
      } catch (error) {
        result = { url, error };
      }
      onResult?.(result, index);
      return result;
    },
    signal,
  );
  signal?.throwIfAborted();
  return results;
}
