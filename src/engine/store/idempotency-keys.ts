/**
 * Idempotency keys of job starts (the hosted clients' `x-idempotency-key` header): a key is taken
 * once per team, in the same statement that looks for it, so two starts sent at once with one key
 * make one job. Keys are forgotten with the jobs' results, a day after they were taken.
 */
import type { Db } from './database.js';

/** As long as a job's results are kept. */
export const IDEMPOTENCY_KEY_KEPT_MS = 24 * 60 * 60 * 1000;
/** Longer keys are refused (400): a key names a request, it does not carry one. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** Takes `key` for the team; false when the team took it before (within the day). */
export async function takeIdempotencyKey(db: Db, team: string, key: string, now: Date): Promise<boolean> {
  await db.query
    .deleteFrom('idempotency_keys')
    .where('taken_at', '<', new Date(now.getTime() - IDEMPOTENCY_KEY_KEPT_MS).toISOString())
    .execute();
  const taken = await db.query
    .insertInto('idempotency_keys')
    .values({ team, key, taken_at: now.toISOString() })
    .onConflict((conflict) => conflict.columns(['team', 'key']).doNothing())
    .returning('key')
    .execute();
  return taken.length === 1;
}

/** Gives a key back: the start it was taken for did not happen. */
export async function releaseIdempotencyKey(db: Db, team: string, key: string): Promise<void> {
  await db.query.deleteFrom('idempotency_keys').where('team', '=', team).where('key', '=', key).execute();
}
