/**
 * What serve processes sharing one database must agree on: the requests each key made in the
 * current minute, and whether the database answers (the health route).
 *
 * On PostgreSQL the count is kept in the database (table rate_windows), so that a key's limit
 * holds however many processes and machines serve it. On the embedded SQLite file it is kept
 * in the process: one machine normally runs one serve process, and a write per request would
 * take SQLite's one write lock from every check and crawl.
 */
import { DatabaseDamagedError, schemaVersion, type Db } from '../engine/store/database.js';
import type { IntegrityState } from './integrity-watch.js';

const WINDOW_MS = 60_000;

export type RequestCounter = (keyId: string, now: number) => Promise<{ count: number; windowStart: number }>;

export function requestCounter(db: Db): RequestCounter {
  if (db.kind === 'sqlite') {
    const windows = new Map<string, { start: number; count: number }>();
    return async (keyId, now) => {
      let window = windows.get(keyId);
      if (!window || now - window.start >= WINDOW_MS) {
        window = { start: now, count: 0 };
        windows.set(keyId, window);
      }
      window.count++;
      return { count: window.count, windowStart: window.start };
    };
  }
  let purgedAt = 0;
  return async (keyId, now) => {
    const windowStart = now - (now % WINDOW_MS);
    const row = await db.query
      .insertInto('rate_windows')
      .values({ key_id: keyId, window_start: windowStart, requests: 1 })
      .onConflict((conflict) => conflict.columns(['key_id', 'window_start']).doUpdateSet((eb) => ({ requests: eb('rate_windows.requests', '+', 1) })))
      .returning('requests')
      .executeTakeFirstOrThrow();
    // Windows of past minutes are of no more use: each process clears them now and then.
    if (now - purgedAt > WINDOW_MS) {
      purgedAt = now;
      void db.query
        .deleteFrom('rate_windows')
        .where('window_start', '<', windowStart - WINDOW_MS)
        .execute()
        .catch(() => undefined);
    }
    return { count: Number(row.requests), windowStart };
  };
}

export interface DatabaseHealth {
  ok: boolean;
  kind: Db['kind'];
  /** The schema version found, when the database answered. */
  schemaVersion?: number;
  latencyMs?: number;
  /** SQLite: the last integrity check's result, and damage that queries met since. */
  integrity?: IntegrityState;
  error?: string;
}

/**
 * Whether the database answers a query, how fast, at which schema version, and (SQLite) whether
 * its pages are sound as last checked: a database that answers with damaged pages is not ok.
 */
export async function databaseHealth(db: Db, integrity?: IntegrityState): Promise<DatabaseHealth> {
  const started = performance.now();
  const checked = integrity && { integrity };
  try {
    const version = await schemaVersion(db);
    return {
      ok: integrity?.status !== 'damaged',
      kind: db.kind,
      schemaVersion: version,
      latencyMs: Math.round((performance.now() - started) * 10) / 10,
      ...checked,
    };
  } catch (error) {
    // The message only, never the file's path: a driver's error may carry the address, never
    // the password (pg omits it); a damaged SQLite file's error names the file.
    const message = error instanceof DatabaseDamagedError ? error.withoutPath : (error as Error).message;
    // Damage this query met is the integrity's news too: never `ok` beside a damage error (a truncated file).
    const damaged =
      error instanceof DatabaseDamagedError
        ? {
            integrity: {
              ...integrity,
              status: 'damaged' as const,
              problems: [`a query met a damaged page: ${message}`, ...(integrity?.problems ?? []).filter((problem) => !problem.endsWith(message))],
            },
          }
        : checked;
    return { ok: false, kind: db.kind, ...damaged, error: message };
  }
}
