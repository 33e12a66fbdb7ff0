/** `scrape`: several URLs with bounded concurrency, results in the order asked. */
import type { Backend, ScrapeResult } from '../backend/backend.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';
import { inParallel } from '../lib/in-parallel.js';

export type { ScrapeResult };

export const SCRAPE_CONCURRENCY = 4;

export async function scrapeUrls(
  backend: Pick<Backend, 'scrape'>,
  urls: readonly string[],
  options: ScrapeOptions,
  onResult?: (result: ScrapeResult, index: number) => void,
  signal?: AbortSignal,
): Promise<ScrapeResult[]> {
  const results = await inParallel(urls, SCRAPE_CONCURRENCY, async (url, index) => {
    let result: ScrapeResult;
    try {
      result = { url, document: await backend.scrape(url, options, signal) };
    } catch (error) {
      result = { url, error };
    }
    onResult?.(result, index);
    return result;
  }, signal);
  signal?.throwIfAborted();
  return results;
}
