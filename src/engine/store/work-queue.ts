/**
 * Work that serve's API queues for whichever worker has capacity: crawls and batch scrapes
 * (crawl_jobs), agent jobs (agent_jobs) and manual check runs (checks). A queued row is written
 * in its running status (`scraping`, `processing`, `queued`) with the lease owner QUEUED: no one
 * holds it, so no lease runs out. A worker claims rows in one transaction that takes them from
 * the queue, oldest first, skipping rows another worker is claiming (`FOR UPDATE SKIP LOCKED` on
 * PostgreSQL; SQLite's write transactions run one at a time), and from then on holds them under a
 * lease like any running work (leases.ts).
 */
import { sql } from 'kysely';
import type { Db } from './database.js';
import { leaseUntil, QUEUED, WORKER_ID } from './leases.js';
import { prepared, perDatabase } from './prepared.js';

export { QUEUED };

/** Tables whose rows can be queued work. */
export type QueueTable = 'checks' | 'crawl_jobs' | 'agent_jobs';
export const QUEUE_TABLES: readonly QueueTable[] = ['checks', 'crawl_jobs', 'agent_jobs'];

/** Statuses in which a row is work not yet ended: it counts against its key's concurrency. */
const UNFINISHED = { checks: ['queued', 'running'], crawl_jobs: ['scraping'], agent_jobs: ['processing'] } as const;
/** The column that orders a table's queue: first queued, first claimed. */
const QUEUED_AT = { checks: 'started_at', crawl_jobs: 'created_at', agent_jobs: 'created_at' } as const;

/**
 * What running queued work needs of the request that queued it, whichever process runs it: the
 * key (usage is counted under it), the server's address as the client called it (screenshot and
 * PDF links of stored documents point there), and the private-address rule of the process that
 * took the request (it holds for the work, as it does for a delivery).
 */
export interface RunContext {
  keyId: string;
  origin: string;
  privateTargetsAllowed: boolean;
}

/** The columns of a queued row: unclaimed, and what its run needs. */
export function queuedColumns(context: RunContext) {
  return { key_id: context.keyId, run_context: JSON.stringify(context), lease_owner: QUEUED, lease_expires_at: null, owner_pid: null };
}

export function runContextOf(row: { run_context: string | null }): RunContext | undefined {
  return row.run_context === null ? undefined : (JSON.parse(row.run_context) as RunContext);
}

/** Takes up to `limit` queued rows of `table` for this worker, oldest first; their ids. */
export async function claimQueued(db: Db, table: QueueTable, limit: number, now: Date): Promise<string[]> {
  if (limit <= 0) return [];
  // The three tables share these columns: one query, typed over what they share.
  const q = db.query as unknown as import('kysely').Kysely<Record<QueueTable, { id: string; lease_owner: string | null; lease_expires_at: string | null; owner_pid: number | null; started_at: string | null; created_at: string }>>;
  // In one transaction: the oldest queued rows, locked (others skip them), then taken.
  return q.transaction().execute(async (trx) => {
    const oldest = await trx.selectFrom(table).select('id').where('lease_owner', '=', QUEUED).orderBy(QUEUED_AT[table]).limit(limit)
      .$if(db.kind === 'postgres', (query) => query.forUpdate().skipLocked()).execute();
    if (oldest.length === 0) return [];
    const taken = new Set((await trx.updateTable(table).set({ lease_owner: WORKER_ID, lease_expires_at: leaseUntil(now), owner_pid: process.pid })
      .where('id', 'in', oldest.map((row) => row.id)).where('lease_owner', '=', QUEUED).returning('id').execute()).map((row) => row.id));
    return oldest.map((row) => row.id).filter((id) => taken.has(id));
  });
}

/** Whether any table has queued work (a cheap look before claiming). */
export async function hasQueued(db: Db): Promise<boolean> {
  for (const table of QUEUE_TABLES) {
    if (await db.query.selectFrom(table).select('id').where('lease_owner', '=', QUEUED).limit(1).executeTakeFirst()) return true;
  }
  return false;
}

/** Asked before every request that starts work: the key's unfinished rows of every table, in one query compiled once. */
const queriesOf = perDatabase((db: Db) => ({
  unfinished: prepared<'keyId', Record<QueueTable, number | string>>(db, (parameter) =>
    db.query.selectNoFrom((eb) => QUEUE_TABLES.map((table) =>
      (eb.selectFrom(table) as unknown as import('kysely').SelectQueryBuilder<Record<string, { key_id: string; status: string }>, string, object>)
        .select((inner) => inner.fn.countAll<number>().as('n')).where('key_id', '=', parameter('keyId')).where('status', 'in', [...UNFINISHED[table]])
        .as(table))) as never),
}));

/** Work a key has queued or running, in any process. */
export async function unfinishedOfKey(db: Db, keyId: string): Promise<number> {
  const [row] = await queriesOf(db).unfinished({ keyId });
  return QUEUE_TABLES.reduce((total, table) => total + Number(row?.[table] ?? 0), 0);
}

/** A team's queued and running work: `running` claimed by a worker, `waiting` for one with room. */
export async function workOfTeam(db: Db, team: string): Promise<{ running: number; waiting: number }> {
  const q = db.query;
  const count = async (query: { executeTakeFirst(): Promise<{ n: number | string } | undefined> }) => Number((await query.executeTakeFirst())?.n ?? 0);
  const teamChecks = () => q.selectFrom('checks').innerJoin('monitors', 'monitors.id', 'checks.monitor_id').select((eb) => eb.fn.countAll<number>().as('n')).where('monitors.team', '=', team);
  const crawls = () => q.selectFrom('crawl_jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('team', '=', team);
  const agents = () => q.selectFrom('agent_jobs').select((eb) => eb.fn.countAll<number>().as('n')).where('team', '=', team);
  return {
    running: (await count(crawls().where('status', '=', 'scraping').where('lease_owner', 'is distinct from', QUEUED)))
      + (await count(agents().where('status', '=', 'processing').where('lease_owner', 'is distinct from', QUEUED)))
      + (await count(teamChecks().where('checks.status', '=', 'running'))),
    waiting: (await count(crawls().where('lease_owner', '=', QUEUED))) + (await count(agents().where('lease_owner', '=', QUEUED)))
      + (await count(teamChecks().where('checks.lease_owner', '=', QUEUED))),
  };
}

/** The channel on which PostgreSQL tells listening workers that work was queued. */
export const WORK_CHANNEL = 'webwatch_work';

/** The channel on which PostgreSQL tells schedulers that a monitor was created or changed. */
export const SCHEDULE_CHANNEL = 'webwatch_schedule';

/**
 * Tells the processes listening on PostgreSQL (db.listen) that there is work (WORK_CHANNEL) or
 * that monitors changed (SCHEDULE_CHANNEL); on SQLite they find out by looking on their own.
 */
export async function announce(db: Db, channel: typeof WORK_CHANNEL | typeof SCHEDULE_CHANNEL): Promise<void> {
  if (db.kind === 'postgres') await sql`SELECT pg_notify(${channel}, '')`.execute(db.query);
}
