/** The scrape cache and change-tracking snapshots in the engine's database. */
import type { ScrapeDocument } from '../scrape/document.js';
import type { Db } from './database.js';

export interface CachedDocument {
  document: ScrapeDocument;
  cachedAt: number;
}

export interface ScrapeStore {
  getCached(key: string): CachedDocument | undefined;
  putCached(key: string, url: string, document: ScrapeDocument, at: number): void;
  /** The last markdown seen for a URL under a change-tracking tag. */
  getTracked(url: string, tag: string): { markdown: string; scrapedAt: number } | undefined;
  putTracked(url: string, tag: string, markdown: string, at: number): void;
}

export function scrapeStore(db: Db): ScrapeStore {
  const getCached = db.prepare<[string], { document: string; cached_at: number }>('SELECT document, cached_at FROM scrape_cache WHERE cache_key = ?');
  const putCached = db.prepare('INSERT OR REPLACE INTO scrape_cache (cache_key, url, document, cached_at) VALUES (?, ?, ?, ?)');
  const getTracked = db.prepare<[string, string], { markdown: string; scraped_at: number }>('SELECT markdown, scraped_at FROM tracked_pages WHERE url = ? AND tag = ?');
  const putTracked = db.prepare('INSERT OR REPLACE INTO tracked_pages (url, tag, markdown, scraped_at) VALUES (?, ?, ?, ?)');
  return {
    getCached(key) {
      const row = getCached.get(key);
      return row && { document: JSON.parse(row.document) as ScrapeDocument, cachedAt: row.cached_at };
    },
    putCached(key, url, document, at) {
      putCached.run(key, url, JSON.stringify(document), at);
    },
    getTracked(url, tag) {
      const row = getTracked.get(url, tag);
      return row && { markdown: row.markdown, scrapedAt: row.scraped_at };
    },
    putTracked(url, tag, markdown, at) {
      putTracked.run(url, tag, markdown, at);
    },
  };
}
