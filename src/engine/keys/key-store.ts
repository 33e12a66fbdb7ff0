/**
 * API keys of `webwatch serve`: each belongs to one team. A key is shown once, when created;
 * the store keeps only its SHA-256 (keys are 256 random bits, so a slow hash adds nothing).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import type { Db } from '../store/database.js';

export const KEY_PREFIX = 'ww_';
const TEAM = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface ApiKeyRecord {
  id: string;
  team: string;
  createdAt: string;
  revokedAt: string | null;
}

interface Row {
  id: string;
  team: string;
  created_at: string;
  revoked_at: string | null;
}

const fromRow = (row: Row): ApiKeyRecord => ({ id: row.id, team: row.team, createdAt: row.created_at, revokedAt: row.revoked_at });
const hashOf = (key: string) => createHash('sha256').update(key).digest('hex');

function checkTeamName(team: string): void {
  if (!TEAM.test(team)) {
    throw new WebwatchError(`team "${team}" is not a valid name: 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`, { status: 400 });
  }
}

export function keyStore(db: Db) {
  const byHash = db.prepare<[string], { id: string; team: string }>('SELECT id, team FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL');
  return {
    create(team: string, now: Date): ApiKeyRecord & { key: string } {
      checkTeamName(team);
      const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      const id = randomUUID();
      db.prepare('INSERT INTO api_keys (id, team, key_hash, created_at) VALUES (?, ?, ?, ?)').run(id, team, hashOf(key), now.toISOString());
      return { id, team, key, createdAt: now.toISOString(), revokedAt: null };
    },

    list(): ApiKeyRecord[] {
      return db.prepare<[], Row>('SELECT id, team, created_at, revoked_at FROM api_keys ORDER BY created_at, id').all().map(fromRow);
    },

    revoke(id: string, now: Date): ApiKeyRecord {
      const row = db.prepare<[string], Row>('SELECT id, team, created_at, revoked_at FROM api_keys WHERE id = ?').get(id);
      if (!row) throw new WebwatchError(ERROR_MESSAGES.notFound, { status: 404, details: { key: id } });
      if (!row.revoked_at) db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(now.toISOString(), id);
      return fromRow(db.prepare<[string], Row>('SELECT id, team, created_at, revoked_at FROM api_keys WHERE id = ?').get(id)!);
    },

    /** The id and team of a valid, unrevoked key. */
    identify(key: string): { id: string; team: string } | undefined {
      if (!key.startsWith(KEY_PREFIX)) return undefined;
      return byHash.get(hashOf(key));
    },
  };
}

export type KeyStore = ReturnType<typeof keyStore>;
