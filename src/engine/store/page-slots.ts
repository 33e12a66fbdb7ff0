/**
 * A team's page slots: the page scrapes it runs at once, held to its concurrency limit as the
 * hosted API counts it. Each page of a crawl or batch scrape takes a slot before it is fetched and
 * waits for one when the team has none free, so a job's pages queue instead of being refused;
 * queued work takes none. Slots of crawl and batch pages are rows of `page_slots`, so that the
 * limit holds across every worker of the database; each row carries its worker's lease (renewed
 * while held, taken back when the worker stops, as leases.ts does for jobs). A direct scrape,
 * search or map is counted in the process that answers it, without a write on its request's path:
 * it takes a free slot at once or is refused (429), as the interface says.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from './database.js';
import { holderGone, leaseDuration, leaseUntil, WORKER_ID } from './leases.js';
import { perDatabase, prepared } from './prepared.js';

/** Gives a slot back; a second call does nothing. */
export type ReleaseSlot = () => void;

export interface PageSlots {
  /** The team's limit: page scrapes at once. */
  readonly limit: number;
  /** Waits for a slot of the team for a page of `job` (first asked, first served), until `signal` aborts. */
  take(team: string, job: string, signal?: AbortSignal): Promise<ReleaseSlot>;
  /** A slot for a direct request if one is free now; undefined when the team runs all it may. */
  takeNow(team: string): Promise<ReleaseSlot | undefined>;
  /** The team's page scrapes running now: its slots in every worker, and the direct requests this process answers. */
  running(team: string): Promise<number>;
  /** Stops the renewals and the waiting; slots still held are left to their leases. */
  close(): void;
}

export interface PageSlotOptions {
  db: Db;
  limit: number;
  now(): Date;
  /** How often a waiting page looks for slots freed by another process (released here, it is woken at once). */
  pollMs?: number;
}

const queriesOf = perDatabase((db: Db) => ({
  held: prepared<'team' | 'now', { n: number | string }>(db, (parameter) =>
    db.query
      .selectFrom('page_slots')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team', '=', parameter('team'))
      .where('expires_at', '>', parameter('now')),
  ),
}));

interface Waiter {
  job: string;
  resolve(release: ReleaseSlot): void;
  reject(reason: unknown): void;
}

export function pageSlots(options: PageSlotOptions): PageSlots {
  const { db, limit, now } = options;
  const pollMs = options.pollMs ?? 200;
  /** Direct requests this process answers, by team. */
  const direct = new Map<string, number>();
  /** Slot rows this process holds, by id, with their team. */
  const held = new Map<string, string>();
  const waiting = new Map<string, Waiter[]>();
  const pumping = new Set<string>();
  const polls = new Map<string, NodeJS.Timeout>();
  let renewer: NodeJS.Timeout | undefined;
  let closed = false;

  const count = async (team: string) => Number((await queriesOf(db).held({ team, now: now().toISOString() }))[0]?.n ?? 0);

  /** One slot row for the team if it has one free, in a transaction that no other taker of the team's slots runs beside. */
  const claim = (team: string, job: string) =>
    db.query.transaction().execute(async (trx) => {
      // SQLite's transactions begin IMMEDIATE (one writer at a time); PostgreSQL's take the team's lock.
      if (db.kind === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${`webwatch page slots ${team}`}))`.execute(trx);
      const at = now();
      const rows = await trx.selectFrom('page_slots').select(['id', 'holder', 'expires_at']).where('team', '=', team).execute();
      const gone = rows.filter((row) => holderGone({ lease_owner: row.holder, lease_expires_at: row.expires_at }, at));
      if (gone.length > 0)
        await trx
          .deleteFrom('page_slots')
          .where(
            'id',
            'in',
            gone.map((row) => row.id),
          )
          .execute();
      if (rows.length - gone.length + (direct.get(team) ?? 0) >= limit) return undefined;
      const id = randomUUID();
      await trx
        .insertInto('page_slots')
        .values({ id, team, job_id: job, holder: WORKER_ID, expires_at: leaseUntil(at) })
        .execute();
      return id;
    });

  const renew = () => {
    if (held.size === 0 || renewer) return;
    renewer = setInterval(
      () => {
        if (held.size === 0) {
          clearInterval(renewer);
          renewer = undefined;
          return;
        }
        void db.query
          .updateTable('page_slots')
          .set({ expires_at: leaseUntil(now()) })
          .where('holder', '=', WORKER_ID)
          .execute()
          .catch(() => undefined);
      },
      Math.max(500, Math.floor(leaseDuration() / 3)),
    ).unref();
  };

  const releaseOf = (id: string, team: string): ReleaseSlot => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      held.delete(id);
      void db.query
        .deleteFrom('page_slots')
        .where('id', '=', id)
        .execute()
        .catch(() => undefined)
        .finally(() => void pump(team));
    };
  };

  /** Gives free slots to the team's waiting pages, first come first; looks again later while some still wait. */
  async function pump(team: string): Promise<void> {
    if (pumping.has(team) || closed) return;
    pumping.add(team);
    try {
      const queue = waiting.get(team);
      while (queue && queue.length > 0) {
        const id = await claim(team, queue[0]!.job);
        if (id === undefined) break;
        const waiter = queue.shift()!;
        held.set(id, team);
        renew();
        waiter.resolve(releaseOf(id, team));
      }
      if (queue?.length === 0) waiting.delete(team);
    } catch (error) {
      // The database failed: the first waiter learns why, the others wait for the next look.
      waiting.get(team)?.shift()?.reject(error);
    } finally {
      pumping.delete(team);
    }
    if (waiting.has(team) && !polls.has(team) && !closed) {
      polls.set(
        team,
        setTimeout(() => {
          polls.delete(team);
          void pump(team);
        }, pollMs),
      );
    }
  }

  return {
    limit,
    take(team, job, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<ReleaseSlot>((resolve, reject) => {
        const waiter: Waiter = {
          job,
          resolve: (release) => {
            signal?.removeEventListener('abort', onAbort);
            if (signal?.aborted) release();
            else resolve(release);
          },
          reject: (reason) => {
            signal?.removeEventListener('abort', onAbort);
            reject(reason);
          },
        };
        function onAbort() {
          const queue = waiting.get(team);
          const at = queue?.indexOf(waiter) ?? -1;
          if (at >= 0) queue!.splice(at, 1);
          reject(signal!.reason);
        }
        signal?.addEventListener('abort', onAbort, { once: true });
        const queue = waiting.get(team) ?? [];
        queue.push(waiter);
        waiting.set(team, queue);
        void pump(team);
      });
    },
    async takeNow(team) {
      // Pages already waiting go first: a direct request does not jump their queue.
      if ((waiting.get(team)?.length ?? 0) > 0) return undefined;
      if ((await count(team)) + (direct.get(team) ?? 0) >= limit) return undefined;
      direct.set(team, (direct.get(team) ?? 0) + 1);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        const left = (direct.get(team) ?? 1) - 1;
        if (left === 0) direct.delete(team);
        else direct.set(team, left);
        if (waiting.has(team)) void pump(team);
      };
    },
    async running(team) {
      return (await count(team)) + (direct.get(team) ?? 0);
    },
    close() {
      closed = true;
      if (renewer) clearInterval(renewer);
      for (const timer of polls.values()) clearTimeout(timer);
      polls.clear();
    },
  };
}
