import { z } from 'zod';
import { checkServices, loadConfig } from '../../config/config.js';
import { databaseLocation, openDatabase, setLeaseDuration } from '../../services/database.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';
import { UsageError, WebwatchError } from '../../errors/webwatch-error.js';
import type { CommandContext } from '../context.js';
import { parseFlags } from '../flags.js';
import { version } from '../version.js';

const count = (min: number) => z.coerce.number().int().min(min).optional();
const serveFlags = z.object({
  host: z.string().min(1).optional(),
  port: z.coerce.number().int().min(0).max(65535).optional(),
  allowPrivateTargets: z.boolean().optional(),
  bodyLimit: count(1024),
  rateLimit: count(1),
  concurrency: count(1),
  perHostConcurrency: count(1),
  schedulerOnly: z.boolean().optional(),
  checkConcurrency: count(1),
  jobConcurrency: count(1),
  jitter: z.coerce.number().min(0).optional(),
  drainTimeout: z.coerce.number().min(0).optional(),
  maxConnections: count(1),
  maxConnectionsPerAddress: count(0),
  requestTimeout: z.coerce.number().min(1).optional(),
  keepAliveTimeout: z.coerce.number().min(1).optional(),
  monthlyCredits: count(1),
  monthlyTokens: count(1),
  zdrSurchargeWaived: z.string().optional(),
  logFormat: z.enum(['text', 'json']).optional(),
  role: z.enum(['all', 'api', 'worker']).optional(),
  database: z.string().min(1).optional(),
  interactCode: z.boolean().optional(),
  interactSessions: count(1),
  interactSessionsPerTeam: count(1),
});

const seconds = (value: number | undefined) => (value === undefined ? undefined : value * 1000);
const optional = <K extends string>(key: K, value: number | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, number>));

/** `--zdr-surcharge-waived acme,beta`: the team names, each as `webwatch keys create --team` takes it. */
const teamList = (value: string) =>
  value
    .split(',')
    .map((team) => team.trim())
    .filter((team) => team !== '');

export const SERVE_DEFAULTS = { host: '127.0.0.1', port: 3002 } as const;
export const SCHEDULER_DEFAULTS = { maxConcurrent: 8 } as const;

