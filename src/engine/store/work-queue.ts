/**
 * Work that serve's API queues for whichever worker has capacity: crawls and batch scrapes
 * (crawl_jobs), agent jobs (agent_jobs) and manual check runs (checks). A queued row is written
 * in its running status (`scraping`, `processing`, `queued`) with the lease owner QUEUED: no one
 * holds it, so no lease runs out. A worker picks rows for its free slots fairly between teams
 * (claimQueued), takes each with an update that holds only while the row is still queued (of two
 * workers that picked the same row, one gets it), and from then on holds them under a lease like
 * any running work (leases.ts).
 */
import { sql } from 'kysely';
import { capPerParty, pickFairly } from '../../lib/fair-share.js';
import type { Db } from './database.js';
import { leaseUntil, QUEUED, WORKER_ID } from './leases.js';
import { prepared, perDatabase } from './prepared.js';

export { QUEUED };

/** Tables whose rows can be queued work. */
export type QueueTable = 'checks' | 'crawl_jobs' | 'agent_jobs';
export const QUEUE_TABLES: readonly QueueTable[] = ['checks', 'crawl_jobs', 'agent_jobs'];

/** Statuses in which a row is work not yet ended: it counts against its key's concurrency. */
const UNFINISHED = { checks: ['queued', 'running'], crawl_jobs: ['scraping'], agent_jobs: ['processing'] } as const;

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

/** A queued row waiting for a worker: its table, its team and when it was queued. */
export interface QueuedWork {
  table: QueueTable;
  id: string;
  team: string;
  queuedAt: string;
}

/** Each table's rows with their team: checks are their monitor's. */
const TEAM_ROWS = {
  checks: sql`select checks.id, monitors.team, checks.started_at as at, checks.status, checks.lease_owner from checks join monitors on monitors.id = checks.monitor_id`,
  crawl_jobs: sql`select id, team, created_at as at, status, lease_owner from crawl_jobs`,
  agent_jobs: sql`select id, team, created_at as at, status, lease_owner from agent_jobs`,
} as const;

/**
 * Up to `perTeam` of each team's queued rows, every table's, oldest first: enough for a fair pick
 * (fair-share.ts) to find the one row of a team that queued after another team's thousand.
 */
async function queuedByTeam(db: Db, perTeam: number): Promise<QueuedWork[]> {
  if (perTeam <= 0) return [];
  const found: QueuedWork[] = [];
  for (const table of QUEUE_TABLES) {
    const { rows } = await sql<{ id: string; team: string; at: string }>`select id, team, at from (
        select id, team, at, row_number() over (partition by team order by at) as position from (${TEAM_ROWS[table]}) rows where lease_owner = ${QUEUED}
      ) ranked where position <= ${perTeam}`.execute(db.query);
    for (const row of rows) found.push({ table, id: row.id, team: row.team, queuedAt: row.at });
  }
  return found.sort((a, b) => (a.queuedAt < b.queuedAt ? -1 : a.queuedAt > b.queuedAt ? 1 : 0));
}

/** What each team runs now in every process: work a worker claimed (or the scheduler) and has not finished; of `tables`, all by default. */
export async function runningByTeam(db: Db, tables: readonly QueueTable[] = QUEUE_TABLES): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const table of tables) {
    const { rows } = await sql<{ team: string; n: number | string }>`select team, count(*) as n from (${TEAM_ROWS[table]}) rows
      where status in (${sql.join([...UNFINISHED[table]])}) and lease_owner is not null and lease_owner <> ${QUEUED} group by team`.execute(db.query);
    for (const row of rows) counts.set(row.team, (counts.get(row.team) ?? 0) + Number(row.n));
  }
  return counts;
}

