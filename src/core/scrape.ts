/** `scrape`: several URLs with bounded concurrency, results in the order asked. */
import type { Backend } from '../backend/backend.js';
import type { ScrapeDocument } from '../engine/scrape/document.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';

export type ScrapeResult = { url: string; document: ScrapeDocument } | { url: string; error: unknown };

export const SCRAPE_CONCURRENCY = 4;

export async function scrapeUrls(
  backend: Pick<Backend, 'scrape'>,
  urls: readonly string[],
  options: ScrapeOptions,
  onResult?: (result: ScrapeResult, index: number) => void,
  signal?: AbortSignal,
): Promise<ScrapeResult[]> {
  const results: ScrapeResult[] = new Array(urls.length);
  let next = 0;
  async function worker() {
    while (next < urls.length && !signal?.aborted) {
      const index = next++;
      const url = urls[index]!;
      try {
        results[index] = { url, document: await backend.scrape(url, options, signal) };
      } catch (error) {
        results[index] = { url, error };
      }
      onResult?.(results[index]!, index);
    }
  }
  await Promise.all(Array.from({ length: Math.min(SCRAPE_CONCURRENCY, urls.length) }, worker));
  signal?.throwIfAborted();
  return results;
}
