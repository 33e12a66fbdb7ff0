/** Checks, page results and page snapshots of monitors in the engine's database. */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import type { MonitorSummary } from '../../spec/monitor.js';
import { withoutRule, type PageDiff } from '../diff/markdown-diff.js';
import type { Judgment } from '../judge/judge.js';
import type { Db, Query } from '../store/database.js';
import { outboxStore, webhookEntries, type NewDelivery } from '../notify/outbox.js';
import type { CheckPage, CheckRecord, CheckStatus, JsonPageDiff, NotificationStatus, PageNoise, PageResult, PageStatus } from '../../contract/checks.js';

export type { CheckPage, CheckRecord, CheckStatus, JsonPageDiff, PageResult, PageStatus } from '../../contract/checks.js';
import { monitorFromRow, nextRunAt, type StoredMonitor } from './monitor-store.js';
import type { Tables } from '../store/tables.js';
import { holderGone, leaseUntil, renewWhile, WORKER_ID } from '../store/leases.js';
import { queuedColumns, runContextOf, type RunContext } from '../store/work-queue.js';

/** A stored page diff; one written before diffs lost their leading rule of `=` is read without it. */
function storedDiff(json: string): PageDiff | JsonPageDiff {
  const diff = JSON.parse(json) as PageDiff | JsonPageDiff;
  return 'text' in diff && typeof diff.text === 'string' ? { ...diff, text: withoutRule(diff.text) } : diff;
}

/** URLs per query of lastSnapshots: well under the bound parameters SQLite and PostgreSQL take. */
const SNAPSHOT_LOOKUP_BATCH = 500;

/** Rows per INSERT: a few thousand bound parameters, far from either database's limit. */
const ROWS_PER_INSERT = 200;

function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

export interface Snapshot {
  targetId: string;
  url: string;
  scrapeId: string;
  markdown: string;
  /** The response it came from (bytes and what shapes the content); null from the cache. */
  fingerprint: string | null;
  /** contentHash of the markdown. */
  contentHash: string;
  /** The page was found gone (404, 410, or no longer found by a crawl): the markdown is empty. */
  gone?: boolean;
  /** The JSON extracted from it (targets that extract JSON). */
  json?: unknown;
}

/** What a check compares a page with; the markdown is read only when a diff needs it. */
export interface LastSnapshot {
  scrapeId: string;
  fingerprint: string | null;
  /** Null for snapshots written before hashes were kept. */
  contentHash: string | null;
  /** The last check reported the page removed. */
  gone: boolean;
}

/** A same page seen through a new response: its snapshot learns the response's fingerprint. */
export interface FingerprintUpdate {
  scrapeId: string;
  fingerprint: string;
}

const ZERO_SUMMARY: MonitorSummary = { changed: 0, error: 0, new: 0, removed: 0, same: 0, totalPages: 0 };

type CheckRow = Selectable<Tables['checks']>;

const checkFromRow = (row: CheckRow, notificationStatus: NotificationStatus | null): CheckRecord => {
  const summary = row.summary ? (JSON.parse(row.summary) as MonitorSummary) : null;
  const createdAt = row.started_at ?? row.scheduled_for ?? new Date(0).toISOString();
  return {
    id: row.id,
    monitorId: row.monitor_id,
    status: row.status,
    trigger: row.trigger,
    scheduledFor: row.scheduled_for,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    summary: summary ?? ZERO_SUMMARY,
    error: row.error,
    notificationStatus,
    billingStatus: 'not_applicable',
    estimatedCredits: null,
    reservedCredits: null,
    actualCredits: summary ? (row.credits ?? summary.totalPages - summary.error) : null,
    createdAt,
    updatedAt: row.finished_at ?? createdAt,
  };
};

/** The notifications a finished check sends: built inside finish's transaction, from the finished check. */
export type Notify = (check: CheckRecord, pages: readonly PageResult[]) => NewDelivery[];

export const INTERRUPTED = 'interrupted: the process running the check ended before it finished';

const conflictOf = (monitorId: string, runningId: string) =>
  new WebwatchError(ERROR_MESSAGES.conflict, { status: 409, details: { monitor: monitorId, reason: `check ${runningId} is still running` } });

