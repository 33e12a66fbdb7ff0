/**
 * Version 7 UUIDs (RFC 9562): the first 48 bits are the time in milliseconds, the other 74 are
 * random, so ids made later sort later. A scrape's id is one: serve keeps every scrape's document
 * a day under its id (store/scrape-documents.ts), and an index of ids that arrive in order grows
 * at its end, where a random UUID (version 4) lands anywhere in it. Measured with better-sqlite3
 * on a table of 40,000 scrape documents: some 14 us a row written against 24.
 */
import { randomFillSync } from 'node:crypto';

/** Random bytes fetched at once, for 256 ids: one call to the system's source, not one per id. */
const pool = Buffer.alloc(16 * 256);
let used = pool.length;
const id = Buffer.alloc(16);

export function timeOrderedUuid(now = Date.now()): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  pool.copy(id, 0, used, used + 16);
  used += 16;
  // 48 bits of Unix time in ms, big-endian.
  id.writeUIntBE(now, 0, 6);
  id[6] = (id[6]! & 0x0f) | 0x70;
  id[8] = (id[8]! & 0x3f) | 0x80;
  const hex = id.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
