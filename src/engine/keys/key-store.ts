/**
 * API keys of `webwatch serve`: each belongs to one team. A key is shown once, when created;
 * the store keeps only its SHA-256 (keys are 256 random bits, so a slow hash adds nothing).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import type { Selectable } from 'kysely';
import type { Db } from '../store/database.js';
import { prepared, perDatabase } from '../store/prepared.js';
import type { Tables } from '../store/tables.js';

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

type Row = Pick<Selectable<Tables['api_keys']>, 'id' | 'team' | 'grants_local_team' | 'created_at' | 'revoked_at'>;

const fromRow = (row: Row): ApiKeyRecord => ({
  id: row.id,
  team: row.team,
  grantsLocalTeam: row.grants_local_team === 1,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});
const hashOf = (key: string) => createHash('sha256').update(key).digest('hex');

function checkTeamName(team: string): void {
  if (!TEAM.test(team)) {
    throw new WebwatchError(`team "${team}" is not a valid name: 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`, { status: 400 });
  }
}

/** Asked on every request of serve: compiled once. */
const queriesOf = perDatabase((db: Db) => ({
  byHash: prepared<'hash', { id: string; team: string; grants_local_team: number }>(db, (parameter) =>
    db.query.selectFrom('api_keys').select(['id', 'team', 'grants_local_team']).where('key_hash', '=', parameter('hash')).where('revoked_at', 'is', null),
  ),
}));

export function keyStore(db: Db) {
  const q = db.query;
  const columns = ['id', 'team', 'grants_local_team', 'created_at', 'revoked_at'] as const;
  return {
    /**
     * A new key. Team `local` holds the command line's own monitors (webhook headers and all):
     * a key for it is refused unless `allowLocalTeam` says the operator means it.
     */
    async create(team: string, now: Date, options: { allowLocalTeam?: boolean } = {}): Promise<ApiKeyRecord & { key: string }> {
      checkTeamName(team);
      const grantsLocalTeam = team === ENGINE_TEAM;
      if (grantsLocalTeam && !options.allowLocalTeam) {
        throw new WebwatchError(
          `team "${ENGINE_TEAM}" holds the command line's own monitors: a key for it would let its holder read and change them, webhook headers included`,
          {
            status: 400,
            suggestion: `give the server's clients a team of their own (--team acme), or pass --allow-local-team if this is what you want`,
          },
        );
      }
      const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      const id = randomUUID();
      await q
        .insertInto('api_keys')
        .values({ id, team, key_hash: hashOf(key), created_at: now.toISOString(), revoked_at: null, grants_local_team: grantsLocalTeam ? 1 : 0 })
        .execute();
      return { id, team, grantsLocalTeam, key, createdAt: now.toISOString(), revokedAt: null };
    },

    async list(): Promise<ApiKeyRecord[]> {
      return (await q.selectFrom('api_keys').select(columns).orderBy('created_at').orderBy('id').execute()).map(fromRow);
    },

    async revoke(id: string, now: Date): Promise<ApiKeyRecord> {
      const row = await q.selectFrom('api_keys').select(columns).where('id', '=', id).executeTakeFirst();
      if (!row) throw new WebwatchError(ERROR_MESSAGES.notFound, { status: 404, details: { key: id } });
      if (!row.revoked_at)
        await q.updateTable('api_keys').set({ revoked_at: now.toISOString() }).where('id', '=', id).where('revoked_at', 'is', null).execute();
      return fromRow(await q.selectFrom('api_keys').select(columns).where('id', '=', id).executeTakeFirstOrThrow());
    },

    /**
     * The id and team of a valid, unrevoked key. Read from the database on every call, so that
     * a key revoked by any process is refused by all from the next request on.
     */
    async identify(key: string): Promise<{ id: string; team: string; grantsLocalTeam: boolean } | undefined> {
      if (!key.startsWith(KEY_PREFIX)) return undefined;
      const [row] = await queriesOf(db).byHash({ hash: hashOf(key) });
      return row && { id: row.id, team: row.team, grantsLocalTeam: row.grants_local_team === 1 };
    },
  };
}

export type KeyStore = ReturnType<typeof keyStore>;
