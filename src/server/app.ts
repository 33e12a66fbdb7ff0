/**
 * `webwatch serve`: the v2 HTTP API (DESIGN §5) over each team's services (src/services), and the worker that runs
 * its queued work. Fastify, chosen as the fastest well-kept Node framework with schema-free
 * routing we can validate with our own zod schemas, a body limit, and graceful close. This
 * module puts the parts together: the body parser and error replies (replies.ts), the guards
 * (guards.ts), each resource's routes (routes/), each team's services (team-services.ts) and the worker
 * (work/worker.ts). Every request but the health route carries a bearer key; everything it
 * touches belongs to the key's team.
 */
import { randomUUID } from 'node:crypto';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify';
import type { CheckServices } from '../config/config.js';
import { artifactsDir, servedArtifacts } from '../engine/browser/artifacts.js';
import { mediaLinks } from './media-links.js';
import { interactRoutes, interactServing } from './interact.js';
import { interactSessions, SESSION_DEFAULTS, type SessionLimits } from '../engine/interact/sessions.js';
import { refusePrivateTargets } from '../engine/fetch/network-policy.js';
import { keyStore } from '../engine/keys/key-store.js';
import type { Scheduler, Timers } from '../engine/scheduler/scheduler.js';
import type { Db } from '../engine/store/database.js';
import { scrapeDocumentStore } from '../engine/store/scrape-documents.js';
import type { OrganizationThreatPolicy } from '../engine/threat/threat-protection.js';
import { DATABASE_CORRUPT, ERROR_MESSAGES } from '../spec/errors.js';
import { servicesByTeam } from './team-services.js';
import { bearerKey, keyGuard, workLimits } from './guards.js';
import { errorBody } from './http.js';
import { INTEGRITY_CHECK_INTERVAL_MS, watchIntegrity } from './integrity-watch.js';
import { answerClientError, answerRoutingError, errorReplies, MAX_PATH_PARAM_LENGTH, parseJsonBody } from './replies.js';
import { agentRoutes } from './routes/agents.js';
import { artifactRoutes } from './routes/artifacts.js';
import { batchRoutes } from './routes/batch.js';
import { crawlRoutes } from './routes/crawls.js';
import { extractRoutes } from './routes/extract.js';
import type { RouteDeps } from './routes/deps.js';
import { monitorRoutes } from './routes/monitors.js';
import { scrapeRoutes } from './routes/scrape.js';
import { parseRoutes } from './routes/parse.js';
import { searchRoutes } from './routes/search.js';
import { usageRoutes } from './routes/usage.js';
import { databaseHealth } from './shared-limits.js';
import { startWorker } from './work/worker.js';
import { pageSlots } from '../engine/store/page-slots.js';
import { capConnections } from '../lib/connection-caps.js';
import type { Env } from '../lib/env.js';

/** Webhook signing, SMTP, the judge's model, search and onlyMeaningfulChanges come from the config as CheckServices. */
export interface ServerOptions extends CheckServices {
  db: Db;
  version: string;
  env: Env;
  now(): Date;
  threatPolicy?: OrganizationThreatPolicy;
  /** Lets scrapes, crawls and monitors reach private, loopback and link-local addresses. */
  allowPrivateTargets: boolean;
  /** Largest request body, in bytes: beyond it, 413 Payload Too Large. */
  bodyLimit: number;
  /** Requests per key per minute: beyond it, 429 Rate limit exceeded. */
  rateLimitPerMinute: number;
  /**
   * Page scrapes each team runs at once (page-slots.ts): each page of its crawls and batches waits
   * for a slot; a direct scrape, search or map finding none is 429 Concurrency limit reached.
   */
  concurrencyPerTeam: number;
  /** Pages of one host a crawl fetches at once (politeness); by default as many as the team's slots. */
  perHostConcurrency?: number | undefined;
  /** On drain, how long running crawls may go on before they are stopped (failed, with the reason). */
  drainTimeoutMs?: number;
  /** Credits each team may use per calendar month (UTC); beyond them, new work is 402. None: no limit. */
  monthlyCredits?: number;
  /** Model tokens each team may use per calendar month; beyond them, agent jobs are 402. */
  monthlyTokens?: number;
  /** Teams whose requests with zeroDataRetention pay no surcharge (otherwise +1 credit a page, as the hosted API bills it). */
  zeroDataRetentionSurchargeWaived?: readonly string[];
  /** Request log lines (method, path, status, time; never headers) go here. */
  log?: { write(line: string): unknown };
  /** Runs every team's monitors on their schedules; off when omitted. */
  scheduler?: { maxConcurrent: number; jitterMs: number; timers?: Timers };
  /**
   * How long a client may take to send a request's headers, and its whole request; how long an
   * idle keep-alive connection stays open (SERVER_DEFAULTS, docs/security.md).
   */
  timeouts?: Partial<ConnectionTimeouts>;
  /**
   * Connections open at once: when they are all open, a newcomer takes the place of the oldest one
   * without a whole request's headers, or of the idle keep-alive ones; it is closed when every one
   * has a request under way.
   */
  maxConnections?: number;
  /**
   * Connections of one client address (an IPv6 /64) at once, beyond which a new one is closed as it
   * arrives; 0 for no cap (behind a reverse proxy, every client has the proxy's address).
   */
  maxConnectionsPerAddress?: number;
  /** Queued crawls, batches, agent jobs and manual checks this process runs at once (default 20). */
  jobConcurrency?: number;
  /**
   * What this process does (docs/serve.md, "Running on several machines"): `all` (the default) serves
   * the API, runs the scheduler, queued work and deliveries; `api` serves the API only and
   * queues its work for workers; `worker` runs scheduled checks, queued work and deliveries, and
   * answers the health route only.
   */
  role?: ServeRole;
  /** How often the SQLite file's pages are checked for the health route (default hourly; the first check runs at start). */
  integrityCheckIntervalMs?: number;
  /**
   * Interact sessions (POST /v2/scrape/{id}/interact): `code` runs callers' programs, in
   * bubblewrap (off by default: serve --interact-code); the bounds of open sessions per team and
   * in all, and how long an idle one stays open (engine/interact/sessions.ts, SESSION_DEFAULTS).
   */
  interact?: { code?: boolean } & Partial<SessionLimits>;
}

