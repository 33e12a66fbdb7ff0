/**
 * `webwatch serve`: the v2 HTTP API (DESIGN §5) over the local engine. Fastify, chosen as the
 * fastest well-kept Node framework with schema-free routing we can validate with our own zod
 * schemas, a body limit, and graceful close. Every request but the health route carries a
 * bearer key; everything it touches belongs to the key's team.
 */
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { LOCAL_TEAM, localBackend, type LocalBackend } from '../backend/local/local-backend.js';
import { crawlJobStore } from '../engine/crawl/crawl-jobs.js';
import { refusePrivateTargets } from '../engine/fetch/network-policy.js';
import { keyStore } from '../engine/keys/key-store.js';
import { checkStore } from '../engine/monitors/check-store.js';
import { deliverDue } from '../engine/notify/deliver.js';
import { outboxStore } from '../engine/notify/outbox.js';
import { startScheduler, type Scheduler, type Timers } from '../engine/scheduler/scheduler.js';
import { DatabaseDamagedError, type Db } from '../engine/store/database.js';
import { leaseDuration } from '../engine/store/leases.js';
import { databaseHealth, requestCounter } from './shared-limits.js';
import { INTEGRITY_CHECK_INTERVAL_MS, watchIntegrity } from './integrity-watch.js';
import { failureOf, SERVER_STOPPED, type QueuedRun } from './routes/jobs.js';
import { startWorkRunner, type WorkHandlers } from './work-runner.js';
import { announce, SCHEDULE_CHANNEL, unfinishedOfKey, WORK_CHANNEL, type RunContext } from '../engine/store/work-queue.js';
import { agentStore } from '../engine/agent/agent-store.js';
import type { OrganizationThreatPolicy } from '../engine/threat/threat-protection.js';
import type { CheckServices } from '../config/config.js';
import { WebwatchError } from '../errors/webwatch-error.js';
import { DATABASE_CORRUPT, ERROR_MESSAGES, TARGET_FAILURE_CODES } from '../spec/errors.js';
import { MAX_JSON_DEPTH } from '../spec/limits.js';
import { pathBeyondDepth } from '../spec/depth.js';
import { unstorableTextIn } from '../spec/stored-text.js';
import { firstInvalidUtf8Byte } from '../core/definitions/utf8.js';
import { agentRoutes } from './routes/agents.js';
import { closeBrowserIfOpen } from '../engine/browser/lifetime.js';
import { artifactsDir, pruneArtifacts, servedArtifacts } from '../engine/browser/artifacts.js';
import { artifactRoutes } from './routes/artifacts.js';
import websocket from '@fastify/websocket';
import { crawlRoutes, runCrawl } from './routes/crawls.js';
import { batchRoutes, runBatch } from './routes/batch.js';
import type { RouteDeps } from './routes/deps.js';
import { monitorRoutes } from './routes/monitors.js';
import { scrapeRoutes } from './routes/scrape.js';
import { searchRoutes } from './routes/search.js';
import { usageRoutes } from './routes/usage.js';
import { monthOf, usageStore } from '../engine/usage/usage-store.js';
import { errorBody, invalid } from './http.js';
import { formatPath } from '../spec/schemas.js';