export async function runServe(context: CommandContext, rawFlags: unknown): Promise<ExitCode> {
  const flags = parseFlags(serveFlags, rawFlags);
  const { io, output } = context;
  if (flags.schedulerOnly && flags.role === 'api') {
    throw new UsageError('--scheduler-only runs scheduled checks without the API, and --role api the API without scheduled checks: give one of them');
  }
  const config = await loadConfig(io.env, io.cwd());
  const { buildServer, SERVER_DEFAULTS } = await import('../../server/app.js');
  const maxConcurrent = flags.checkConcurrency ?? config.scheduler.maxConcurrent ?? SCHEDULER_DEFAULTS.maxConcurrent;
  const jobConcurrency = flags.jobConcurrency ?? config.serve.jobConcurrency ?? SERVER_DEFAULTS.jobConcurrency;
  const db = await openDatabase(databaseLocation(io.env, { flag: flags.database, configUrl: config.database.url }), {
    readConnection: true,
    connections: connectionsFor(maxConcurrent, jobConcurrency),
  });
  const leaseSeconds = Number(io.env.WEBWATCH_LEASE_SECONDS);
  if (Number.isFinite(leaseSeconds) && leaseSeconds > 0) await setLeaseDuration(leaseSeconds * 1000);
  const role = flags.schedulerOnly ? 'worker' : (flags.role ?? 'all');
  // A line a person reads on a terminal; JSON lines for pipes and log collectors.
  const logFormat = flags.logFormat ?? (io.stderr.isTTY ? 'text' : 'json');
  const log = logFormat === 'text' ? (await import('../../ui/serve-log.js')).readableServeLog(io.stderr, output.errorStyle) : io.stderr;
  const server = buildServer({
    db,
    role,
    version: version(),
    env: io.env,
    now: io.now,
    threatPolicy: config.threatPolicy,
    allowPrivateTargets: flags.allowPrivateTargets ?? config.serve.allowPrivateTargets ?? false,
    bodyLimit: flags.bodyLimit ?? config.serve.bodyLimit ?? SERVER_DEFAULTS.bodyLimit,
    rateLimitPerMinute: flags.rateLimit ?? config.serve.rateLimitPerMinute ?? SERVER_DEFAULTS.rateLimitPerMinute,
    concurrencyPerTeam: flags.concurrency ?? config.serve.concurrencyPerTeam ?? SERVER_DEFAULTS.concurrencyPerTeam,
    perHostConcurrency: flags.perHostConcurrency ?? config.serve.perHostConcurrency,
    jobConcurrency,
    drainTimeoutMs: (flags.drainTimeout ?? config.serve.drainTimeoutSeconds ?? SERVER_DEFAULTS.drainTimeoutMs / 1000) * 1000,
    maxConnections: flags.maxConnections ?? config.serve.maxConnections ?? SERVER_DEFAULTS.maxConnections,
    maxConnectionsPerAddress: flags.maxConnectionsPerAddress ?? config.serve.maxConnectionsPerAddress ?? SERVER_DEFAULTS.maxConnectionsPerAddress,
    timeouts: {
      ...optional('requestMs', seconds(flags.requestTimeout ?? config.serve.requestTimeoutSeconds)),
      ...optional('keepAliveMs', seconds(flags.keepAliveTimeout ?? config.serve.keepAliveTimeoutSeconds)),
    },
    ...optional('monthlyCredits', flags.monthlyCredits ?? config.serve.monthlyCredits),
    ...optional('monthlyTokens', flags.monthlyTokens ?? config.serve.monthlyTokens),
    zeroDataRetentionSurchargeWaived:
      flags.zdrSurchargeWaived !== undefined ? teamList(flags.zdrSurchargeWaived) : (config.serve.zeroDataRetentionSurchargeWaived ?? []),
    ...(!output.quiet && { log }),
    ...checkServices(config, io.env),
    interact: { code: flags.interactCode === true, total: flags.interactSessions, perTeam: flags.interactSessionsPerTeam },
    scheduler: {
      maxConcurrent,
      jitterMs: (flags.jitter ?? config.scheduler.jitterSeconds ?? 0) * 1000,
    },
  });
  const host = flags.host ?? config.serve.host ?? SERVE_DEFAULTS.host;
  const port = flags.port ?? config.serve.port ?? SERVE_DEFAULTS.port;
  if (flags.schedulerOnly) {
    output.info('webwatch serve: running monitors on their schedules, without the API (Ctrl-C or SIGTERM to stop)');
  } else {
    let address: string;
    try {
      address = await server.app.listen({ host, port });
    } catch (error) {
      await server.drain();
      await db.close();
      throw new WebwatchError(`cannot listen on ${host}:${port}: ${(error as Error).message}`);
    }
    if (output.json) output.jsonDocument({ url: `${address}/v2`, version: version(), role, database: db.location });
    else {
      const doing = {
        all: `the v2 API at ${address}/v2, and the scheduler`,
        api: `the v2 API at ${address}/v2 (role api: checks, queued work and deliveries are left to workers)`,
        worker: `a worker running scheduled checks, queued work and deliveries (health at ${address}/health)`,
      }[role];
      output.info(`webwatch serve: ${doing}, on ${db.location} (Ctrl-C or SIGTERM to stop)`);
    }
  }

  // Stopping drains: no new requests, running ones, crawls and checks finish, then the store closes.
  await new Promise<void>((resolve) => {
    process.removeAllListeners('SIGINT');
    const stop = () => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  output.info('webwatch serve: stopping; waiting for running requests and checks');
  await server.drain();
  await db.close();
  return EXIT.ok;
}

/** The flags of each command this file runs, by command path: test/cli/flags-declared-once.test.ts holds them to the commander declarations. */
export const flagSchemas = { serve: serveFlags };

/**
 * The PostgreSQL connections a serve process keeps: one for each check and job it may run at
 * once, and a few for the API, the claims and the deliveries; at least the 10 it had before.
 * With fewer, checks queue for a connection, and with the database across a network that queue
 * was what bounded a worker (bench/README.md, workers across a network).
 */
export function connectionsFor(checkConcurrency: number, jobConcurrency: number): number {
  return Math.max(10, checkConcurrency + jobConcurrency + 4);
}
