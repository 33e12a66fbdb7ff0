import { z } from 'zod';
import { keyStore } from '../../engine/keys/key-store.js';
import { databasePath, openDatabase } from '../../engine/store/database.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { renderRows } from '../../ui/table.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';

function withKeys<T>(context: CommandContext, work: (keys: ReturnType<typeof keyStore>) => T): T {
  const db = openDatabase(databasePath(context.io.env));
  try {
    return work(keyStore(db));
  } finally {
    db.close();
  }
}

export async function runKeysCreate(context: CommandContext, rawFlags: unknown): Promise<ExitCode> {
  const { team, allowLocalTeam } = parseFlags(z.object({ team: z.string(), allowLocalTeam: z.boolean().optional() }), rawFlags);
  const created = withKeys(context, (keys) => keys.create(team, context.io.now(), { allowLocalTeam: allowLocalTeam ?? false }));
  if (context.output.json) context.output.jsonDocument({ key: created.key, team: created.team, id: created.id });
  else {
    context.output.data(created.key);
    context.output.info(`key ${created.id} for team ${created.team}: shown only now, store it safely`);
    if (created.grantsLocalTeam) context.output.info('this key reads and changes the command line\'s own monitors; their scheduled checks under serve may reach private addresses');
  }
  return EXIT.ok;
}

export async function runKeysList(context: CommandContext): Promise<ExitCode> {
  const list = withKeys(context, (keys) => keys.list());
  if (context.output.json) context.output.jsonDocument(list);
  else if (list.length === 0) context.output.info('no keys: create one with webwatch keys create --team <team>');
  else context.output.data(await renderRows(context.output, ['id', 'team', 'created', 'revoked'], list.map((k) => [k.id, k.team, k.createdAt, k.revokedAt ?? ''])));
  return EXIT.ok;
}

export async function runKeysRevoke(context: CommandContext, id: string): Promise<ExitCode> {
  const revoked = withKeys(context, (keys) => keys.revoke(id, context.io.now()));
  if (context.output.json) context.output.jsonDocument(revoked);
  else context.output.info(`key ${revoked.id} of team ${revoked.team} revoked`);
  return EXIT.ok;
}
