/**
 * The outbox of notifications. Deliveries are written in the same transaction as the check
 * results (or crawl and batch pages, job-webhooks.ts) they announce, so a crash can lose neither;
 * each keeps its id (the `webhookId` of the payload) across retries, so receivers can drop
 * duplicates. A job's deliveries go out one at a time in the order they were written: one that
 * waits for a retry holds back those after it.
 */
import { withoutControls } from '../content/control-characters.js';
import { diffText } from '../diff/json-diff.js';
import { changeHtml, escapeHtml, linkHtml } from '../diff/diff-html.js';
import { randomUUID } from 'node:crypto';
import type { CheckRecord, DeliveryState, NotificationStatus, PageResult } from '../../contract/checks.js';
import type { NormalizedMonitor } from '../../spec/monitor.js';
import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Db, Query } from '../store/database.js';
import { holderGone, leaseUntil, WORKER_ID } from '../store/leases.js';
import type { Tables } from '../store/tables.js';
import { plural } from '../../lib/plural.js';

export interface OutboxEntry {
  id: string;
  /** The team of the monitor: deliveries belong to it like everything stored. */
  team: string;
  /**
   * Whether the process that queued it let targets on private addresses be reached (the command
   * line does; serve does not, unless started with --allow-private-targets): the delivery keeps
   * that rule whichever process delivers it.
   */
  privateTargetsAllowed: boolean;
  /** A monitor's deliveries name its monitor and check; a crawl's or batch scrape's, its job. */
  monitorId: string | null;
  checkId: string | null;
  jobId: string | null;
  channel: 'webhook' | 'email';
  event: string;
  target: string;
  headers: Record<string, string>;
  body: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: string;
  lastError: string | null;
}

type Row = Selectable<Tables['outbox']>;

const fromRow = (row: Row): OutboxEntry => ({
  id: row.id,
  team: row.team,
  privateTargetsAllowed: row.private_targets_allowed === 1,
  monitorId: row.monitor_id,
  checkId: row.check_id,
  jobId: row.job_id,
  channel: row.channel,
  event: row.event,
  target: row.target,
  headers: JSON.parse(row.headers) as Record<string, string>,
  body: row.body,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  lastError: row.last_error,
});

/** A delivery as a check or a job queues it. */
export type NewDelivery = Omit<OutboxEntry, 'status' | 'attempts' | 'lastError' | 'jobId'> & { jobId?: string | null };
/** As the notification builders make it: the queuing process adds its private-address rule. */
export type Notification = Omit<NewDelivery, 'privateTargetsAllowed'>;

export type { DeliveryState, NotificationStatus } from '../../contract/checks.js';

/**
 * What the notification builders read of a monitor (a stored monitor is one): whose it is, and
 * the name and notification settings of its definition.
 */
export interface NotifiedMonitor {
  id: string;
  team: string;
  definition: Pick<NormalizedMonitor, 'name' | 'webhook' | 'notification'>;
}

/**
 * The webhook deliveries a finished check causes (DESIGN §6): `monitor.page` for each page that
 * is not `same`, `monitor.check.completed` once, as the monitor's `webhook.events` allow.
 */
export function webhookEntries(monitor: NotifiedMonitor, check: CheckRecord, pages: readonly PageResult[], now: Date): Notification[] {
  const webhook = monitor.definition.webhook;
  if (!webhook) return [];
  const events = new Set(webhook.events ?? ['monitor.page', 'monitor.check.completed']);
  const entry = (event: string, data: unknown[]) => {
    const id = randomUUID();
    const body = JSON.stringify({ success: true, type: event, id: check.id, webhookId: id, data, metadata: webhook.metadata ?? {} });
    return {
      id,
      team: monitor.team,
      monitorId: monitor.id,
      checkId: check.id,
      channel: 'webhook' as const,
      event,
      target: webhook.url,
      headers: webhook.headers ?? {},
      body,
      nextAttemptAt: now.toISOString(),
    };
  };
  const entries = [];
  if (events.has('monitor.page')) {
    for (const page of pages) {
      if (page.status === 'same') continue;
      // The kept screenshot is a file of this machine: not for the receiver.
      const { screenshot: _, ...result } = page;
      entries.push(
        entry('monitor.page', [
          { monitorId: monitor.id, monitorName: monitor.definition.name, checkId: check.id, ...result, isMeaningful: page.judgment?.meaningful ?? null },
        ]),
      );
    }
  }
  if (events.has('monitor.check.completed')) {
    entries.push(entry('monitor.check.completed', [{ monitorName: monitor.definition.name, ...check }]));
  }
  return entries;
}