export type ServeRole = 'all' | 'api' | 'worker';

export interface ConnectionTimeouts {
  /** From a connection's first byte (or the end of its last request) to the end of the headers. */
  headersMs: number;
  /** From a request's first byte to the end of its body: slow senders cannot hold a socket. */
  requestMs: number;
  /** An idle keep-alive connection: longer than the idle timeouts of common proxies (60 s), so that they close first. */
  keepAliveMs: number;
}

export const SERVER_DEFAULTS = {
  bodyLimit: 1024 * 1024,
  rateLimitPerMinute: 6000,
  concurrencyPerTeam: 20,
  drainTimeoutMs: 30_000,
  jobConcurrency: 20,
  timeouts: { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 72_000 } satisfies ConnectionTimeouts,
  maxConnections: 1000,
  maxConnectionsPerAddress: 100,
} as const;

/**
 * How often Node looks for requests past their headers or request timeout (its default, 30 s,
 * would let a slow client hold its socket four times longer than the 10 s allowed).
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/** Request log lines: method, path without its query (which can hold tokens), and status. */
const LOG_SERIALIZERS = {
  req: (request: { method: string; url: string; id: string }) => ({ method: request.method, path: request.url.split('?', 1)[0], id: request.id }),
  res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
};

/** Each resource's routes, a Fastify plugin of their own. */
const ROUTES: FastifyPluginAsync<RouteDeps>[] = [
  scrapeRoutes,
  parseRoutes,
  artifactRoutes,
  searchRoutes,
  crawlRoutes,
  batchRoutes,
  monitorRoutes,
  agentRoutes,
  extractRoutes,
  usageRoutes,
];

export interface WebwatchServer {
  app: FastifyInstance;
  scheduler: Scheduler | undefined;
  /** Settles once jobs of stopped workers are recovered and the scheduler has started. */
  ready: Promise<void>;
  /** Stops taking requests, lets in-flight requests, checks and crawls finish. */
  drain(): Promise<void>;
}