/** Takes these queued rows of `table` for this worker; those it got (another worker may have taken some first). */
async function takeQueued(db: Db, table: QueueTable, ids: readonly string[], now: Date): Promise<string[]> {
  if (ids.length === 0) return [];
  const q = db.query as unknown as import('kysely').Kysely<
    Record<QueueTable, { id: string; lease_owner: string | null; lease_expires_at: string | null; owner_pid: number | null }>
  >;
  // The row is taken only while it is still queued: of two workers that picked it, one gets it.
  const taken = new Set(
    (
      await q
        .updateTable(table)
        .set({ lease_owner: WORKER_ID, lease_expires_at: leaseUntil(now), owner_pid: process.pid })
        .where('id', 'in', [...ids])
        .where('lease_owner', '=', QUEUED)
        .returning('id')
        .execute()
    ).map((row) => row.id),
  );
  return ids.filter((id) => taken.has(id));
}

export interface ClaimOptions {
  /** This worker's slots, and how many of them are free now. */
  slots: number;
  room: number;
  now: Date;
  /** What each team runs in this worker now. */
  runningHere?: ReadonlyMap<string, number>;
}

/**
 * Takes queued work for this worker's free slots, shared fairly between teams (fair-share.ts):
 * the team with the least work running in any process first, its oldest row first, and no team
 * more than its cap of this worker's slots while other teams hold keys. What was taken, in the
 * order it should start.
 */
export async function claimQueued(db: Db, options: ClaimOptions): Promise<QueuedWork[]> {
  const candidates = await queuedByTeam(db, options.room);
  if (candidates.length === 0) return [];
  const runningHere = options.runningHere ?? new Map<string, number>();
  const waitingTeams = new Set(candidates.map((work) => work.team)).size;
  const picked = pickFairly(candidates, {
    room: options.room,
    capPerParty: capPerParty(options.slots, await teamsSharing(db)),
    partyOf: (work) => work.team,
    runningHere,
    // Which team goes first matters only when several wait.
    ...(waitingTeams > 1 && { runningEverywhere: await runningByTeam(db) }),
  });
  const taken = new Set<string>();
  for (const table of QUEUE_TABLES) {
    for (const id of await takeQueued(
      db,
      table,
      picked.filter((work) => work.table === table).map((work) => work.id),
      options.now,
    ))
      taken.add(id);
  }
  return picked.filter((work) => taken.has(work.id));
}

/** How many teams hold an API key, up to two: whether the process's slots are shared at all. */
export async function teamsSharing(db: Db): Promise<number> {
  const rows = await db.query.selectFrom('api_keys').select('team').distinct().where('revoked_at', 'is', null).limit(2).execute();
  return rows.length;
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
  unfinished: prepared<'keyId', Record<QueueTable, number | string>>(
    db,
    (parameter) =>
      db.query.selectNoFrom((eb) =>
        QUEUE_TABLES.map((table) =>
          (eb.selectFrom(table) as unknown as import('kysely').SelectQueryBuilder<Record<string, { key_id: string; status: string }>, string, object>)
            .select((inner) => inner.fn.countAll<number>().as('n'))
            .where('key_id', '=', parameter('keyId'))
            .where('status', 'in', [...UNFINISHED[table]])
            .as(table),
        ),
      ) as never,
  ),
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
  const teamChecks = () =>
    q
      .selectFrom('checks')
      .innerJoin('monitors', 'monitors.id', 'checks.monitor_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('monitors.team', '=', team);
  const crawls = () =>
    q
      .selectFrom('crawl_jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team', '=', team);
  const agents = () =>
    q
      .selectFrom('agent_jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team', '=', team);
  return {
    running:
      (await count(crawls().where('status', '=', 'scraping').where('lease_owner', 'is distinct from', QUEUED))) +
      (await count(agents().where('status', '=', 'processing').where('lease_owner', 'is distinct from', QUEUED))) +
      (await count(teamChecks().where('checks.status', '=', 'running'))),
    waiting:
      (await count(crawls().where('lease_owner', '=', QUEUED))) +
      (await count(agents().where('lease_owner', '=', QUEUED))) +
      (await count(teamChecks().where('checks.lease_owner', '=', QUEUED))),
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
