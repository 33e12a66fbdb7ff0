/**
 * The API keys of serve's database (`webwatch keys`): created for a team, listed, revoked by id
 * or a unique prefix of 4 or more, as monitors and agent jobs are named.
 */
import { keyStore } from '../engine/keys/key-store.js';
import type { Db } from '../engine/store/database.js';
import { ERROR_MESSAGES } from '../spec/errors.js';
import { resolveIdPrefix } from './id-prefix.js';

export function keyService(db: Db, now: () => Date) {
  const keys = keyStore(db);
  return {
    create: (team: string, options: { allowLocalTeam: boolean }) => keys.create(team, now(), options),
    list: () => keys.list(),
    revoke: async (ref: string) => {
      const key = resolveIdPrefix(ref, await keys.list(), {
        what: 'key',
        field: 'key',
        describe: (item) => `team ${item.team}`,
        listHint: 'webwatch keys list shows them',
        notFound: ERROR_MESSAGES.notFound,
      });
      return keys.revoke(key.id, now());
    },
  };
}
