/** `scrape`: several URLs with bounded concurrency, results in the order asked. */
import type { Backend } from '../backend/backend.js';
import type { ScrapeDocument } from '../engine/scrape/document.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';

export type ScrapeResult = { url: string; document: ScrapeDocument } | { url: string; error: unknown };

export const SCRAPE_CONCURRENCY = 4;

export async function scrapeUrls(
  backend: Backend,
  urls: readonly string[],
  options: ScrapeOptions,
  onResult?: (result: ScrapeResult, index: number) => void,
): Promise<ScrapeResult[]> {
  const results: ScrapeResult[] = new Array(urls.length);
  let next = 0;
  async function worker() {
    while (next < urls.length) {
      const index = next++;
      const url = urls[index]!;
      try {
        results[index] = { url, document: await backend.scrape(url, options) };
      } catch (error) {
        results[index] = { url, error };
      }
      onResult?.(results[index]!, index);
    }
  }
  await Promise.all(Array.from({ length: Math.min(SCRAPE_CONCURRENCY, urls.length) }, worker));
  return results;
}
