/**
 * The guards every request of `webwatch serve` passes, as Fastify plugins registered once:
 * `keyGuard` (a key of a team, then the key's rate) before routing, and `workLimits` (the team's
 * monthly credits and tokens, its page scrapes at once) for the routes that start work.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { LOCAL_TEAM } from '../services/team.js';
import type { keyStore } from '../engine/keys/key-store.js';
import type { Db } from '../engine/store/database.js';
import type { PageSlots } from '../engine/store/page-slots.js';
import { monthOf, usageStore } from '../engine/usage/usage-store.js';
import { ERROR_MESSAGES } from '../spec/errors.js';
import { errorBody } from './http.js';
import { requestCounter } from './shared-limits.js';

export const LOCAL_TEAM_REFUSED = 'keys of team "local" reach the command line\'s own monitors and are refused unless created with --allow-local-team';

declare module 'fastify' {
  interface FastifyRequest {
    team: string;
    keyId: string;
    /** Reserved fields of the hosted API taken out of the body (replies.ts), for the answer's warning. */
    ignoredFields?: string[];
  }
  interface FastifyInstance {
    limits: WorkLimits;
  }
}

type Keys = ReturnType<typeof keyStore>;

/** The key a bearer Authorization header names, read from the database at every request: a key revoked by any process is refused by all at once. */
export async function bearerKey(keys: Keys, authorization: string | undefined) {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match ? keys.identify(match[1]!) : undefined;
}

export interface KeyGuardOptions {
  keys: Keys;
  db: Db;
  /** Requests per key per minute: beyond it, 429 Rate limit exceeded. */
  rateLimitPerMinute: number;
  /** A worker answers nothing but health: its 404 needs no key and counts against none. */
  serves: boolean;
}

const isUpgrade = (request: FastifyRequest) => request.headers.upgrade?.toLowerCase() === 'websocket';
const subprotocolKey = (header: string | string[] | undefined) => (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim() ?? '';

/** Every request but the health route carries a key; the request then belongs to the key's team. */
export const keyGuard = fp<KeyGuardOptions>(
  async (app, options) => {
    // Per-key rate, in fixed one-minute windows counted in the database (every process shares them).
    const countRequest = requestCounter(options.db);
    app.decorateRequest('team', '');
    app.decorateRequest('keyId', '');
    app.addHook('onRequest', async (request, reply) => {
      const path = request.url.split('?', 1)[0];
      // A signed media link carries its own proof (media-links.ts), for clients without the key.
      if (path === '/health' || path === '/v2/health' || path?.startsWith('/v2/media/') || !options.serves) return;
      // A WebSocket cannot carry an Authorization header from a browser or undici: the hosted SDK's
      // watcher sends the key as the subprotocol, so an upgrade may present it there.
      const key =
        (await bearerKey(options.keys, request.headers.authorization)) ??
        (isUpgrade(request) ? await bearerKey(options.keys, `Bearer ${subprotocolKey(request.headers['sec-websocket-protocol'])}`) : undefined);
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
        await reply
          .code(429)
          .header('retry-after', String(retryAfter))
          .send(errorBody(429, ERROR_MESSAGES.rateLimited, { limitPerMinute: options.rateLimitPerMinute }));
        return reply;
      }
      return undefined;
    });
  },
  { name: 'webwatch-key-guard' },
);

export interface WorkLimitOptions {
  db: Db;
  now(): Date;
  /**
   * Page scrapes each team runs at once (page-slots.ts): the pages of its crawls and batch
   * scrapes wait for a slot; a direct scrape, search or map finding none is 429 Concurrency limit reached.
   */
  concurrencyPerTeam: number;
  /** Credits each team may use per calendar month (UTC); beyond them, new work is 402. None: no limit. */
  monthlyCredits?: number | undefined;
  /** Model tokens each team may use per calendar month; beyond them, agent and extract jobs and crawl previews are 402. */
  monthlyTokens?: number | undefined;
  /** The team's page slots, shared with the worker that runs its crawls and batches. */
  pageSlots: PageSlots;
}

/** What the routes that start work ask before they start it (`app.limits`). */
export interface WorkLimits extends Readonly<Omit<WorkLimitOptions, 'pageSlots'>> {
  /** Answers 402 (and returns true) when the team has used its month: work to queue asks only this. */
  outOfCredits(request: FastifyRequest, reply: FastifyReply): Promise<boolean>;
  /** Runs `work` (a direct scrape, search or map) in one of the team's page slots, or answers 402 or 429. */
  limited<T>(request: FastifyRequest, reply: FastifyReply, work: () => Promise<T>): Promise<T | FastifyReply>;
  /** The team's page scrapes running now, in every process (page-slots.ts). */
  running(team: string): Promise<number>;
}

/** The routes whose work is mostly the model's: those a team's monthly tokens bound. */
const MODEL_ROUTES = ['/v2/agent', '/v2/extract', '/v2/crawl/params-preview'];

export const workLimits = fp<WorkLimitOptions>(
  async (app: FastifyInstance, options) => {
    const usage = usageStore(options.db);
    const { pageSlots, ...settings } = options;

    const outOfCredits = async (request: FastifyRequest, reply: FastifyReply) => {
      if (options.monthlyCredits === undefined && options.monthlyTokens === undefined) return false;
      const { start, end } = monthOf(options.now());
      const used = await usage.totals(request.team, start, end);
      const credits = options.monthlyCredits !== undefined && used.credits >= options.monthlyCredits;
      const tokens = options.monthlyTokens !== undefined && used.tokens >= options.monthlyTokens && MODEL_ROUTES.some((route) => request.url.startsWith(route));
      if (!credits && !tokens) return false;
      void reply.code(402).send(
        errorBody(402, ERROR_MESSAGES.paymentRequired, {
          reason: credits
            ? `the team has used its ${options.monthlyCredits} credits of this month`
            : `the team has used its ${options.monthlyTokens} model tokens of this month`,
          periodEnd: end.toISOString(),
        }),
      );
      return true;
    };

    async function limited<T>(request: FastifyRequest, reply: FastifyReply, work: () => Promise<T>): Promise<T | FastifyReply> {
      if (await outOfCredits(request, reply)) return reply;
      const release = await pageSlots.takeNow(request.team);
      if (!release) {
        void reply
          .code(429)
          .header('retry-after', '1')
          .send(errorBody(429, ERROR_MESSAGES.concurrencyLimited, { limit: options.concurrencyPerTeam }));
        return reply;
      }
      try {
        return await work();
      } finally {
        release();
      }
    }

    const limits: WorkLimits = { ...settings, outOfCredits, limited, running: (team) => pageSlots.running(team) };
    app.decorate('limits', limits);
  },
  { name: 'webwatch-work-limits' },
);