/** The e-mail part of a delivery's stored body. */
export interface EmailMessage {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/**
 * The e-mail summary of a check with changes (new, changed or removed pages), to the monitor's
 * recipients when e-mail is enabled; with `includeDiffs`, each changed page's diff too.
 */
export function emailEntries(monitor: NotifiedMonitor, check: CheckRecord, pages: readonly PageResult[], now: Date): Notification[] {
  const email = monitor.definition.notification?.email;
  if (!email?.enabled || !email.recipients?.length || !check.summary) return [];
  const noteworthy = pages.filter((page) => page.status === 'new' || page.status === 'changed' || page.status === 'removed');
  if (noteworthy.length === 0) return [];
  const { summary } = check;
  const name = monitor.definition.name;
  const counts = `${summary.changed} changed, ${summary.new} new, ${summary.removed} removed, ${plural(summary.error, 'error')} of ${plural(summary.totalPages, 'page')}`;
  const subject = `[webwatch] ${name}: ${[summary.changed && `${summary.changed} changed`, summary.new && `${summary.new} new`, summary.removed && `${summary.removed} removed`].filter(Boolean).join(', ')}`;
  const diffOf = (page: PageResult) => (email.includeDiffs && page.diff ? diffText(page.diff) : '');
  const text = [
    `Check ${check.id} of monitor "${name}" finished ${check.finishedAt ?? ''}: ${counts}.`,
    '',
    ...noteworthy.flatMap((page) => [`${page.status.toUpperCase()}  ${page.url}`, ...(diffOf(page) ? ['', diffOf(page), ''] : [])]),
  ].join('\n');
  const html = [
    `<p>Check <code>${escapeHtml(check.id)}</code> of monitor <strong>${escapeHtml(name)}</strong> finished ${escapeHtml(check.finishedAt ?? '')}: ${escapeHtml(counts)}.</p>`,
    '<ul>',
    // The diff as the report shows it, changed words marked, styled inline for mail readers.
    ...noteworthy.map(
      (page) => `<li><strong>${page.status}</strong> ${linkHtml(page.url)}${email.includeDiffs && page.diff ? changeHtml(page.diff, 'inline') : ''}</li>`,
    ),
    '</ul>',
  ].join('\n');
  // Diffs kept before page text lost its control characters could still hold them: a mail carries none.
  const message: EmailMessage = { to: email.recipients, subject: withoutControls(subject), text: withoutControls(text), html: withoutControls(html) };
  const id = randomUUID();
  return [
    {
      id,
      team: monitor.team,
      monitorId: monitor.id,
      checkId: check.id,
      channel: 'email',
      event: 'monitor.check.summary',
      target: email.recipients.join(', '),
      headers: {},
      body: JSON.stringify(message),
      nextAttemptAt: now.toISOString(),
    },
  ];
}

/** A webhook URL as shown: tokens often ride in the query string. */
const withoutQuery = (target: string) => {
  try {
    const url = new URL(target);
    return url.search ? `${url.origin}${url.pathname}?…` : target;
  } catch {
    return target;
  }
};

/** Pending deliveries of one job read at a time when claiming its next ones. */
const JOB_CLAIM_MAX = 50;

export function outboxStore(db: Db) {
  const q = db.query;
  const isFree = (row: Row, now: Date) => !row.lease_owner || row.lease_owner === WORKER_ID || holderGone(row, now);
  /** A job's deliveries that are no longer needed once they ended: the job keeps its own results (and zero data retention keeps none). */
  const bodyWhenEnded = (eb: ExpressionBuilder<Tables, 'outbox'>) => eb.case().when('job_id', 'is not', null).then('').else(eb.ref('body')).end();

  /**
   * Claims the leading run of a job's pending deliveries that are due and that no other worker
   * holds, in the order written, stopping at the first that is not: so that a job's events reach
   * its receiver in order. Each is taken only if it is still as it was read (another worker may
   * claim at the same time); the first that is not ends the run.
   */
  async function claimJob(trx: Query, jobId: string, now: Date, limit: number): Promise<Row[]> {
    const pending = await trx
      .selectFrom('outbox')
      .selectAll()
      .where('job_id', '=', jobId)
      .where('status', '=', 'pending')
      .orderBy(db.writtenOrder())
      .limit(limit)
      .execute();
    const taken: Row[] = [];
    for (const row of pending) {
      if (row.next_attempt_at > now.toISOString() || !isFree(row, now)) break;
      const result = await trx
        .updateTable('outbox')
        .set({ lease_owner: WORKER_ID, lease_expires_at: leaseUntil(now) })
        .where('id', '=', row.id)
        .where('status', '=', 'pending')
        .where('lease_owner', 'is not distinct from', row.lease_owner)
        .where('lease_expires_at', 'is not distinct from', row.lease_expires_at)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) break;
      taken.push(row);
    }
    return taken;
  }

