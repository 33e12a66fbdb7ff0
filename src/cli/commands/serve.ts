import { Command, Option } from 'commander';
import { contextFor, type Runtime } from '../context.js';

export function serveCommand(runtime: Runtime): Command {
  return new Command('serve')
    .description('serve the v2 HTTP API over the local engine, and run monitors on their schedules')
    .option('--host <address>', 'address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)')
    .option('--port <n>', 'port to listen on (default 3002; 0 picks a free one)')
    .option('--allow-private-targets', 'let scrapes, crawls and monitors reach private, loopback and link-local addresses')
    .option('--body-limit <bytes>', 'largest request body (default 1048576): beyond it, 413')
    .option('--rate-limit <n>', 'requests per key per minute (default 6000): beyond it, 429')
    .option('--concurrency <n>', 'page scrapes each team runs at once (default 20): crawl and batch pages wait for one, a direct scrape finding none is 429')
    .option('--per-host-concurrency <n>', 'pages of one host a crawl fetches at once (default: as many as --concurrency)')
    .option('--scheduler-only', 'run monitors on their schedules without serving the API, nor listening')
    .addOption(
      new Option(
        '--role <role>',
        'all: the API, and running checks, queued work and deliveries (default); api: the API only, its work queued for workers; worker: checks, queued work and deliveries, and the health route',
      ).choices(['all', 'api', 'worker']),
    )
    .option(
      '--database <url>',
      "a postgres:// address that several serve processes share, or sqlite:PATH (default: WEBWATCH_DATABASE_URL, the config's database.url, else the embedded file)",
    )
    .option('--check-concurrency <n>', 'scheduled checks running at once, across all teams (default 8)')
    .option('--job-concurrency <n>', 'queued crawls, batch scrapes, agent jobs and manual checks this process runs at once (default 20)')
    .option('--jitter <seconds>', 'up to this random delay before a scheduled check starts (default 0)')
    .option('--monthly-credits <n>', 'credits each team may use per calendar month (UTC): beyond them, 402 (default: no limit)')
    .option('--monthly-tokens <n>', 'model tokens each team may use per month for agent jobs: beyond them, 402 (default: no limit)')
    .option('--zdr-surcharge-waived <teams>', 'teams (comma-separated) whose zeroDataRetention requests pay no surcharge (otherwise +1 credit a page)')
    .addOption(
      new Option('--log-format <format>', 'request log: text, a line per request (default on a terminal), or json lines (default otherwise)').choices([
        'text',
        'json',
      ]),
    )
    .option(
      '--max-connections <n>',
      'connections open at once (default 1000): when full, a newcomer takes the place of a connection that has not sent a whole request, else it is closed',
    )
    .option(
      '--max-connections-per-address <n>',
      'connections of one client address at once (default 100; 0: no cap, e.g. behind a reverse proxy): beyond them, a new one is closed as it arrives',
    )
    .option(
      '--request-timeout <seconds>',
      'time a client has to send a whole request, headers within 10 of them (default 30): then 408 and the connection is closed',
    )
    .option('--keep-alive-timeout <seconds>', 'how long an idle keep-alive connection stays open (default 72, longer than common proxies keep theirs)')
    .option('--drain-timeout <seconds>', 'on SIGTERM, how long running crawls may go on before they are stopped (default 30)')
    .option('--interact-code', "run callers' interact code (POST /v2/scrape/{id}/interact with code), each program inside bubblewrap (refused by default)")
    .option('--interact-sessions <n>', 'interact sessions open at once on this server (default 8)')
    .option('--interact-sessions-per-team <n>', 'interact sessions each team may have open (default 2)')
    .addHelpText(
      'after',
      `
Keys: create one with "webwatch keys create --team <team>"; clients send it as a bearer token.
SIGTERM or Ctrl-C stops taking requests, ends running agent jobs, lets running requests, crawls and
checks finish within --drain-timeout, then stops the crawls still running.

Examples:
  $ webwatch keys create --team acme
  $ webwatch serve --port 3002
  $ WEBWATCH_API_URL=http://127.0.0.1:3002/v2 WEBWATCH_API_KEY=ww_... webwatch monitor list`,
    )
    .action(async (options: unknown, command: Command) => {
      const { runServe } = await import('./serve.run.js');
      runtime.exitCode = await runServe(await contextFor(command, runtime), options);
    });
}

export function keysCommand(runtime: Runtime): Command {
  const keys = new Command('keys').description('API keys of webwatch serve (stored hashed in the engine database)');
  keys
    .command('create')
    .description('create a key for a team; the key is printed once and cannot be shown again')
    .requiredOption('--team <team>', 'the team whose monitors the key reaches')
    .option('--allow-local-team', 'allow a key for team "local", the command line\'s own monitors (refused without it)')
    .option('--database <url>', "serve's database, if not the embedded file (default: WEBWATCH_DATABASE_URL, the config's database.url)")
    .action(async (options: unknown, command: Command) => {
      const { runKeysCreate } = await import('./keys.run.js');
      runtime.exitCode = await runKeysCreate(await contextFor(command, runtime), options);
    });
  keys
    .command('list')
    .description('list keys: id, team, created, revoked (never the keys themselves)')
    .option('--database <url>', "serve's database, if not the embedded file (default: WEBWATCH_DATABASE_URL, the config's database.url)")
    .action(async (options: unknown, command: Command) => {
      const { runKeysList } = await import('./keys.run.js');
      runtime.exitCode = await runKeysList(await contextFor(command, runtime), options);
    });
  keys
    .command('revoke')
    .description('revoke a key by id; requests with it get 401 from then on')
    .argument('<id>', 'the key id (from keys list)')
    .option('--database <url>', "serve's database, if not the embedded file (default: WEBWATCH_DATABASE_URL, the config's database.url)")
    .action(async (id: string, options: unknown, command: Command) => {
      const { runKeysRevoke } = await import('./keys.run.js');
      runtime.exitCode = await runKeysRevoke(await contextFor(command, runtime), id, options);
    });
  return keys;
}
