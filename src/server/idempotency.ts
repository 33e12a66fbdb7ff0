/**
 * The `x-idempotency-key` header of job starts (crawl, batch scrape), as the hosted API reads it:
 * a key the team used before is 409 `Idempotency key already used`, and no second job starts.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../engine/store/database.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH, releaseIdempotencyKey, takeIdempotencyKey } from '../engine/store/idempotency-keys.js';
import { WebwatchError } from '../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../spec/errors.js';
import { errorBody } from './http.js';

const HEADER = 'x-idempotency-key';

/**
 * Runs `start` unless the request's idempotency key was used, when it answers 409 and returns
 * undefined; a start that fails gives the key back.
 */
export async function startOnce<T>(db: Db, now: () => Date, request: FastifyRequest, reply: FastifyReply, start: () => Promise<T>): Promise<T | undefined> {
  const header = request.headers[HEADER];
  if (header === undefined) return start();
  const key = Array.isArray(header) ? (header[0] ?? '') : header;
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    throw new WebwatchError(ERROR_MESSAGES.badRequest, {
      status: 400,
      details: [{ path: HEADER, message: `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters` }],
    });
  }
  if (!(await takeIdempotencyKey(db, request.team, key, now()))) {
    void reply
      .code(409)
      .send(errorBody(409, ERROR_MESSAGES.idempotencyKeyUsed, { reason: 'the team started a job with this key within the last day' }, 'IDEMPOTENCY_KEY_USED'));
    return undefined;
  }
  try {
    return await start();
  } catch (error) {
    await releaseIdempotencyKey(db, request.team, key).catch(() => undefined);
    throw error;
  }
}
