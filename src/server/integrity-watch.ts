/**
 * What the health route says of the SQLite file's integrity. A quick check reads every page,
 * seconds on a large file, so it is not run at each health request: it runs on a thread of its
 * own when serve starts and then every hour, and the health route reports the last result. A
 * query that meets a damaged page in between makes the state "damaged" at once.
 * PostgreSQL checks its own pages: there is nothing to watch.
 */
import type { Db } from '../engine/store/database.js';

export const INTEGRITY_CHECK_INTERVAL_MS = 60 * 60 * 1000;

/** Problems the health route lists at most (the operator's `webwatch db check` lists them all). */
const PROBLEMS_SHOWN = 10;

export interface IntegrityState {
  /** `checking` until the first check has finished. */
  status: 'checking' | 'ok' | 'damaged';
  /** When the last check finished. */
  checkedAt?: string;
  /** What the last check found and what a query met; never the file's path. */
  problems?: string[];
}

export interface IntegrityWatch {
  state(): IntegrityState;
  stop(): void;
}

export interface IntegrityWatchOptions {
  intervalMs: number;
  now(): Date;
  /** A check found damage where the one before found none. */
  onDamage(problems: string[]): void;
  /** A check could not run (not damage: a file it could not open, say). */
  onError(error: unknown): void;
}

export function watchIntegrity(db: Db, options: IntegrityWatchOptions): IntegrityWatch | undefined {
  if (db.kind !== 'sqlite') return undefined;
  let last: { checkedAt: string; problems: string[] } | undefined;
  let running: AbortController | undefined;
  let stopped = false;
  const check = async () => {
    if (running || stopped) return;
    running = new AbortController();
    try {
      const { checkSqliteFile, describeProblem } = await import('../engine/store/integrity.js');
      const report = await checkSqliteFile(db.location, { signal: running.signal });
      const problems = report.problems.map(describeProblem);
      const newlyDamaged = problems.length > 0 && !last?.problems.length;
      last = { checkedAt: options.now().toISOString(), problems };
      if (newlyDamaged) options.onDamage(problems);
    } catch (error) {
      if (!stopped) options.onError(error);
    } finally {
      running = undefined;
    }
  };
  void check();
  const timer = setInterval(() => void check(), options.intervalMs).unref();
  return {
    state() {
      const seen = db.damageSeen ? [`a query met a damaged page: ${db.damageSeen}`] : [];
      const problems = [...seen, ...(last?.problems ?? [])].slice(0, PROBLEMS_SHOWN);
      const status = problems.length > 0 ? 'damaged' : last ? 'ok' : 'checking';
      return { status, ...(last && { checkedAt: last.checkedAt }), ...(problems.length > 0 && { problems }) };
    },
    stop() {
      stopped = true;
      clearInterval(timer);
      running?.abort();
    },
  };
}
