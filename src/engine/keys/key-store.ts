/**
 * API keys of `webwatch serve`: each belongs to one team. A key is shown once, when created;
 * the store keeps only its SHA-256 (keys are 256 random bits, so a slow hash adds nothing).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import type { Db } from '../store/database.js';

export const KEY_PREFIX = 'ww_';
/** The command line's own team: its keys must be asked for explicitly. */
const ENGINE_TEAM = 'local';
const TEAM = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface ApiKeyRecord {
  id: string;
  team: string;
  /** Set only for a key of team `local` created with --allow-local-team. */
  grantsLocalTeam: boolean;
  createdAt: string;
  revokedAt: string | null;
}

interface Row {
  id: string;
  team: string;
  grants_local_team: number;
  created_at: string;
  revoked_at: string | null;
}

const fromRow = (row: Row): ApiKeyRecord => ({ id: row.id, team: row.team, grantsLocalTeam: row.grants_local_team === 1, createdAt: row.created_at, revokedAt: row.revoked_at });
const hashOf = (key: string) => createHash('sha256').update(key).digest('hex');

function checkTeamName(team: string): void {
  if (!TEAM.test(team)) {
    throw new WebwatchError(`team "${team}" is not a valid name: 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`, { status: 400 });
  }
}

export function keyStore(db: Db) {
  const byHash = db.prepare<[string], { id: string; team: string; grants_local_team: number }>('SELECT id, team, grants_local_team FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL');
  const columns = 'id, team, grants_local_team, created_at, revoked_at';
  return {
    /**
     * A new key. Team `local` holds the command line's own monitors (webhook headers and all):
     * a key for it is refused unless `allowLocalTeam` says the operator means it.
     */
    create(team: string, now: Date, options: { allowLocalTeam?: boolean } = {}): ApiKeyRecord & { key: string } {
      checkTeamName(team);
      const grantsLocalTeam = team === ENGINE_TEAM;
      if (grantsLocalTeam && !options.allowLocalTeam) {
        throw new WebwatchError(`team "${ENGINE_TEAM}" holds the command line's own monitors: a key for it would let its holder read and change them, webhook headers included`, {
          status: 400,
          suggestion: `give the server's clients a team of their own (--team acme), or pass --allow-local-team if this is what you want`,
        });
      }
      const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      const id = randomUUID();
      db.prepare('INSERT INTO api_keys (id, team, key_hash, created_at, grants_local_team) VALUES (?, ?, ?, ?, ?)').run(id, team, hashOf(key), now.toISOString(), grantsLocalTeam ? 1 : 0);
      return { id, team, grantsLocalTeam, key, createdAt: now.toISOString(), revokedAt: null };
    },

    list(): ApiKeyRecord[] {
      return db.prepare<[], Row>(`SELECT ${columns} FROM api_keys ORDER BY created_at, id`).all().map(fromRow);
    },

    revoke(id: string, now: Date): ApiKeyRecord {
      const row = db.prepare<[string], Row>(`SELECT ${columns} FROM api_keys WHERE id = ?`).get(id);
      if (!row) throw new WebwatchError(ERROR_MESSAGES.notFound, { status: 404, details: { key: id } });
      if (!row.revoked_at) db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(now.toISOString(), id);
      return fromRow(db.prepare<[string], Row>(`SELECT ${columns} FROM api_keys WHERE id = ?`).get(id)!);
    },

    /** The id and team of a valid, unrevoked key. */
    identify(key: string): { id: string; team: string; grantsLocalTeam: boolean } | undefined {
      if (!key.startsWith(KEY_PREFIX)) return undefined;
      const row = byHash.get(hashOf(key));
      return row && { id: row.id, team: row.team, grantsLocalTeam: row.grants_local_team === 1 };
    },
  };
}

export type KeyStore = ReturnType<typeof keyStore>;
