/**
 * Interact sessions: a scrape's page kept open in the browser so that prompts and code can go on
 * working in it (cookies, storage, a login carry over from one call to the next). A session is
 * its team's and its scrape's; each team has at most `perTeam` open and the process at most
 * `total` (a page holds some tens of MB of the browser's memory: bench/interact.mjs); one idle for
 * `idleMs` closes, and so does one open for `maxMs`. Calls to one session run one after another.
 * Closing (a DELETE, idleness, the server's drain) writes its profile back and says how long it
 * was open, which is what it costs.
 */
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import type { LivePage } from '../browser/render.js';

export interface SessionLimits {
  perTeam: number;
  total: number;
  idleMs: number;
  maxMs: number;
}

export const SESSION_DEFAULTS: SessionLimits = { perTeam: 2, total: 8, idleMs: 5 * 60_000, maxMs: 30 * 60_000 };

/** Credits a session costs: the hosted API's 2 a browser minute, each started minute counted. */
export const CREDITS_PER_SESSION_MINUTE = 2;
export const sessionCredits = (durationMs: number) => CREDITS_PER_SESSION_MINUTE * Math.max(1, Math.ceil(durationMs / 60_000));

export interface Session {
  team: string;
  scrapeId: string;
  url: string;
  live: LivePage;
  openedAt: number;
  lastUsedAt: number;
  /** Told when the session ends, however it ends (its credits are booked there). */
  ended?: (end: SessionEnd) => void;
}

export interface SessionEnd {
  scrapeId: string;
  team: string;
  durationMs: number;
  creditsBilled: number;
  why: 'stopped' | 'idle' | 'expired' | 'drained';
}

export interface InteractSessions {
  /** The team's open session for the scrape, if any. */
  get(team: string, scrapeId: string): Session | undefined;
  /** The session, opened with `open` when there is none (refused with 429 past the bounds). */
  session(team: string, scrapeId: string, open: () => Promise<{ url: string; live: LivePage; ended?: (end: SessionEnd) => void }>): Promise<Session>;
  /** Runs `work` in the session, after its calls before; the session's idle time starts again after it. */
  use<T>(session: Session, work: (session: Session) => Promise<T>): Promise<T>;
  /** Ends the team's session of the scrape; undefined when none is open. */
  stop(team: string, scrapeId: string): Promise<SessionEnd | undefined>;
  /** Ends every session (the server's drain). */
  closeAll(): Promise<void>;
  count(team?: string): number;
}

export function interactSessions(
  limits: SessionLimits = SESSION_DEFAULTS,
  onEnd: (end: SessionEnd) => void = () => undefined,
  now = Date.now,
): InteractSessions {
  const open = new Map<string, Session & { queue: Promise<unknown>; timer?: NodeJS.Timeout; busy: number }>();
  const opening = new Map<string, Promise<Session>>();
  const keyOf = (team: string, scrapeId: string) => `${team}\u0000${scrapeId}`;
  const teamCount = (team: string) =>
    [...open.values()].filter((session) => session.team === team).length + [...opening.keys()].filter((key) => key.startsWith(`${team}\u0000`)).length;

  const end = async (key: string, why: SessionEnd['why']): Promise<SessionEnd | undefined> => {
    const session = open.get(key);
    if (!session) return undefined;
    open.delete(key);
    clearTimeout(session.timer);
    await session.live.close(true);
    const durationMs = Math.max(0, now() - session.openedAt);
    const ended: SessionEnd = { scrapeId: session.scrapeId, team: session.team, durationMs, creditsBilled: sessionCredits(durationMs), why };
    session.ended?.(ended);
    onEnd(ended);
    return ended;
  };
  const arm = (key: string) => {
    const session = open.get(key);
    if (!session) return;
    clearTimeout(session.timer);
    if (session.busy > 0) return;
    const untilIdle = limits.idleMs;
    const untilMax = session.openedAt + limits.maxMs - now();
    session.timer = setTimeout(() => void end(key, untilMax <= untilIdle ? 'expired' : 'idle'), Math.max(0, Math.min(untilIdle, untilMax)));
    session.timer.unref();
  };

  return {
    get: (team, scrapeId) => open.get(keyOf(team, scrapeId)),
    async session(team, scrapeId, opener) {
      const key = keyOf(team, scrapeId);
      const existing = open.get(key) ?? (await opening.get(key));
      if (existing && open.has(key)) return existing;
      if (teamCount(team) >= limits.perTeam) {
        throw new WebwatchError(ERROR_TOO_MANY, {
          status: 429,
          code: 'INTERACT_SESSION_LIMIT',
          details: {
            reason: `this team has ${limits.perTeam} interact sessions open, the most it may: stop one (DELETE /v2/scrape/{id}/interact) or let it close when idle`,
          },
        });
      }
      if (open.size + opening.size >= limits.total) {
        throw new WebwatchError(ERROR_TOO_MANY, {
          status: 429,
          code: 'INTERACT_SESSION_LIMIT',
          details: { reason: `this server has ${limits.total} interact sessions open, the most it holds; try again when one has closed` },
        });
      }
      const started = (async () => {
        const { url, live, ended } = await opener();
        const at = now();
        const session = {
          team,
          scrapeId,
          url,
          live,
          openedAt: at,
          lastUsedAt: at,
          ...(ended && { ended }),
          queue: Promise.resolve() as Promise<unknown>,
          busy: 0,
        };
        open.set(key, session);
        arm(key);
        return session;
      })();
      opening.set(key, started);
      try {
        return await started;
      } finally {
        opening.delete(key);
      }
    },
    use(session, work) {
      const key = keyOf(session.team, session.scrapeId);
      const held = open.get(key);
      if (!held) return Promise.reject(new WebwatchError('the interact session has closed', { status: 410, code: 'INTERACT_SESSION_CLOSED' }));
      held.busy++;
      clearTimeout(held.timer);
      const ran = held.queue.then(() => work(held));
      held.queue = ran.catch(() => undefined);
      return ran.finally(() => {
        held.busy--;
        held.lastUsedAt = now();
        arm(key);
      });
    },
    stop: (team, scrapeId) => end(keyOf(team, scrapeId), 'stopped'),
    async closeAll() {
      await Promise.all([...open.keys()].map((key) => end(key, 'drained')));
    },
    count: (team) => (team === undefined ? open.size : teamCount(team)),
  };
}

const ERROR_TOO_MANY = ERROR_MESSAGES.rateLimited;
