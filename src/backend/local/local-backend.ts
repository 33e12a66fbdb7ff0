/** The Backend of the embedded engine: engine functions called in this process. */
import { crawl } from '../../engine/crawl/crawl.js';
import { scrape, type ScrapeContext } from '../../engine/scrape/scrape.js';
import { databasePath, openDatabase, type Db } from '../../engine/store/database.js';
import { scrapeStore, type ScrapeStore } from '../../engine/store/scrape-cache.js';
import type { OrganizationThreatPolicy } from '../../engine/threat/threat-protection.js';
import type { Backend } from '../backend.js';

export interface LocalBackendOptions {
  version: string;
  threatPolicy?: OrganizationThreatPolicy;
  env: Readonly<Record<string, string | undefined>>;
  now(): Date;
}

export function localBackend(options: LocalBackendOptions): Backend {
  let db: Db | undefined;
  let store: ScrapeStore | undefined;
  // The database opens on first use: a scrape that fails validation never creates it.
  const openStore = () => {
    db ??= openDatabase(databasePath(options.env));
    store ??= scrapeStore(db);
    return store;
  };
  const contextFor = (signal?: AbortSignal): ScrapeContext => ({
    version: options.version,
    now: options.now,
    store: openStore(),
    ...(options.threatPolicy && { threatPolicy: options.threatPolicy }),
    ...(signal && { signal }),
  });
  return {
    description: 'the local engine',
    scrape: (url, scrapeOptions, signal) => scrape({ url, options: scrapeOptions }, contextFor(signal)),
    crawl: (url, crawlOptions, scrapeOptions, onPage, signal) => crawl(url, crawlOptions, scrapeOptions, contextFor(signal), onPage),
    close: async () => {
      db?.close();
      db = undefined;
      store = undefined;
    },
  };
}
