/** The Backend of the embedded engine: engine functions called in this process. */
import { scrape } from '../../engine/scrape/scrape.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import type { Backend } from '../backend.js';

export interface LocalBackendOptions {
  version: string;
  env: Readonly<Record<string, string | undefined>>;
  now(): Date;
}

export function localBackend(options: LocalBackendOptions): Backend {
  return {
    description: 'the local engine',
    scrape: (url: string, scrapeOptions: ScrapeOptions, signal?: AbortSignal) =>
      scrape({ url, options: scrapeOptions }, { version: options.version, now: options.now, ...(signal && { signal }) }),
    close: async () => {},
  };
}