  return {
    /**
     * Inside the caller's transaction (`into`): the check's or job's deliveries, pending. A job's
     * are due no sooner than its deliveries already waiting for a retry, which they follow.
     */
    async enqueue(entries: readonly NewDelivery[], now: Date, into: Query = q): Promise<void> {
      if (entries.length === 0) return;
      const waiting = new Map<string, string>();
      for (const jobId of new Set(entries.flatMap((e) => (e.jobId ? [e.jobId] : [])))) {
        const row = await into
          .selectFrom('outbox')
          .select((eb) => eb.fn.max('next_attempt_at').as('last'))
          .where('job_id', '=', jobId)
          .where('status', '=', 'pending')
          .executeTakeFirst();
        if (row?.last) waiting.set(jobId, row.last);
      }
      const dueAt = (e: NewDelivery) => {
        const after = e.jobId ? waiting.get(e.jobId) : undefined;
        return after && after > e.nextAttemptAt ? after : e.nextAttemptAt;
      };
      await into
        .insertInto('outbox')
        .values(
          entries.map((e) => ({
            id: e.id,
            team: e.team,
            private_targets_allowed: e.privateTargetsAllowed ? (1 as const) : (0 as const),
            monitor_id: e.monitorId,
            check_id: e.checkId,
            job_id: e.jobId ?? null,
            channel: e.channel,
            event: e.event,
            target: e.target,
            headers: JSON.stringify(e.headers),
            body: e.body,
            status: 'pending' as const,
            attempts: 0,
            next_attempt_at: dueAt(e),
            created_at: now.toISOString(),
            last_error: null,
            delivered_at: null,
            lease_owner: null,
            lease_expires_at: null,
          })),
        )
        .execute();
    },

    /**
     * Claims the pending deliveries that are due, at most `limit`: each is held by this worker
     * for a lease, so that of several workers exactly one attempts it. A claim whose worker
     * stopped before recording the attempt lapses, and the delivery is attempted again (with the
     * same webhookId: receivers drop the duplicate, if the first attempt got through).
     */
    async claimDue(now: Date, limit = 100): Promise<OutboxEntry[]> {
      return q.transaction().execute(async (trx) => {
        const candidates = await trx
          .selectFrom('outbox')
          .selectAll()
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', now.toISOString())
          .where('job_id', 'is', null)
          .orderBy('next_attempt_at')
          .limit(limit * 2)
          .$if(db.kind === 'postgres', (query) => query.forUpdate().skipLocked())
          .execute();
        const free = candidates.filter((row) => isFree(row, now)).slice(0, limit);
        if (free.length > 0)
          await trx
            .updateTable('outbox')
            .set({ lease_owner: WORKER_ID, lease_expires_at: leaseUntil(now) })
            .where(
              'id',
              'in',
              free.map((row) => row.id),
            )
            .execute();
        // Jobs' deliveries: no row locked but by the claims themselves, each job's in the order written, so that two workers cannot deadlock.
        const jobs = await trx
          .selectFrom('outbox')
          .select('job_id')
          .distinct()
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', now.toISOString())
          .where('job_id', 'is not', null)
          .limit(limit)
          .execute();
        for (const { job_id: jobId } of jobs) free.push(...(await claimJob(trx, jobId!, now, JOB_CLAIM_MAX)));
        return free.map(fromRow);
      });
    },

    /**
     * A job's delivery waits for a retry at `until`: the job's deliveries after it wait as long,
     * and those this worker claimed with it are given back.
     */
    async holdBackJob(jobId: string, until: Date): Promise<void> {
      await q.transaction().execute(async (trx) => {
        await trx
          .updateTable('outbox')
          .set({ next_attempt_at: until.toISOString() })
          .where('job_id', '=', jobId)
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<', until.toISOString())
          .execute();
        await trx
          .updateTable('outbox')
          .set({ lease_owner: null, lease_expires_at: null })
          .where('job_id', '=', jobId)
          .where('status', '=', 'pending')
          .where('lease_owner', '=', WORKER_ID)
          .execute();
      });
    },

    /** When the next pending delivery is due, if any is. */
    async nextAttemptAt(): Promise<string | undefined> {
      const row = await q
        .selectFrom('outbox')
        .select((eb) => eb.fn.min('next_attempt_at').as('next'))
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return row?.next ?? undefined;
    },

    async delivered(id: string, now: Date): Promise<void> {
      await q
        .updateTable('outbox')
        .set((eb) => ({
          status: 'delivered',
          attempts: eb('attempts', '+', 1),
          delivered_at: now.toISOString(),
          last_error: null,
          lease_owner: null,
          lease_expires_at: null,
          body: bodyWhenEnded(eb),
        }))
        .where('id', '=', id)
        .execute();
    },

    /** A failed attempt: tried again at `retryAt`, or failed for good when there is none. */
    async attemptFailed(id: string, error: string, retryAt: Date | undefined): Promise<void> {
      await q
        .updateTable('outbox')
        .set((eb) => ({
          attempts: eb('attempts', '+', 1),
          last_error: error,
          lease_owner: null,
          lease_expires_at: null,
          ...(retryAt ? { next_attempt_at: retryAt.toISOString() } : { status: 'failed' as const, body: bodyWhenEnded(eb) }),
        }))
        .where('id', '=', id)
        .execute();
    },

    /** Gives back claims not attempted (a worker stopping). */
    async release(ids: readonly string[]): Promise<void> {
      if (ids.length > 0)
        await q.updateTable('outbox').set({ lease_owner: null, lease_expires_at: null }).where('id', 'in', ids).where('lease_owner', '=', WORKER_ID).execute();
    },

    async forCheck(checkId: string): Promise<OutboxEntry[]> {
      const rows = await q.selectFrom('outbox').selectAll().where('check_id', '=', checkId).orderBy('created_at').orderBy(db.writtenOrder()).execute();
      return rows.map(fromRow);
    },

    async notificationStatus(checkId: string): Promise<NotificationStatus | null> {
      const rows = await q
        .selectFrom('outbox')
        .select(['channel', 'status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('check_id', '=', checkId)
        .groupBy(['channel', 'status'])
        .execute();
      if (rows.length === 0) return null;
      const status: NotificationStatus = {};
      for (const row of rows) {
        const channel = (status[row.channel] ??= { pending: 0, delivered: 0, failed: 0 });
        channel[row.status] = Number(row.n);
      }
      const errors = await q
        .selectFrom('outbox')
        .select(['channel', 'last_error', 'attempts'])
        .where('check_id', '=', checkId)
        .where('last_error', 'is not', null)
        .where('status', '!=', 'delivered')
        .orderBy(db.writtenOrder())
        .execute();
      for (const row of errors) Object.assign(status[row.channel]!, { lastError: row.last_error, attempts: row.attempts });
      return status;
    },

    /** The deliveries of a check, their state and last error; a webhook URL without its query. */
    async deliveries(checkId: string): Promise<DeliveryState[]> {
      const rows = await q
        .selectFrom('outbox')
        .select(['channel', 'event', 'target', 'status', 'attempts', 'last_error'])
        .where('check_id', '=', checkId)
        .orderBy('created_at')
        .orderBy(db.writtenOrder())
        .execute();
      return rows.map((row) => ({
        channel: row.channel,
        event: row.event,
        target: withoutQuery(row.target),
        status: row.status,
        attempts: row.attempts,
        lastError: row.last_error,
      }));
    },
  };
}

export type OutboxStore = ReturnType<typeof outboxStore>;
