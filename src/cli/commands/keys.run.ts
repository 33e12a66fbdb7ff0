import { z } from 'zod';
import { databaseLocation, openDatabase } from '../../services/database.js';
import { loadConfig } from '../../config/config.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { keyService } from '../../services/keys.js';
import { renderRows } from '../../ui/table.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';

/** Keys live in serve's database: --database, WEBWATCH_DATABASE_URL, the config's database.url, or the embedded file. */
async function withKeys<T>(context: CommandContext, database: string | undefined, work: (keys: ReturnType<typeof keyService>) => Promise<T>): Promise<T> {
  const config = await loadConfig(context.io.env, context.io.cwd());
  const db = await openDatabase(databaseLocation(context.io.env, { flag: database, configUrl: config.database.url }));
  try {
    return await work(keyService(db, context.io.now));
  } finally {
    await db.close();
  }
}

const databaseFlags = z.object({ database: z.string().optional() });
const createFlags = databaseFlags.extend({ team: z.string(), allowLocalTeam: z.boolean().optional() });

export async function runKeysCreate(context: CommandContext, rawFlags: unknown): Promise<ExitCode> {
  const { team, allowLocalTeam, database } = parseFlags(createFlags, rawFlags);
  const created = await withKeys(context, database, (keys) => keys.create(team, { allowLocalTeam: allowLocalTeam ?? false }));
  if (context.output.json) context.output.jsonDocument({ key: created.key, team: created.team, id: created.id });
  else {
    context.output.data(created.key);
    context.output.info(`key ${created.id} for team ${created.team}: shown only now, store it safely`);
    if (created.grantsLocalTeam)
      context.output.info("this key reads and changes the command line's own monitors; their scheduled checks under serve may reach private addresses");
  }
  return EXIT.ok;
}

export async function runKeysList(context: CommandContext, rawFlags: unknown = {}): Promise<ExitCode> {
  const { database } = parseFlags(databaseFlags, rawFlags);
  const list = await withKeys(context, database, (keys) => keys.list());
  if (context.output.json) context.output.jsonDocument(list);
  else if (list.length === 0) context.output.info('no keys: create one with webwatch keys create --team <team>');
  else
    context.output.data(
      await renderRows(
        context.output,
        ['id', 'team', 'created', 'revoked'],
        list.map((k) => [k.id, k.team, k.createdAt, k.revokedAt ?? '']),
      ),
    );
  return EXIT.ok;
}

export async function runKeysRevoke(context: CommandContext, id: string, rawFlags: unknown = {}): Promise<ExitCode> {
  const { database } = parseFlags(databaseFlags, rawFlags);
  // A key goes by its id or a unique prefix of 4 or more, as monitors and agent jobs do.
  const revoked = await withKeys(context, database, (keys) => keys.revoke(id));
  if (context.output.json) context.output.jsonDocument(revoked);
  else context.output.info(`key ${revoked.id} of team ${revoked.team} revoked`);
  return EXIT.ok;
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { 'keys create': createFlags, 'keys list': databaseFlags, 'keys revoke': databaseFlags };
