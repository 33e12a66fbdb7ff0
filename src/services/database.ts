/**
 * The store as a resource of its own (`webwatch db`, `keys`, `serve`): where it is (the flag,
 * WEBWATCH_DATABASE_URL, the configuration's database.url, else the embedded SQLite file),
 * opened, migrated, copied between SQLite and PostgreSQL, and checked. Commands reach the
 * engine's store through this module only.
 */
export { databaseLocation, databasePath, isPostgresUrl, migrate, openDatabase, redactedUrl, type Db } from '../engine/store/database.js';

/** Copies every table of one store into another, empty one (engine/store/copy.ts), loaded when asked. */
export const copyDatabase: typeof import('../engine/store/copy.js').copyDatabase = async (...args) =>
  (await import('../engine/store/copy.js')).copyDatabase(...args);

/** The store's integrity check (engine/store/integrity.ts), loaded when asked. */
export const integrity = () => import('../engine/store/integrity.js');

/** How long a worker's claim on a job lasts without renewal (serve's --lease-seconds), set before work starts. */
export const setLeaseDuration = async (ms: number) => (await import('../engine/store/leases.js')).setLeaseDuration(ms);