export function buildServer(options: ServerOptions): WebwatchServer {
  const role = options.role ?? 'all';
  const serves = role !== 'worker';
  const keys = keyStore(options.db);
  const timeouts = { ...SERVER_DEFAULTS.timeouts, ...options.timeouts };
  const app = Fastify({
    bodyLimit: options.bodyLimit,
    // Slow or idle clients must not hold sockets: the headers, then the whole request, each have
    // a time limit. The answer itself has none here: a scrape may rightly take its `timeout`.
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: {
      headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, timeouts.headersMs),
    },
    logger: options.log ? { stream: options.log, level: 'info', serializers: LOG_SERIALIZERS } : false,
    // Request ids in logs; no request bodies, headers or query strings are logged.
    genReqId: () => randomUUID(),
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    // Failures found before routing answer with the §7.1 body like every other answer, once the key is known.
    frameworkErrors: (error, request, reply) => {
      void bearerKey(keys, request.headers.authorization)
        .catch(() => undefined)
        .then((key) => answerRoutingError(error, reply as unknown as FastifyReply, key !== undefined));
    },
    clientErrorHandler: answerClientError,
  });
  // One client cannot take every connection (docs/security.md, "Connections").
  capConnections(app.server, {
    total: options.maxConnections ?? SERVER_DEFAULTS.maxConnections,
    perAddress: options.maxConnectionsPerAddress ?? SERVER_DEFAULTS.maxConnectionsPerAddress,
  });
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJsonBody);
  // The crawl and batch watchers (WebSocket); clients send nothing but the handshake.
  void app.register(websocket, { options: { maxPayload: 1024 } });
  void app.register(errorReplies, { bodyLimit: options.bodyLimit });
  void app.register(keyGuard, { keys, db: options.db, rateLimitPerMinute: options.rateLimitPerMinute, serves });
  const slots = pageSlots({ db: options.db, limit: options.concurrencyPerTeam, now: options.now });
  void app.register(workLimits, {
    db: options.db,
    now: options.now,
    concurrencyPerTeam: options.concurrencyPerTeam,
    monthlyCredits: options.monthlyCredits,
    monthlyTokens: options.monthlyTokens,
    pageSlots: slots,
  });

  // Interact sessions are this process's: pages of its browser, closed when it drains.
  const sessions = interactSessions({ ...SESSION_DEFAULTS, ...withoutUndefined(options.interact ?? {}) });
  const interacting = interactServing(options.db, options.now, sessions, options.interact?.code ? 'sandboxed' : 'refused');
  const services = servicesByTeam({ ...options, interact: interacting.host });
  const worker = startWorker({
    db: options.db,
    env: options.env,
    now: options.now,
    version: options.version,
    services,
    works: role !== 'api',
    jobConcurrency: options.jobConcurrency ?? SERVER_DEFAULTS.jobConcurrency,
    pageSlots: slots,
    perHostConcurrency: options.perHostConcurrency,
    scheduler: options.scheduler,
    webhookSecret: options.webhookSecret,
    smtp: options.smtp,
    drainTimeoutMs: options.drainTimeoutMs ?? SERVER_DEFAULTS.drainTimeoutMs,
    log: app.log,
  });

  const integrity = watchIntegrity(options.db, {
    intervalMs: options.integrityCheckIntervalMs ?? INTEGRITY_CHECK_INTERVAL_MS,
    now: options.now,
    onDamage: (problems) => app.log.error({ database: options.db.location, problems }, 'the database is damaged'),
    onError: (error) => app.log.error({ err: error }, "checking the database's integrity"),
  });
  /** The process's role, and whether the database answers with sound pages: 503 when it does not. */
  const health = async (_request: FastifyRequest, reply: FastifyReply) => {
    const database = await databaseHealth(options.db, integrity?.state());
    if (database.ok) return reply.code(200).send({ success: true, status: 'ok', version: options.version, role, database });
    // Like every other error answer, with its message and code; the database's state beside them.
    const code = database.integrity?.status === 'damaged' ? DATABASE_CORRUPT : 'DATABASE_UNAVAILABLE';
    return reply
      .code(503)
      .send({ ...errorBody(503, ERROR_MESSAGES.unavailable, undefined, code), status: 'degraded', version: options.version, role, database });
  };
  void app.register(async (scoped) => {
    scoped.get('/health', health);
    scoped.get('/v2/health', health);
  });

  // A worker answers the health route only.
  if (serves) {
    const checkUrl = options.allowPrivateTargets ? undefined : refusePrivateTargets;
    const links = mediaLinks(options.env);
    const deps: RouteDeps = {
      db: options.db,
      env: options.env,
      now: options.now,
      servicesOf: (request) => services.forKey(request.team, request.keyId),
      work: {
        ...worker.queue,
        context: (request) => ({ keyId: request.keyId, origin: `${request.protocol}://${request.host}`, privateTargetsAllowed: options.allowPrivateTargets }),
      },
      ...(checkUrl && { checkUrl }),
      served: (request, value) => {
        const origin = `${request.protocol}://${request.host}`;
        return servedArtifacts(value, artifactsDir(options.env, request.team), `${origin}/v2/artifacts/`, (name) =>
          links.url(origin, request.team, name, options.now().getTime()),
        );
      },
      mediaLinks: links,
      rememberScrape: interacting.remember,
    };
    for (const routes of ROUTES) void app.register(routes, deps);
    interactRoutes(app, deps, sessions);
  }

  return {
    app,
    scheduler: worker.scheduler,
    ready: worker.ready,
    async drain() {
      await worker.ready;
      integrity?.stop();
      await app.close();
      // Open interact sessions end (their profiles written back, their minutes billed).
      await sessions.closeAll();
      // The scrape documents still waiting for their group's write.
      await scrapeDocumentStore(options.db).flush();
      await worker.drain();
      slots.close();
    },
  };
}

/** The fields of `value` that are set: an option left undefined keeps its default. */
function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
