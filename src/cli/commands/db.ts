import { Command } from 'commander';
import { contextFor, type Runtime } from '../context.js';

const DATABASE_HELP = "the database: a postgres:// address or sqlite:PATH (default: WEBWATCH_DATABASE_URL, the config's database.url, else the embedded file)";

export function dbCommand(runtime: Runtime): Command {
  const db = new Command('db').description('the engine database: schema migrations, integrity checks, and copying an embedded store to a PostgreSQL server');
  db.command('migrate')
    .description("bring the database's schema to this webwatch's version (serve does it on start too); refuses a newer schema")
    .option('--database <url>', DATABASE_HELP)
    .action(async (options: unknown, command: Command) => {
      const { runDbMigrate } = await import('./db.run.js');
      runtime.exitCode = await runDbMigrate(await contextFor(command, runtime), options);
    });
  db.command('check')
    .description('look for damaged pages in the database, changing nothing: exit 0 when there are none, 1 listing them')
    .option('--database <url>', DATABASE_HELP)
    .option('--full', 'SQLite: also compare every index with its table (integrity_check; slower than the default quick_check)')
    .addHelpText(
      'after',
      `
It reads every page of a SQLite file; on PostgreSQL, which checks its own pages, it only says so.

Example:
  $ webwatch db check --database sqlite:$HOME/.local/share/webwatch/webwatch.db --full`,
    )
    .action(async (options: unknown, command: Command) => {
      const { runDbCheck } = await import('./db.run.js');
      runtime.exitCode = await runDbCheck(await contextFor(command, runtime), options);
    });
  db.command('copy')
    .description('copy every monitor, check, snapshot, key and job of one database into another, empty one, in one transaction')
    .requiredOption('--from <url>', 'the source: sqlite:PATH (the embedded file is sqlite:$WEBWATCH_HOME/webwatch.db) or postgres://...')
    .requiredOption('--to <url>', 'the destination, empty: postgres://... or sqlite:PATH')
    .addHelpText(
      'after',
      `
Stop serve on the source first: rows written during the copy may be missed.

Example:
  $ webwatch db copy --from sqlite:$HOME/.local/share/webwatch/webwatch.db --to postgres://webwatch@db.internal/webwatch`,
    )
    .action(async (options: unknown, command: Command) => {
      const { runDbCopy } = await import('./db.run.js');
      runtime.exitCode = await runDbCopy(await contextFor(command, runtime), options);
    });
  return db;
}