/** A scheduled slot claimed by this worker (the scheduler claims them): its monitor and the check written for it. */
export interface ClaimedCheck {
  monitor: StoredMonitor;
  /** The check written for the slot, queued and held by this worker. */
  checkId: string;
  slot: string;
}

/** The monitor's check that is queued or running, if any. */
export const runningCheck = (q: Query, monitorId: string) =>
  q.selectFrom('checks').select('id').where('monitor_id', '=', monitorId).where('status', 'in', ['queued', 'running']).executeTakeFirst();

/** Which of `monitorIds` have a check queued or running: one statement for a claiming round's monitors. */
export async function monitorsChecking(q: Query, monitorIds: readonly string[]): Promise<Set<string>> {
  if (monitorIds.length === 0) return new Set();
  const rows = await q.selectFrom('checks').select('monitor_id').where('monitor_id', 'in', monitorIds).where('status', 'in', ['queued', 'running']).execute();
  return new Set(rows.map((row) => row.monitor_id));
}

/** The row of a check held by this worker (claimed by the scheduler, or run at once). */
const heldCheckRow = (
  id: string,
  monitorId: string,
  status: 'queued' | 'running',
  trigger: 'manual' | 'scheduled',
  now: Date,
  scheduledFor: string | null,
) => ({
  id,
  monitor_id: monitorId,
  status,
  trigger,
  scheduled_for: scheduledFor,
  started_at: now.toISOString(),
  finished_at: null,
  summary: null,
  error: null,
  credits: null,
  owner_pid: process.pid,
  lease_owner: WORKER_ID,
  lease_expires_at: leaseUntil(now),
});

/** The row of a slot that came while the monitor's previous check still ran. */
const skippedCheckRow = (id: string, monitorId: string, scheduledFor: string, now: Date) => ({
  id,
  monitor_id: monitorId,
  status: 'skipped_overlap' as const,
  trigger: 'scheduled' as const,
  scheduled_for: scheduledFor,
  started_at: now.toISOString(),
  finished_at: now.toISOString(),
  summary: null,
  error: 'the previous check was still running',
  credits: null,
  owner_pid: null,
  lease_owner: null,
  lease_expires_at: null,
});

/** A due slot a claiming round takes: its check to hold, or its record as skipped. */
export interface SlotClaim {
  monitorId: string;
  /** The slot (the monitor's nextRunAt when read). */
  slot: string;
  /** The slot after it. */
  next: string | null;
  checkId: string;
  skipped: boolean;
}

/**
 * Takes a claiming round's slots in two statements, whatever their number (one round trip per
 * slot was what bounded a worker whose database is across a network): each monitor's nextRunAt
 * moves on, only where it still is the slot read, and a claimed slot's check becomes the
 * monitor's current one; then the checks of the slots taken are written, held by this worker
 * (queued) or skipped. Returns the ids of the monitors whose slots were taken.
 */
export async function takeSlots(q: Query, slots: readonly SlotClaim[], now: Date): Promise<Set<string>> {
  if (slots.length === 0) return new Set();
  const values = sql.join(slots.map((slot) => sql`(${slot.monitorId}, ${slot.slot}, ${slot.next}, ${slot.skipped ? null : slot.checkId})`));
  const moved = await sql<{ id: string }>`with taken (id, slot, next_at, check_id) as (values ${values})
    update monitors set next_run_at = taken.next_at, current_check_id = coalesce(taken.check_id, monitors.current_check_id)
    from taken where monitors.id = taken.id and monitors.status = 'active' and monitors.next_run_at = taken.slot
    returning monitors.id`.execute(q);
  const taken = new Set(moved.rows.map((row) => row.id));
  const rows = slots
    .filter((slot) => taken.has(slot.monitorId))
    .map((slot) =>
      slot.skipped
        ? skippedCheckRow(slot.checkId, slot.monitorId, slot.slot, now)
        : heldCheckRow(slot.checkId, slot.monitorId, 'queued', 'scheduled', now, slot.slot),
    );
  for (const batch of batches(rows, ROWS_PER_INSERT)) await q.insertInto('checks').values(batch).execute();
  return taken;
}

/**
 * Inserts a check held by this worker, queued (claimed by the scheduler, to start soon) or
 * running, or with `queued`, one that waits for whichever worker claims it (work-queue.ts); and
 * makes it the monitor's current one; inside the caller's transaction.
 */
