/**
 * Versioned schema migrations of the engine's SQLite store. Each runs once, in order, in a
 * transaction; `PRAGMA user_version` records how far a database has come. Never edit a
 * released migration: add the next one.
 */
export const MIGRATIONS: readonly { version: number; description: string; sql: string }[] = [
  {
    version: 1,
    description: 'scrape cache and change-tracking snapshots',
    sql: `
      CREATE TABLE scrape_cache (
        cache_key   TEXT PRIMARY KEY,
        url         TEXT NOT NULL,
        document    TEXT NOT NULL,
        cached_at   INTEGER NOT NULL
      );
      CREATE INDEX scrape_cache_cached_at ON scrape_cache (cached_at);

      CREATE TABLE tracked_pages (
        url         TEXT NOT NULL,
        tag         TEXT NOT NULL DEFAULT '',
        markdown    TEXT NOT NULL,
        scraped_at  INTEGER NOT NULL,
        PRIMARY KEY (url, tag)
      );
    `,
  },
];
