/**
 * The scrape cache and change-tracking histories in the engine's database, each row owned by
 * one team: a store is opened for a team and never reads another's rows. Nothing is shared
 * between teams, not even public pages, so that no team can learn what another one scraped.
 */
import type { ScrapeDocument } from '../../contract/scrape.js';
import type { Db } from './database.js';
import { prepared, perDatabase } from './prepared.js';

/** Read by every scrape that may be answered from the cache, and written by every page fetched: compiled once. */
const queriesOf = perDatabase((db: Db) => ({
  cached: prepared<'team' | 'key', { document: string; cached_at: number }>(db, (parameter) =>
    db.query.selectFrom('scrape_cache').select(['document', 'cached_at']).where('team', '=', parameter('team')).where('cache_key', '=', parameter('key')),
  ),
  // Building and compiling this upsert with the query layer cost more than SQLite takes to run it (a crawl writes one a page).
  putCached: prepared<'team' | 'key' | 'url' | 'document' | 'at', never>(db, (parameter) => {
    const values = { url: parameter('url'), document: parameter('document'), cached_at: parameter('at') };
    return db.query
      .insertInto('scrape_cache')
      .values({ team: parameter('team'), cache_key: parameter('key'), ...values })
      .onConflict((conflict) => conflict.columns(['team', 'cache_key']).doUpdateSet(values));
  }),
}));

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
  getCached(key: string): Promise<CachedDocument | undefined>;
  putCached(key: string, url: string, document: ScrapeDocument, at: number): Promise<void>;
  /** The last markdown (and JSON of changeTracking's json mode, when it ran) seen under a tracking key. */
  getTracked(key: TrackingKey): Promise<{ markdown: string; json?: unknown; scrapedAt: number } | undefined>;
  putTracked(key: TrackingKey, markdown: string, at: number, json?: unknown): Promise<void>;
}

export function scrapeStore(db: Db, team: string): ScrapeStore {
  const q = db.query;
  return {
    team,
    async getCached(key) {
      const [row] = await queriesOf(db).cached({ team, key });
      return row && { document: JSON.parse(row.document) as ScrapeDocument, cachedAt: Number(row.cached_at) };
    },
    async putCached(key, url, document, at) {
      await queriesOf(db).putCached({ team, key, url, document: JSON.stringify(document), at });
    },
    async getTracked({ url, tag, scope }) {
      const row = await q
        .selectFrom('tracked_pages')
        .select(['markdown', 'json', 'scraped_at'])
        .where('team', '=', team)
        .where('url', '=', url)
        .where('tag', '=', tag)
        .where('scope', '=', scope)
        .executeTakeFirst();
      return row && { markdown: row.markdown, ...(row.json !== null && { json: JSON.parse(row.json) as unknown }), scrapedAt: Number(row.scraped_at) };
    },
    async putTracked({ url, tag, scope }, markdown, at, json) {
      const values = { markdown, json: json === undefined ? null : JSON.stringify(json), scraped_at: at };
      await q
        .insertInto('tracked_pages')
        .values({ team, url, tag, scope, ...values })
        .onConflict((conflict) => conflict.columns(['team', 'url', 'tag', 'scope']).doUpdateSet(values))
        .execute();
    },
  };
}