export async function insertHeldCheck(
  q: Query,
  monitorId: string,
  status: 'queued' | 'running',
  trigger: 'manual' | 'scheduled',
  now: Date,
  scheduledFor: string | null,
  queued?: RunContext,
): Promise<string> {
  const id = randomUUID();
  await q
    .insertInto('checks')
    .values({ ...heldCheckRow(id, monitorId, status, trigger, now, scheduledFor), ...(queued && queuedColumns(queued)) })
    .execute();
  await q.updateTable('monitors').set({ current_check_id: id }).where('id', '=', monitorId).execute();
  return id;
}

/** How a check ended: its page results, snapshots and summary, written together by finish(). */
export interface CheckEnding {
  status: CheckStatus;
  pages: readonly PageResult[];
  snapshots: readonly Snapshot[];
  fingerprints: readonly FingerprintUpdate[];
  /** Its credits; none for a check that did no work. */
  credits?: number;
  summary: MonitorSummary;
  error: string | null;
  /** Its notifications, queued in the outbox in the same transaction. */
  notify?: Notify;
}

export function checkStore(db: Db) {
  const q = db.query;
  const outbox = outboxStore(db);
  const record = async (row: CheckRow) => checkFromRow(row, await outbox.notificationStatus(row.id));
  /** The check `insert` writes, in a transaction that first makes sure the monitor has none queued or running (409). */
  const newCheck = async (monitor: StoredMonitor, insert: (trx: Query) => Promise<string>): Promise<CheckRecord> => {
    const id = await q.transaction().execute(async (trx) => {
      // On PostgreSQL two workers may start a check of one monitor at once: the monitor's row
      // is locked first, so that the second sees the first's check.
      if (db.kind === 'postgres') await trx.selectFrom('monitors').select('id').where('id', '=', monitor.id).forUpdate().execute();
      const running = await runningCheck(trx, monitor.id);
      if (running) throw conflictOf(monitor.id, running.id);
      return insert(trx);
    });
    return (await store.get(monitor.id, id))!;
  };
  const store = {
    /**
     * Fails the checks whose worker stopped (a crash, Ctrl-C, kill -9, a lost machine: see
     * leases.ts), so their monitors can run again. A check is never run a second time: its
     * slot ends failed, and the next slot runs as usual. Returns how many.
     */
    /**
     * Fails the checks whose worker is gone, and announces each as its run would have: a
     * `monitor.check.completed` webhook (status failed, the interruption as its error), so that
     * a receiver hears of every check. `privateTargetsAllowed` is the rule of those deliveries
     * for a monitor's team: the recovering process's own, unless the monitor was saved under a
     * stricter one.
     */
    async recoverInterrupted(now: Date, privateTargetsAllowed: (team: string) => boolean = () => false): Promise<number> {
      // Only other workers' checks can be orphans: this one's own are running.
      const held = await q
        .selectFrom('checks')
        .select(['id', 'monitor_id', 'owner_pid', 'lease_owner', 'lease_expires_at'])
        .where('status', 'in', ['queued', 'running'])
        .where((where) => where.or([where('lease_owner', 'is', null), where('lease_owner', '!=', WORKER_ID)]))
        .execute();
      let recovered = 0;
      for (const row of held.filter((candidate) => holderGone(candidate, now))) {
        await q.transaction().execute(async (trx) => {
          // Only if no one renewed or recovered it meanwhile.
          const failed = await trx
            .updateTable('checks')
            .set({ status: 'failed', finished_at: now.toISOString(), error: INTERRUPTED, lease_owner: null, lease_expires_at: null })
            .where('id', '=', row.id)
            .where('status', 'in', ['queued', 'running'])
            .where('lease_owner', 'is not distinct from', row.lease_owner)
            .where('lease_expires_at', 'is not distinct from', row.lease_expires_at)
            .executeTakeFirst();
          if (Number(failed.numUpdatedRows) !== 1) return;
          await trx.updateTable('monitors').set({ current_check_id: null }).where('current_check_id', '=', row.id).execute();
          const monitorRow = await trx.selectFrom('monitors').selectAll().where('id', '=', row.monitor_id).executeTakeFirst();
          const checkRow = await trx.selectFrom('checks').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
          if (monitorRow) {
            const monitor = monitorFromRow(monitorRow);
            const announced = webhookEntries(monitor, checkFromRow(checkRow, null), [], now).filter((entry) => entry.event === 'monitor.check.completed');
            // The stricter of the recovering process's rule and the one the monitor was saved under.
            const allowed = privateTargetsAllowed(monitor.team) && monitor.privateTargetsAllowed;
            await outboxStore(db).enqueue(
              announced.map((entry) => ({ ...entry, privateTargetsAllowed: allowed })),
              now,
              trx,
            );
          }
          recovered++;
        });
      }
      return recovered;
    },

    /** A new running check, or 409 Conflict when the monitor already has one. */
    start(monitor: StoredMonitor, trigger: 'manual' | 'scheduled', now: Date, scheduledFor: string | null = null): Promise<CheckRecord> {
      return newCheck(monitor, (trx) => insertHeldCheck(trx, monitor.id, 'running', trigger, now, scheduledFor));
    },

    /**
     * A manual check queued for whichever worker claims it (serve: work-queue.ts), or 409
     * Conflict when the monitor already has one queued or running.
     */
    enqueue(monitor: StoredMonitor, now: Date, context: RunContext): Promise<CheckRecord> {
      return newCheck(monitor, (trx) => insertHeldCheck(trx, monitor.id, 'queued', 'manual', now, null, context));
    },

    /** A queued check this worker claimed: its monitor, the monitor's team and what its run needs; undefined when it ended meanwhile. */
    async claimed(checkId: string): Promise<{ monitorId: string; team: string; context: RunContext | undefined } | undefined> {
      const row = await q
        .selectFrom('checks')
        .innerJoin('monitors', 'monitors.id', 'checks.monitor_id')
        .select(['checks.monitor_id', 'checks.run_context', 'monitors.team'])
        .where('checks.id', '=', checkId)
        .where('checks.status', '=', 'queued')
        .executeTakeFirst();
      return row && { monitorId: row.monitor_id, team: row.team, context: runContextOf(row) };
    },

    /** Ends a claimed check that could not run (its monitor deleted, say) as failed with the reason. */
    async abandon(checkId: string, error: string, now: Date): Promise<void> {
      await q.transaction().execute(async (trx) => {
        await trx
          .updateTable('checks')
          .set({ status: 'failed', finished_at: now.toISOString(), error, lease_owner: null, lease_expires_at: null })
          .where('id', '=', checkId)
          .where('status', 'in', ['queued', 'running'])
          .execute();
        await trx.updateTable('monitors').set({ current_check_id: null }).where('current_check_id', '=', checkId).execute();
      });
    },

    /** A check the scheduler claimed (queued, held by this worker) begins to run. */
    async begin(monitorId: string, checkId: string, now: Date): Promise<CheckRecord> {
      const row = await q
        .updateTable('checks')
        .set({ status: 'running', started_at: now.toISOString(), lease_expires_at: leaseUntil(now) })
        .where('id', '=', checkId)
        .where('status', '=', 'queued')
        .returningAll()
        .executeTakeFirst();
      // A check that begins has sent nothing yet: no read of the outbox (a round trip per check).
      return row ? checkFromRow(row, null) : (await store.get(monitorId, checkId))!;
    },

    /** Page results and the end of the check, written together. */
    async finish(monitor: StoredMonitor, checkId: string, ending: CheckEnding, now: Date): Promise<CheckRecord> {
      const { status, pages, summary, error, notify } = ending;
      const written = ending;
      const done = await q.transaction().execute(async (trx) => {
        const at = now.toISOString();
        // Many rows a statement: one statement per row was most of the transaction's time.
        for (const batch of batches(written.snapshots, ROWS_PER_INSERT)) {
          await trx
            .insertInto('snapshots')
            .values(
              batch.map((s) => ({
                scrape_id: s.scrapeId,
                monitor_id: monitor.id,
                target_id: s.targetId,
                url: s.url,
                markdown: s.markdown,
                scraped_at: at,
                fingerprint: s.fingerprint,
                content_hash: s.contentHash,
                gone: s.gone ? (1 as const) : (0 as const),
                json: s.json === undefined ? null : JSON.stringify(s.json),
              })),
            )
            .onConflict((conflict) =>
              conflict.column('scrape_id').doUpdateSet((row) => ({
                monitor_id: row.ref('excluded.monitor_id'),
                target_id: row.ref('excluded.target_id'),
                url: row.ref('excluded.url'),
                markdown: row.ref('excluded.markdown'),
                scraped_at: row.ref('excluded.scraped_at'),
                fingerprint: row.ref('excluded.fingerprint'),
                content_hash: row.ref('excluded.content_hash'),
                gone: row.ref('excluded.gone'),
                json: row.ref('excluded.json'),
              })),
            )
            .execute();
        }
        for (const update of written.fingerprints)
          await trx.updateTable('snapshots').set({ fingerprint: update.fingerprint }).where('scrape_id', '=', update.scrapeId).execute();
        for (const [index, batch] of batches(pages, ROWS_PER_INSERT).entries()) {
          await trx
            .insertInto('page_results')
            .values(
              batch.map((page, offset) => ({
                check_id: checkId,
                position: index * ROWS_PER_INSERT + offset,
                target_id: page.targetId,
                url: page.url,
                status: page.status,
                status_code: page.statusCode,
                previous_scrape_id: page.previousScrapeId,
                current_scrape_id: page.currentScrapeId,
                diff: page.diff ? JSON.stringify(page.diff) : null,
                judgment: page.judgment ? JSON.stringify(page.judgment) : null,
                error: page.error,
                snapshot: page.snapshot ? JSON.stringify(page.snapshot) : null,
                screenshot: page.screenshot ?? null,
                noise: page.noise ? JSON.stringify(page.noise) : null,
              })),
            )
            .execute();
        }
        // Each statement here is a round trip to a database across a network: the check's row
        // comes back from its update, and the monitor's status is read by the update that needs it.
        const row = await trx
          .updateTable('checks')
          .set({
            status,
            finished_at: at,
            summary: JSON.stringify(summary),
            error,
            credits: written.credits ?? null,
            lease_owner: null,
            lease_expires_at: null,
          })
          .where('id', '=', checkId)
          .returningAll()
          .executeTakeFirstOrThrow();
        await trx
          .updateTable('monitors')
          .set({
            current_check_id: null,
            last_run_at: row.started_at,
            last_check_summary: JSON.stringify(summary),
            // Paused or deleted meanwhile: no next run.
            next_run_at: sql<string | null>`case when status = 'active' then ${nextRunAt(monitor.definition, 'active', now)} else null end`,
          })
          .where('id', '=', monitor.id)
          .execute();
        const check = checkFromRow(row, null);
        const entries = notify?.(check, pages) ?? [];
        if (entries.length === 0) return check;
        await outboxStore(db).enqueue(entries, now, trx);
        return undefined;
      });
      // With notifications queued, their state is read back; without, there is none.
      return done ?? (await store.get(monitor.id, checkId))!;
    },

    /** A slot that came while the monitor's previous check still ran: recorded, not run. */
    async recordSkipped(monitor: StoredMonitor, scheduledFor: string, now: Date, into: Query = q): Promise<string> {
      const id = randomUUID();
      await into
        .insertInto('checks')
        .values(skippedCheckRow(id, monitor.id, scheduledFor, now))
        .execute();
      return id;
    },

    async get(monitorId: string, checkId: string): Promise<CheckRecord | undefined> {
      const row = await q.selectFrom('checks').selectAll().where('monitor_id', '=', monitorId).where('id', '=', checkId).executeTakeFirst();
      return row && record(row);
    },

    async list(monitorId: string): Promise<CheckRecord[]> {
      const rows = await q.selectFrom('checks').selectAll().where('monitor_id', '=', monitorId).orderBy('started_at', 'desc').execute();
      return Promise.all(rows.map(record));
    },

    /** A check's page results in order; of one status; `window` pages through a large check a part at a time. */
    async pages(checkId: string, status?: PageStatus, window?: { offset: number; limit: number }): Promise<CheckPage[]> {
      const check = await q.selectFrom('checks').select(['finished_at', 'started_at']).where('id', '=', checkId).executeTakeFirst();
      const createdAt = check?.finished_at ?? check?.started_at ?? new Date(0).toISOString();
      const rows = await q
        .selectFrom('page_results')
        .selectAll()
        .where('check_id', '=', checkId)
        .$if(status !== undefined, (query) => query.where('status', '=', status!))
        .orderBy('position')
        .$if(window !== undefined, (query) => query.limit(window!.limit).offset(window!.offset))
        .execute();
      return rows.map((row) => ({
        id: `${checkId}:${row.position}`,
        createdAt,
        url: row.url,
        targetId: row.target_id,
        status: row.status,
        statusCode: row.status_code,
        previousScrapeId: row.previous_scrape_id,
        currentScrapeId: row.current_scrape_id,
        diff: row.diff ? storedDiff(row.diff) : null,
        judgment: row.judgment ? (JSON.parse(row.judgment) as Judgment) : null,
        error: row.error,
        ...(row.snapshot !== null && { snapshot: JSON.parse(row.snapshot) as { json: unknown } }),
        ...(row.screenshot && { screenshot: row.screenshot }),
        ...(row.noise && { noise: JSON.parse(row.noise) as PageNoise }),
      }));
    },

    /**
     * The newest screenshot kept of a page by an earlier check of the monitor (started before
     * `startedAt`): what a changed page looked like before. Only new and changed pages keep one,
     * so it is the page as it was at its last change, which a same page since has not altered.
     */
    async previousScreenshot(monitorId: string, startedAt: string, targetId: string, url: string): Promise<string | undefined> {
      const row = await q
        .selectFrom('page_results')
        .innerJoin('checks', 'checks.id', 'page_results.check_id')
        .select('page_results.screenshot')
        .where('checks.monitor_id', '=', monitorId)
        .where('checks.started_at', '<', startedAt)
        .where('page_results.target_id', '=', targetId)
        .where('page_results.url', '=', url)
        .where('page_results.screenshot', 'is not', null)
        .orderBy('checks.started_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row?.screenshot ?? undefined;
    },

    /** The URLs a target had in the last check that finished, except those already removed. */
    async previousUrls(monitorId: string, targetId: string): Promise<string[]> {
      const last = await q
        .selectFrom('checks')
        .select('id')
        .where('monitor_id', '=', monitorId)
        .where('status', 'in', ['completed', 'partial'])
        .orderBy('finished_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!last) return [];
      const rows = await q
        .selectFrom('page_results')
        .select('url')
        .where('check_id', '=', last.id)
        .where('target_id', '=', targetId)
        .where('status', 'not in', ['removed', 'error'])
        .execute();
      return rows.map((row) => row.url);
    },

    async lastSnapshot(monitorId: string, targetId: string, url: string): Promise<LastSnapshot | undefined> {
      // Snapshots of checks started in the same millisecond are told apart by the order of writing.
      const row = await q
        .selectFrom('snapshots')
        .select(['scrape_id', 'fingerprint', 'content_hash', 'gone'])
        .where('monitor_id', '=', monitorId)
        .where('target_id', '=', targetId)
        .where('url', '=', url)
        .orderBy('scraped_at', 'desc')
        .orderBy(db.writtenOrder(), 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && { scrapeId: row.scrape_id, fingerprint: row.fingerprint, contentHash: row.content_hash, gone: row.gone === 1 };
    },

    /** lastSnapshot of many pages of a target at once, by URL (pages never seen are absent). */
    async lastSnapshots(monitorId: string, targetId: string, urls: readonly string[]): Promise<Map<string, LastSnapshot>> {
      const found = new Map<string, LastSnapshot>();
      const unique = [...new Set(urls)];
      for (let start = 0; start < unique.length; start += SNAPSHOT_LOOKUP_BATCH) {
        const ranked = q
          .selectFrom('snapshots')
          .select(['url', 'scrape_id', 'fingerprint', 'content_hash', 'gone'])
          .select(sql<number>`row_number() over (partition by url order by scraped_at desc, ${db.writtenOrder()} desc)`.as('newest'))
          .where('monitor_id', '=', monitorId)
          .where('target_id', '=', targetId)
          .where('url', 'in', unique.slice(start, start + SNAPSHOT_LOOKUP_BATCH));
        const rows = await q
          .selectFrom(ranked.as('ranked'))
          .select(['url', 'scrape_id', 'fingerprint', 'content_hash', 'gone'])
          .where('newest', '=', 1)
          .execute();
        for (const row of rows)
          found.set(row.url, { scrapeId: row.scrape_id, fingerprint: row.fingerprint, contentHash: row.content_hash, gone: row.gone === 1 });
      }
      return found;
    },

    /**
     * What changed on a page at each of the monitor's last `limit` finished checks, newest
     * first: the diff of a changed page, the raw diff of a same page's noise, null for a page
     * that did not differ (or was not checked, or extracts JSON).
     */
    async recentDiffs(monitorId: string, targetId: string, url: string, limit: number): Promise<(PageDiff | null)[]> {
      const checks = await q
        .selectFrom('checks')
        .select('id')
        .where('monitor_id', '=', monitorId)
        .where('status', 'in', ['completed', 'partial'])
        .orderBy('started_at', 'desc')
        .limit(limit)
        .execute();
      if (checks.length === 0) return [];
      const rows = await q
        .selectFrom('page_results')
        .select(['check_id', 'status', 'diff', 'noise'])
        .where(
          'check_id',
          'in',
          checks.map((check) => check.id),
        )
        .where('target_id', '=', targetId)
        .where('url', '=', url)
        .execute();
      return checks.map((check) => {
        const row = rows.find((candidate) => candidate.check_id === check.id);
        if (row?.status === 'changed' && row.diff) {
          const diff = storedDiff(row.diff);
          return 'files' in (diff.json as object) ? (diff as PageDiff) : null;
        }
        return row?.status === 'same' && row.noise ? (JSON.parse(row.noise) as PageNoise).diff : null;
      });
    },

    /** The JSON a snapshot kept; null when it kept none (written before its target extracted JSON). */
    async snapshotJson(scrapeId: string): Promise<unknown> {
      const json = (await q.selectFrom('snapshots').select('json').where('scrape_id', '=', scrapeId).executeTakeFirst())?.json;
      return json === null || json === undefined ? null : JSON.parse(json);
    },

    async snapshotMarkdown(scrapeId: string): Promise<string> {
      return (await q.selectFrom('snapshots').select('markdown').where('scrape_id', '=', scrapeId).executeTakeFirst())?.markdown ?? '';
    },

    /**
     * Checks and snapshots older than the retention go; the newest snapshot of a page stays for
     * comparison. Returns the screenshot file names the pruned checks kept, for the caller to delete.
     */
    async prune(monitorId: string, retentionDays: number, now: Date): Promise<string[]> {
      const cutoff = new Date(now.getTime() - retentionDays * 24 * 60 * 60 * 1000).toISOString();
      return q.transaction().execute(async (trx) => {
        const pruned = trx
          .selectFrom('checks')
          .select('id')
          .where('monitor_id', '=', monitorId)
          .where('finished_at', 'is not', null)
          .where('finished_at', '<', cutoff);
        const screenshots = (
          await trx.selectFrom('page_results').select('screenshot').where('screenshot', 'is not', null).where('check_id', 'in', pruned).execute()
        ).map((row) => row.screenshot!);
        await trx.deleteFrom('checks').where('monitor_id', '=', monitorId).where('finished_at', 'is not', null).where('finished_at', '<', cutoff).execute();
        const newest = (s: string) =>
          trx
            .selectFrom('snapshots as newest')
            .select('newest.scrape_id')
            .whereRef('newest.monitor_id', '=', `${s}.monitor_id` as 'newest.monitor_id')
            .whereRef('newest.target_id', '=', `${s}.target_id` as 'newest.target_id')
            .whereRef('newest.url', '=', `${s}.url` as 'newest.url')
            .orderBy('newest.scraped_at', 'desc')
            .orderBy(db.writtenOrder('newest.seq'), 'desc')
            .limit(1);
        await trx
          .deleteFrom('snapshots')
          .where('monitor_id', '=', monitorId)
          .where('scraped_at', '<', cutoff)
          .where('scrape_id', 'not in', newest('snapshots'))
          .execute();
        return screenshots;
      });
    },

    /** Runs a check's work with its lease renewed until it settles. */
    holding<T>(work: Promise<T>): Promise<T> {
      return renewWhile(db, work);
    },
  };
  return store;
}

export type CheckStore = ReturnType<typeof checkStore>;
