import { existsSync } from 'node:fs';
import { z } from 'zod';
import { loadConfig } from '../../config/config.js';
import { copyDatabase, databaseLocation, integrity, isPostgresUrl, migrate, openDatabase, redactedUrl, type Db } from '../../services/database.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { UsageError } from '../../errors/webwatch-error.js';
import { escapeControls, styled } from '../../ui/terminal-text.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';
import { plural } from '../../lib/plural.js';

async function closing<T>(databases: Db[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } finally {
    await Promise.all(databases.map((db) => db.close()));
  }
}

const migrateFlags = z.object({ database: z.string().min(1).optional() });
const checkFlags = migrateFlags.extend({ full: z.boolean().optional() });

export async function runDbMigrate(context: CommandContext, rawFlags: unknown): Promise<ExitCode> {
  const { database } = parseFlags(migrateFlags, rawFlags);
  const config = await loadConfig(context.io.env, context.io.cwd());
  const db = await openDatabase(databaseLocation(context.io.env, { flag: database, configUrl: config.database.url }), { migrate: false });
  const { from, to } = await closing([db], () => migrate(db));
  if (context.output.json) context.output.jsonDocument({ database: db.location, kind: db.kind, from, to });
  else context.output.info(from === to ? `${db.location}: schema already at version ${to}` : `${db.location}: schema migrated from version ${from} to ${to}`);
  return EXIT.ok;
}

export async function runDbCheck(context: CommandContext, rawFlags: unknown): Promise<ExitCode> {
  const { database, full } = parseFlags(checkFlags, rawFlags);
  const config = await loadConfig(context.io.env, context.io.cwd());
  const { checkIntegrity, describeProblem, PROBLEMS_LISTED } = await integrity();
  const report = await checkIntegrity(databaseLocation(context.io.env, { flag: database, configUrl: config.database.url }), { full: full ?? false });
  const { output } = context;
  if (output.json) output.jsonDocument(report);
  else if (report.note) output.info(`${report.database}: ${report.note}`);
  else if (report.ok)
    output.info(
      `${report.database}: no damage found (${report.check} read every page${report.check === 'quick_check' ? '; --full also compares every index with its table' : ''})`,
    );
  else {
    const count = `${report.problems.length}${report.problems.length >= PROBLEMS_LISTED ? ' or more' : ''}`;
    output.problem(
      styled(
        `${output.errorStyle.red('error:')} ${escapeControls(`the engine database ${report.database} is damaged: ${report.check} found ${count} problem${report.problems.length === 1 ? '' : 's'}`)}`,
      ),
    );
    for (const problem of report.problems) output.problem(escapeControls(`  ${describeProblem(problem)}`));
    output.problem(styled(`${output.errorStyle.dim('hint:')} stop webwatch, keep a copy of the file, and restore the database from a backup`));
  }
  return report.ok ? EXIT.ok : EXIT.failure;
}

/** A database address of db copy: `sqlite:PATH`, a path, or postgres://. */
const address = z.string().min(1);

const copyFlags = z.object({ from: address, to: address });

export async function runDbCopy(context: CommandContext, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(copyFlags, rawFlags);
  if (flags.from === flags.to) throw new UsageError(`--from and --to name the same database (${redactedUrl(flags.from)})`);
  // Opening a SQLite file creates it: a mistyped source would copy nothing, and quietly.
  const sourceFile = flags.from.replace(/^sqlite:(\/\/)?/i, '');
  if (!isPostgresUrl(flags.from) && !existsSync(sourceFile)) throw new UsageError(`the source ${sourceFile} does not exist: nothing to copy`);
  const from = await openDatabase(flags.from);
  let to: Db;
  try {
    to = await openDatabase(flags.to);
  } catch (error) {
    await from.close();
    throw error;
  }
  const report = await closing([from, to], () => copyDatabase(from, to, (table, rows) => context.output.info(`${table}: ${rows} row${rows === 1 ? '' : 's'}`)));
  const rows = report.tables.reduce((sum, table) => sum + table.rows, 0);
  if (context.output.json) context.output.jsonDocument({ from: from.location, to: to.location, tables: report.tables, rows });
  else context.output.info(`copied ${plural(rows, 'row')} from ${from.location} to ${to.location}`);
  return EXIT.ok;
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { 'db migrate': migrateFlags, 'db check': checkFlags, 'db copy': copyFlags };
