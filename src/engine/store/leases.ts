/**
 * Leases on running work (checks, crawl and batch jobs, agent jobs, deliveries): the row names
 * the worker that holds it and the time its hold ends unless renewed. While work runs, its
 * process renews every third of the lease. A row whose lease has run out belongs to a worker
 * that stopped (kill -9, a lost machine): another worker ends it as the store says (a check is
 * failed, never run a second time; a delivery is attempted again). On the holder's own machine a
 * dead process is seen at once, without waiting for the lease to run out. Work queued for any
 * worker (work-queue.ts) has the owner `queued` until a worker claims it.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from './database.js';
import { processAlive } from './owner-process.js';

const HOST = hostname();

/** This process as a holder of leases: host and pid (pids repeat across machines) and a random part. */
export const WORKER_ID = `${HOST}:${process.pid}:${randomUUID().slice(0, 8)}`;

/** The lease owner of work that waits for a worker (work-queue.ts): no one holds it yet. */
export const QUEUED = 'queued';

export const DEFAULT_LEASE_MS = 30_000;
let leaseMs = DEFAULT_LEASE_MS;

/** How long a lease holds unless renewed (serve takes it from WEBWATCH_LEASE_SECONDS). */
export function setLeaseDuration(ms: number): void {
  leaseMs = Math.max(1000, ms);
}

export const leaseDuration = () => leaseMs;

export const leaseUntil = (now: Date) => new Date(now.getTime() + leaseMs).toISOString();

export interface LeaseHolder {
  lease_owner: string | null;
  lease_expires_at: string | null;
  owner_pid?: number | null;
}

/**
 * Whether the worker holding a row has stopped: its lease ran out, or it ran on this machine and
 * its process is gone. Rows written before leases existed name only a pid, on this machine.
 */
export function holderGone(row: LeaseHolder, now: Date): boolean {
  // Queued work (work-queue.ts) has no holder yet: it waits for a worker, whatever the time.
  if (row.lease_owner === WORKER_ID || row.lease_owner === QUEUED) return false;
  if (row.lease_owner) {
    const [host, pid] = row.lease_owner.split(':');
    if (host === HOST && !processAlive(Number(pid))) return true;
    return row.lease_expires_at === null || row.lease_expires_at < now.toISOString();
  }
  return !processAlive(row.owner_pid ?? null);
}

/** The tables whose running rows carry leases, and the statuses in which they are held. */
const HELD = {
  checks: ['queued', 'running'],
  crawl_jobs: ['scraping'],
  agent_jobs: ['processing'],
  outbox: ['pending'],
} as const;

const renewers = new WeakMap<Db, { count: number; timer: NodeJS.Timeout }>();

/** Renews this process's leases in every table. */
export async function renewLeases(db: Db, now = new Date()): Promise<void> {
  const until = leaseUntil(now);
  for (const [table, statuses] of Object.entries(HELD) as [keyof typeof HELD, readonly string[]][]) {
    await db.query
      .updateTable(table)
      .set({ lease_expires_at: until })
      .where('lease_owner', '=', WORKER_ID)
      .where('status', 'in', statuses as never)
      .execute();
  }
}

/** Keeps this process's leases renewed while `work` runs. */
export function renewWhile<T>(db: Db, work: Promise<T>): Promise<T> {
  let renewer = renewers.get(db);
  if (!renewer) {
    const timer = setInterval(() => void renewLeases(db).catch(() => undefined), Math.max(500, Math.floor(leaseMs / 3))).unref();
    renewer = { count: 0, timer };
    renewers.set(db, renewer);
  }
  renewer.count++;
  const held = renewer;
  const release = () => {
    if (--held.count === 0) {
      clearInterval(held.timer);
      renewers.delete(db);
    }
  };
  work.then(release, release);
  return work;
}