/** Webhook signing, SMTP, the judge's model, search and onlyMeaningfulChanges come from the config as CheckServices. */
export interface ServerOptions extends CheckServices {
  db: Db;
  version: string;
  env: Readonly<Record<string, string | undefined>>;
  now(): Date;
  threatPolicy?: OrganizationThreatPolicy;
  /** Lets scrapes, crawls and monitors reach private, loopback and link-local addresses. */
  allowPrivateTargets: boolean;
  /** Largest request body, in bytes: beyond it, 413 Payload Too Large. */
  bodyLimit: number;
  /** Requests per key per minute: beyond it, 429 Rate limit exceeded. */
  rateLimitPerMinute: number;
  /** Scrapes, crawls and check runs per key at once: beyond it, 429 Concurrency limit reached. */
  concurrencyPerKey: number;
  /** On drain, how long running crawls may go on before they are stopped (failed, with the reason). */
  drainTimeoutMs?: number;
  /** Credits each team may use per calendar month (UTC); beyond them, new work is 402. None: no limit. */
  monthlyCredits?: number;
  /** Model tokens each team may use per calendar month; beyond them, agent jobs are 402. */
  monthlyTokens?: number;
  /** Request log lines (method, path, status, time; never headers) go here. */
  log?: { write(line: string): unknown };
  /** Runs every team's monitors on their schedules; off when omitted. */
  scheduler?: { maxConcurrent: number; jitterMs: number; timers?: Timers };
  /**
   * How long a client may take to send a request's headers, and its whole request; how long an
   * idle keep-alive connection stays open (SERVER_DEFAULTS, README "Security").
   */
  timeouts?: Partial<ConnectionTimeouts>;
  /** Connections open at once: beyond them, new connections are closed as they arrive. */
  maxConnections?: number;
  /** Queued crawls, batches, agent jobs and manual checks this process runs at once (default 20). */
  jobConcurrency?: number;
  /**
   * What this process does (README, "Running on several machines"): `all` (the default) serves
   * the API, runs the scheduler, queued work and deliveries; `api` serves the API only and
   * queues its work for workers; `worker` runs scheduled checks, queued work and deliveries, and
   * answers the health route only.
   */
  role?: ServeRole;
  /** How often the SQLite file's pages are checked for the health route (default hourly; the first check runs at start). */
  integrityCheckIntervalMs?: number;
}

export type ServeRole = 'all' | 'api' | 'worker';

/** How soon deliveries held by another worker are looked at again. */
const DELIVERY_RECHECK_MS = 250;
/**
 * How often a worker looks for deliveries it was not told of: those of checks that another
 * process (an API process, say) finished.
 */
const DELIVERY_POLL_MS = 5_000;

export interface ConnectionTimeouts {
  /** From a connection's first byte (or the end of its last request) to the end of the headers. */
  headersMs: number;
  /** From a request's first byte to the end of its body: slow senders cannot hold a socket. */
  requestMs: number;
  /** An idle keep-alive connection: longer than the idle timeouts of common proxies (60 s), so that they close first. */
  keepAliveMs: number;
}

export const SERVER_DEFAULTS = {
  bodyLimit: 1024 * 1024, rateLimitPerMinute: 6000, concurrencyPerKey: 20, drainTimeoutMs: 30_000, jobConcurrency: 20,
  timeouts: { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 72_000 } satisfies ConnectionTimeouts,
  maxConnections: 1000,
} as const;

/**
 * How often Node looks for requests past their headers or request timeout (its default, 30 s,
 * would let a slow client hold its socket four times longer than the 10 s allowed).
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

declare module 'fastify' {
  interface FastifyRequest {
    team: string;
    keyId: string;
  }
}

export interface WebwatchServer {
  app: FastifyInstance;
  scheduler: Scheduler | undefined;
  /** Settles once jobs of stopped workers are recovered and the scheduler has started. */
  ready: Promise<void>;
  /** Stops taking requests, lets in-flight requests, checks and crawls finish. */
  drain(): Promise<void>;
}


/** Ids are UUIDs (36 characters); a longer path segment cannot name anything. */
const MAX_PATH_PARAM_LENGTH = 256;
export const DATABASE_DAMAGED = `${ERROR_MESSAGES.internal}: the server's database is damaged, and its operator must restore it`;
const ROUTE_NOT_OFFERED = 'webwatch serve answers the routes listed in its README ("Serving the API"); this one is not among them';
export const LOCAL_TEAM_REFUSED = 'keys of team "local" reach the command line\'s own monitors and are refused unless created with --allow-local-team';


/** Request log lines: method, path without its query (which can hold tokens), and status. */
const LOG_SERIALIZERS = {
  req: (request: { method: string; url: string; id: string }) => ({ method: request.method, path: request.url.split('?', 1)[0], id: request.id }),
  res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
};

