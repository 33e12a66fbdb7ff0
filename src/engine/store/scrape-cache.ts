/**
 * The scrape cache and change-tracking histories in the engine's database, each row owned by
 * one team: a store is opened for a team and never reads another's rows. Nothing is shared
 * between teams, not even public pages, so that no team can learn what another one scraped.
 */
import type { ScrapeDocument } from '../scrape/document.js';
import type { Db } from './database.js';

export interface CachedDocument {
  document: ScrapeDocument;
  cachedAt: number;
}

/** Which history a change-tracking scrape belongs to: its URL, its tag and its private scope. */
export interface TrackingKey {
  url: string;
  tag: string;
  /**
   * A hash of the request's sensitive parameters (headers, actions, profile), or '' without any:
   * a page seen with a cookie is never compared with, or shown to, a request without it.
   */
  scope: string;
}

export interface ScrapeStore {
  readonly team: string;
  getCached(key: string): CachedDocument | undefined;
  putCached(key: string, url: string, document: ScrapeDocument, at: number): void;
  /** The last markdown (and JSON of changeTracking's json mode, when it ran) seen under a tracking key. */
  getTracked(key: TrackingKey): { markdown: string; json?: unknown; scrapedAt: number } | undefined;
  putTracked(key: TrackingKey, markdown: string, at: number, json?: unknown): void;
}

export function scrapeStore(db: Db, team: string): ScrapeStore {
  const getCached = db.prepare<[string, string], { document: string; cached_at: number }>('SELECT document, cached_at FROM scrape_cache WHERE team = ? AND cache_key = ?');
  const putCached = db.prepare('INSERT OR REPLACE INTO scrape_cache (team, cache_key, url, document, cached_at) VALUES (?, ?, ?, ?, ?)');
  const getTracked = db.prepare<[string, string, string, string], { markdown: string; json: string | null; scraped_at: number }>(
    'SELECT markdown, json, scraped_at FROM tracked_pages WHERE team = ? AND url = ? AND tag = ? AND scope = ?',
  );
  const putTracked = db.prepare('INSERT OR REPLACE INTO tracked_pages (team, url, tag, scope, markdown, json, scraped_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  return {
    team,
    getCached(key) {
      const row = getCached.get(team, key);
      return row && { document: JSON.parse(row.document) as ScrapeDocument, cachedAt: row.cached_at };
    },
    putCached(key, url, document, at) {
      putCached.run(team, key, url, JSON.stringify(document), at);
    },
    getTracked({ url, tag, scope }) {
      const row = getTracked.get(team, url, tag, scope);
      return row && { markdown: row.markdown, ...(row.json !== null && { json: JSON.parse(row.json) as unknown }), scrapedAt: row.scraped_at };
    },
    putTracked({ url, tag, scope }, markdown, at, json) {
      putTracked.run(team, url, tag, scope, markdown, json === undefined ? null : JSON.stringify(json), at);
    },
  };
}