/** Node's own answers to malformed requests (431 for huge headers, 400, 408), as §7.1 bodies. */
function answerClientError(error: Error & { code?: string }, socket: import('node:stream').Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] = error.code === 'HPE_HEADER_OVERFLOW'
    ? [431, 'Request Header Fields Too Large']
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, ERROR_MESSAGES.requestTimeout] : [400, ERROR_MESSAGES.badRequest];
  const body = JSON.stringify(errorBody(status, message));
  if (socket.writable) socket.write(`HTTP/1.1 ${status} ${message}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  socket.destroy();
}

/**
 * The JSON body parser: JSON.parse, then a bound on nesting (deep enough for any real schema or
 * metadata) checked without recursion, so that no body can exhaust the stack further on.
 */
function parseJsonBody(_request: FastifyRequest, bytes: Buffer, done: (error: Error | null, body?: unknown) => void): void {
  if (bytes.length === 0) return done(null, undefined);
  // Invalid UTF-8 would be decoded to U+FFFD and stored so: it is refused, with where it starts.
  if (!isUtf8(bytes)) return done(invalid([{ path: [], message: `the body is not valid UTF-8 (at byte ${firstInvalidUtf8Byte(bytes)})` }]));
  const text = bytes.toString('utf8');
  // As Fastify's own parser does: a "__proto__" key is refused, never merged into an object's prototype.
  if (/"__proto__"\s*:/.test(text)) {
    return done(new WebwatchError(ERROR_MESSAGES.badRequest, { status: 400, details: [{ path: '', message: 'the key "__proto__" is not allowed' }] }));
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return done(new WebwatchError(ERROR_MESSAGES.badRequest, { status: 400, details: [{ path: '', message: `the body is not valid JSON: ${(error as Error).message}` }] }));
  }
  const tooDeep = pathBeyondDepth(body, MAX_JSON_DEPTH);
  if (tooDeep) {
    return done(new WebwatchError(ERROR_MESSAGES.badRequest, { status: 400, details: [{ path: formatPath(tooDeep), message: `nests deeper than ${MAX_JSON_DEPTH} levels` }] }));
  }
  const unstorable = unstorableTextIn(body);
  if (unstorable) return done(invalid([unstorable]));
  done(null, body);
}

export function buildServer(options: ServerOptions): WebwatchServer {
  const role = options.role ?? 'all';
  const serves = role !== 'worker';
  const works = role !== 'api';
  const keys = keyStore(options.db);
  const isUpgrade = (request: FastifyRequest) => request.headers.upgrade?.toLowerCase() === 'websocket';
  const subprotocolKey = (header: string | string[] | undefined) => (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim() ?? '';
  // Read from the database at every request: a key revoked by any process is refused by all at once.
  const keyOf = async (authorization: string | undefined) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    return match ? keys.identify(match[1]!) : undefined;
  };
  const backends = new Map<string, LocalBackend>();
  const checkUrl = options.allowPrivateTargets ? undefined : refusePrivateTargets;
  /**
   * The engine for a key's requests, or for a team's scheduled checks. What a key asks for
   * follows serve's private-address rule. The scheduled checks of the command line's own team
   * (`local`) keep the command line's rule, as `monitor run --due` would run them: its monitors
   * are the operator's.
   */
  const backendOf = (team: string, keyId: string | undefined, work: 'request' | 'scheduled' = 'request') =>
    backendFor(team, checkUrl !== undefined && !(work === 'scheduled' && team === LOCAL_TEAM), keyId);
  /**
   * The engine for a team under a private-address rule, working for one key (what it spends is
   * counted under the key), or for none (scheduled checks). Queued work keeps the rule of the
   * process that queued it, and the key that queued it.
   */
  const backendFor = (team: string, guarded: boolean, keyId: string | undefined) => {
    const id = `${team}\n${guarded}\n${keyId ?? ''}`;
    let backend = backends.get(id);
    if (!backend) {
      backend = localBackend({
        version: options.version, env: options.env, now: options.now, team, db: options.db, exactMonitorRefs: true,
        ...(keyId && { keyId }),
        ...(options.threatPolicy && { threatPolicy: options.threatPolicy }),
        ...(guarded && { checkUrl: refusePrivateTargets, publicAddressesOnly: true }),
        ...(options.llm && { llm: options.llm }),
        ...(options.search && { search: options.search }),
        ...(options.browser && { browser: options.browser }),
        ...(options.onlyMeaningfulChanges && { notifications: { waitSeconds: 0, onlyMeaningful: true } }),
      });
      backends.set(id, backend);
    }
    return backend;
  };
  const crawls = crawlJobStore(options.db);
  const batches = crawlJobStore(options.db, 'batch');
  // Jobs of workers that stopped are failed: now, and again as leases run out.
  const recoverJobs = () => Promise.all([crawls.recoverInterrupted(options.now()), batches.recoverInterrupted(options.now()), crawls.purgeExpired(options.now())])
    .catch((error: unknown) => app.log.error({ err: error }, 'recovering interrupted jobs'));
  const recovering = setInterval(() => void recoverJobs(), Math.max(1000, leaseDuration() / 2)).unref();

  const timeouts = { ...SERVER_DEFAULTS.timeouts, ...options.timeouts };
  const app = Fastify({
    bodyLimit: options.bodyLimit,
    // Slow or idle clients must not hold sockets: the headers, then the whole request, each have
    // a time limit. The answer itself has none here: a scrape may rightly take its `timeout`.
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: { headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs), connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, timeouts.headersMs) },
    logger: options.log ? { stream: options.log, level: 'info', serializers: LOG_SERIALIZERS } : false,
    // Request ids in logs; no request bodies, headers or query strings are logged.
    genReqId: () => randomUUID(),
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    // Failures found before routing answer with the §7.1 body like every other answer.
    frameworkErrors: (error, frameworkRequest, frameworkReply) => {
      const reply = frameworkReply as unknown as FastifyReply;
      // The key is checked first, as for every other request: a stranger learns nothing of the routes.
      void keyOf(frameworkRequest.headers.authorization).catch(() => undefined).then((key) => {
        if (!key) return reply.code(401).send(errorBody(401, ERROR_MESSAGES.unauthorized));
        if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
          return reply.code(414).send(errorBody(414, 'URI Too Long', { reason: `a path segment is longer than ${MAX_PATH_PARAM_LENGTH} characters` }));
        }
        return reply.code(400).send(errorBody(400, ERROR_MESSAGES.badRequest, [{ path: '', message: 'the request path is not a valid URL path' }]));
      });
    },
    clientErrorHandler: answerClientError,
  });
  // Beyond the cap, Node closes a new connection as it arrives, before reading a byte of it.
  app.server.maxConnections = options.maxConnections ?? SERVER_DEFAULTS.maxConnections;
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJsonBody);
  // The crawl and batch watchers (WebSocket); clients send nothing but the handshake.
  void app.register(websocket, { options: { maxPayload: 1024 } });

  // Per-key rate (fixed one-minute windows) and concurrency.
  const countRequest = requestCounter(options.db);
  const inFlight = new Map<string, number>();

  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?', 1)[0];
    // A worker answers nothing but health: its 404 needs no key and counts against none.
    if (path === '/health' || path === '/v2/health' || !serves) return;
    // A WebSocket cannot carry an Authorization header from a browser or undici: the hosted SDK's
    // watcher sends the key as the subprotocol, so an upgrade may present it there.
    const key = (await keyOf(request.headers.authorization)) ?? (isUpgrade(request) ? await keyOf(`Bearer ${subprotocolKey(request.headers['sec-websocket-protocol'])}`) : undefined);
    if (!key) {
      await reply.code(401).send(errorBody(401, ERROR_MESSAGES.unauthorized));
      return reply;
    }
    if (key.team === LOCAL_TEAM && !key.grantsLocalTeam) {
      await reply.code(403).send(errorBody(403, ERROR_MESSAGES.forbidden, { reason: LOCAL_TEAM_REFUSED }, 'LOCAL_TEAM_REFUSED'));
      return reply;
    }
    request.team = key.team;
    request.keyId = key.id;
    const { count, windowStart } = await countRequest(request.keyId, Date.now());
    if (count > options.rateLimitPerMinute) {
      const retryAfter = Math.max(1, Math.ceil((windowStart + 60_000 - Date.now()) / 1000));
      await reply.code(429).header('retry-after', String(retryAfter)).send(errorBody(429, ERROR_MESSAGES.rateLimited, { limitPerMinute: options.rateLimitPerMinute }));
      return reply;
    }
    return undefined;
  });

  const usage = usageStore(options.db);
  /** Whether the team has used its month's credits (or tokens); answers 402 when it has. */
  const outOfCredits = async (request: FastifyRequest, reply: FastifyReply) => {
    if (options.monthlyCredits === undefined && options.monthlyTokens === undefined) return false;
    const { start, end } = monthOf(options.now());
    const used = await usage.totals(request.team, start, end);
    const credits = options.monthlyCredits !== undefined && used.credits >= options.monthlyCredits;
    const tokens = options.monthlyTokens !== undefined && used.tokens >= options.monthlyTokens && request.url.startsWith('/v2/agent');
    if (!credits && !tokens) return false;
    void reply.code(402).send(errorBody(402, ERROR_MESSAGES.paymentRequired, {
      reason: credits ? `the team has used its ${options.monthlyCredits} credits of this month` : `the team has used its ${options.monthlyTokens} model tokens of this month`,
      periodEnd: end.toISOString(),
    }));
    return true;
  };

  /**
   * The key's work at once: its requests this process answers (scrapes, searches, maps), and its
   * crawls, batches, agent jobs and checks queued or running in any process (counted in the database).
   */
  const atOnce = async (keyId: string) => (inFlight.get(keyId) ?? 0) + (await unfinishedOfKey(options.db, keyId));
  /** Whether the key has all the jobs it may run at once (429), or its team no credits left (402). */
  const tooBusy = async (request: FastifyRequest, reply: FastifyReply) => {
    if (await outOfCredits(request, reply)) return true;
    if ((await atOnce(request.keyId)) < options.concurrencyPerKey) return false;
    void reply.code(429).header('retry-after', '1').send(errorBody(429, ERROR_MESSAGES.concurrencyLimited, { limit: options.concurrencyPerKey }));
    return true;
  };

  /** Runs `work` as one of the key's concurrent jobs, or answers 429. */
  async function limited<T>(request: FastifyRequest, reply: FastifyReply, work: () => Promise<T>): Promise<T | FastifyReply> {
    if (await tooBusy(request, reply)) return reply;
    const current = inFlight.get(request.keyId) ?? 0;
    inFlight.set(request.keyId, current + 1);
    try {
      return await work();
    } finally {
      const left = (inFlight.get(request.keyId) ?? 1) - 1;
      if (left === 0) inFlight.delete(request.keyId);
      else inFlight.set(request.keyId, left);
    }
  }

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (error instanceof DatabaseDamagedError) {
      // The log names the file for the operator; a client learns what failed and why, not where the server keeps its data.
      request.log.error({ err: error }, 'the database is damaged');
      return reply.code(500).send(errorBody(500, DATABASE_DAMAGED, { reason: error.reason }, DATABASE_CORRUPT));
    }
    if (error instanceof WebwatchError && error.status !== undefined) {
      return reply.code(error.status).send(errorBody(error.status, error.message, error.details, error.code));
    }
    if (error instanceof WebwatchError && error.code && TARGET_FAILURE_CODES.has(error.code)) {
      // The target site failed, not the server: the code and message say how.
      return reply.code(502).send(errorBody(502, error.message, undefined, error.code));
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send(errorBody(413, ERROR_MESSAGES.payloadTooLarge, { limitBytes: options.bodyLimit }));
    }
    if (error.statusCode === 415) return reply.code(415).send(errorBody(415, 'Unsupported Media Type', { expected: 'application/json' }));
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      // Malformed JSON and other bad bodies.
      return reply.code(400).send(errorBody(400, ERROR_MESSAGES.badRequest, [{ path: '', message: error.message }]));
    }
    request.log.error({ err: error }, 'unhandled error');
    // An engine failure with a code of its own (a missing browser, a model's bad answer) says which.
    if (error instanceof WebwatchError && error.code) return reply.code(500).send(errorBody(500, ERROR_MESSAGES.internal, { reason: error.message }, error.code));
    return reply.code(500).send(errorBody(500, ERROR_MESSAGES.internal));
  });
  // A route this server does not have says so, unlike an unknown id of a route it has.
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody(404, `${ERROR_MESSAGES.notFound}: this server does not offer ${request.method} ${request.url.split('?', 1)[0]}`, { reason: ROUTE_NOT_OFFERED }, 'ROUTE_NOT_FOUND')));

  // Notifications: delivered after each check, retried when their next attempt is due.
  const outbox = outboxStore(options.db);
  let delivering: Promise<void> | undefined;
  let deliveryTimer: NodeJS.Timeout | undefined;
  // Screenshots and PDFs are kept a day, like crawl results.
  const pruning = setInterval(() => void pruneArtifacts(options.env, options.now().getTime()), 60 * 60 * 1000).unref();
  void pruneArtifacts(options.env, options.now().getTime());
  let closing = false;
  const planDeliveries = async () => {
    if (deliveryTimer) clearTimeout(deliveryTimer);
    const next = await outbox.nextAttemptAt().catch(() => undefined);
    if (closing) return;
    // Deliveries claimed by another worker stay due until it records them: look again soon, not at once.
    const wait = next ? Math.max(DELIVERY_RECHECK_MS, Date.parse(next) - options.now().getTime()) : DELIVERY_POLL_MS;
    deliveryTimer = setTimeout(deliver, Math.min(wait, DELIVERY_POLL_MS)).unref();
  };
  function deliver() {
    if (closing || delivering || !works) return;
    delivering = deliverDue({
      outbox, now: options.now, version: options.version,
      ...(options.webhookSecret && { secret: options.webhookSecret }),
      ...(options.smtp && { smtp: options.smtp }),
    })
      .then(() => undefined, (error: unknown) => app.log.error({ err: error }, 'delivering notifications'))
      .finally(() => {
        delivering = undefined;
        void planDeliveries();
      });
  }
  const afterCheck = <T>(work: Promise<T>) => work.finally(deliver);

  /** The engine a claimed job runs on: its team's, under the rule of the process that queued it, for the key that queued it. */
  const engineFor = (team: string, context: RunContext | undefined) => (context ? backendFor(team, !context.privateTargetsAllowed, context.keyId) : backendOf(team, undefined));
  const handlers: WorkHandlers = {
    async crawl(id, signal) {
      const claimed = await crawls.claimed(id);
      if (!claimed) return;
      const { job, kind, options: stored, context } = claimed;
      const store = kind === 'batch' ? batches : crawls;
      const artifactsUrl = `${context?.origin ?? ''}/v2/artifacts/`;
      const run: QueuedRun = {
        backend: engineFor(job.team, context), signal, now: options.now,
        served: (value) => servedArtifacts(value, artifactsDir(options.env, job.team), artifactsUrl),
      };
      const queued = { id, url: job.url, options: stored };
      await store.holding(kind === 'batch' ? runBatch(store, queued, run) : runCrawl(store, queued, run))
        .catch(async (error: unknown) => {
          await store.finish(id, 'failed', failureOf(error).error);
          throw error;
        });
    },
    async agent(id) {
      const claimed = await agentStore(options.db).claimed(id);
      if (!claimed) return;
      const jobs = await engineFor(claimed.job.team, claimed.context).agents();
      await jobs.runClaimed(id);
    },
    async check(id) {
      const checks = checkStore(options.db);
      const claimed = await checks.claimed(id);
      if (!claimed) return;
      const backend = engineFor(claimed.team, claimed.context);
      await afterCheck(backend.runQueuedCheck(id, claimed.monitorId))
        .catch(async (error: unknown) => {
          // Never left running: the check ends failed with what stopped it.
          await checks.abandon(id, `the check could not run: ${failureOf(error).error}`, options.now());
          throw error;
        });
    },
    cancelledAmong: (ids) => crawls.cancelledAmong(ids),
  };
  const runner = works
    ? startWorkRunner({
        db: options.db, now: options.now, handlers, maxConcurrent: options.jobConcurrency ?? SERVER_DEFAULTS.jobConcurrency,
        onError: (error, what) => app.log.error({ err: error }, what),
      })
    : undefined;

  const scheduler = options.scheduler && works
    ? startScheduler({
        db: options.db,
        checks: checkStore(options.db),
        now: options.now,
        maxConcurrent: options.scheduler.maxConcurrent,
        jitterMs: options.scheduler.jitterMs,
        ...(options.scheduler.timers && { timers: options.scheduler.timers }),
        run: (claim) => afterCheck(backendOf(claim.monitor.team, undefined, 'scheduled').startScheduled(claim)),
        onEvent: (event) => app.log.info({ scheduler: event }, `scheduler: ${event.type} ${event.monitorId}`),
      })
    : undefined;
  // A monitor created, changed, paused or resumed may move the next wake-up.
  // Other processes' schedulers hear of it through PostgreSQL; without it they look within a minute.
  app.addHook('onResponse', async (request, reply) => {
    if (request.method === 'GET' || !request.url.startsWith('/v2/monitor') || reply.statusCode >= 300) return;
    void scheduler?.wake();
    void announce(options.db, SCHEDULE_CHANNEL).catch((error: unknown) => app.log.error({ err: error }, 'announcing a monitor change'));
  });
  const unlistenSchedule = scheduler && options.db.listen
    ? options.db.listen(SCHEDULE_CHANNEL, () => void scheduler.wake()).catch((error: unknown) => {
      app.log.error({ err: error }, 'listening for monitor changes (looking every minute instead)');
      return undefined;
    })
    : undefined;

  const integrity = watchIntegrity(options.db, {
    intervalMs: options.integrityCheckIntervalMs ?? INTEGRITY_CHECK_INTERVAL_MS,
    now: options.now,
    onDamage: (problems) => app.log.error({ database: options.db.location, problems }, 'the database is damaged'),
    onError: (error) => app.log.error({ err: error }, 'checking the database\'s integrity'),
  });
  /** The process's role, and whether the database answers with sound pages: 503 when it does not. */
  const health = async (_request: FastifyRequest, reply: FastifyReply) => {
    const database = await databaseHealth(options.db, integrity?.state());
    if (database.ok) return reply.code(200).send({ success: true, status: 'ok', version: options.version, role, database });
    // Like every other error answer, with its message and code; the database's state beside them.
    const code = database.integrity?.status === 'damaged' ? DATABASE_CORRUPT : 'DATABASE_UNAVAILABLE';
    return reply.code(503).send({ ...errorBody(503, ERROR_MESSAGES.unavailable, undefined, code), status: 'degraded', version: options.version, role, database });
  };
  app.get('/health', health);
  app.get('/v2/health', health);

  const routes: RouteDeps = {
    backendOf: (request) => backendOf(request.team, request.keyId),
    tooBusy,
    limited,
    work: {
      context: (request) => ({ keyId: request.keyId, origin: `${request.protocol}://${request.host}`, privateTargetsAllowed: options.allowPrivateTargets }),
      async queued() {
        (await runner)?.wake();
        await announce(options.db, WORK_CHANNEL);
      },
      abort: (id, reason) => void runner?.then((started) => started.abort(id, reason)),
    },
    now: options.now,
    ...(checkUrl && { checkUrl }),
    served: (request, value) => servedArtifacts(value, artifactsDir(options.env, request.team), `${request.protocol}://${request.host}/v2/artifacts/`),
  };
  // A worker answers the health route only.
  if (serves) {
    scrapeRoutes(app, routes);
    artifactRoutes(app, options.env);
    searchRoutes(app, routes);
    crawlRoutes(app, routes, crawls);
    batchRoutes(app, routes, batches, options.concurrencyPerKey);
    monitorRoutes(app, routes);
    agentRoutes(app, routes);
    usageRoutes(app, routes, {
      db: options.db, monthlyCredits: options.monthlyCredits, monthlyTokens: options.monthlyTokens,
      concurrencyPerKey: options.concurrencyPerKey, atOnce,
    });
  }

  const ready = recoverJobs().then(async () => {
    void scheduler?.tick();
    await runner;
    deliver();
  });
  return {
    app,
    scheduler,
    ready,
    async drain() {
      await ready;
      clearInterval(recovering);
      integrity?.stop();
      await app.close();
      const work = await runner;
      // Queued work not yet claimed stays queued, for another worker or this one's next start.
      await work?.stop();
      await (await unlistenSchedule)?.();
      await scheduler?.stop();
      // Agent runs can take many minutes: they end now, failed with `internal`, as after a crash.
      await Promise.all([...backends.values()].map((backend) => backend.stopAgents()));
      // Crawls may take long too: they get the drain time, then are stopped and say why.
      const drained = (work?.idle() ?? Promise.resolve()).then(() => true);
      const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), options.drainTimeoutMs ?? SERVER_DEFAULTS.drainTimeoutMs).unref());
      if (!(await Promise.race([drained, timeout]))) work?.stopAll(SERVER_STOPPED);
      await work?.idle();
      // The last checks' notifications get their first attempt; retries wait for the next start.
      await delivering;
      deliver();
      await delivering;
      closing = true;
      if (deliveryTimer) clearTimeout(deliveryTimer);
      clearInterval(pruning);
      await closeBrowserIfOpen();
    },
  };
}
