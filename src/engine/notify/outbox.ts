/**
 * The outbox of notifications. Deliveries are written in the same transaction as the check
 * results they announce, so a crash can lose neither; each keeps its id (the `webhookId` of the
 * payload) across retries, so receivers can drop duplicates.
 */
import { diffText } from '../diff/json-diff.js';
import { randomUUID } from 'node:crypto';
import type { CheckRecord, PageResult } from '../monitors/check-store.js';
import type { StoredMonitor } from '../monitors/monitor-store.js';
import type { Db } from '../store/database.js';

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
  monitorId: string;
  checkId: string;
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

interface Row {
  id: string;
  team: string;
  private_targets_allowed: number;
  monitor_id: string;
  check_id: string;
  channel: 'webhook' | 'email';
  event: string;
  target: string;
  headers: string;
  body: string;
  status: OutboxEntry['status'];
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
}

const fromRow = (row: Row): OutboxEntry => ({
  id: row.id, team: row.team, privateTargetsAllowed: row.private_targets_allowed === 1, monitorId: row.monitor_id, checkId: row.check_id, channel: row.channel, event: row.event, target: row.target,
  headers: JSON.parse(row.headers) as Record<string, string>, body: row.body, status: row.status, attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at, lastError: row.last_error,
});

/** A delivery as a check queues it. */
export type NewDelivery = Omit<OutboxEntry, 'status' | 'attempts' | 'lastError'>;
/** As the notification builders make it: the queuing process adds its private-address rule. */
export type Notification = Omit<NewDelivery, 'privateTargetsAllowed'>;

/** Per channel, how many deliveries of a check are pending, delivered and failed. */
/** Per channel: deliveries by state, and the last error of one that failed or is being retried. */
export type NotificationStatus = Partial<Record<'webhook' | 'email', { pending: number; delivered: number; failed: number; lastError?: string; attempts?: number }>>;

/** One delivery of a check, as `monitor check` shows it: no headers, no body. */
export interface DeliveryState {
  channel: 'webhook' | 'email';
  event: string;
  target: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastError: string | null;
}

/**
 * The webhook deliveries a finished check causes (DESIGN §6): `monitor.page` for each page that
 * is not `same`, `monitor.check.completed` once, as the monitor's `webhook.events` allow.
 */
export function webhookEntries(monitor: StoredMonitor, check: CheckRecord, pages: readonly PageResult[], now: Date): Notification[] {
  const webhook = monitor.definition.webhook;
  if (!webhook) return [];
  const events = new Set(webhook.events ?? ['monitor.page', 'monitor.check.completed']);
  const entry = (event: string, data: unknown[]) => {
    const id = randomUUID();
    const body = JSON.stringify({ success: true, type: event, id: check.id, webhookId: id, data, metadata: webhook.metadata ?? {} });
    return { id, team: monitor.team, monitorId: monitor.id, checkId: check.id, channel: 'webhook' as const, event, target: webhook.url, headers: webhook.headers ?? {}, body, nextAttemptAt: now.toISOString() };
  };
  const entries = [];
  if (events.has('monitor.page')) {
    for (const page of pages) {
      if (page.status === 'same') continue;
      // The kept screenshot is a file of this machine: not for the receiver.
      const { screenshot: _, ...result } = page;
      entries.push(entry('monitor.page', [{ monitorId: monitor.id, monitorName: monitor.definition.name, checkId: check.id, ...result, isMeaningful: page.judgment?.meaningful ?? null }]));
    }
  }
  if (events.has('monitor.check.completed')) {
    entries.push(entry('monitor.check.completed', [{ monitorName: monitor.definition.name, ...check }]));
  }
  return entries;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

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
export function emailEntries(monitor: StoredMonitor, check: CheckRecord, pages: readonly PageResult[], now: Date): Notification[] {
  const email = monitor.definition.notification?.email;
  if (!email?.enabled || !email.recipients?.length || !check.summary) return [];
  const noteworthy = pages.filter((page) => page.status === 'new' || page.status === 'changed' || page.status === 'removed');
  if (noteworthy.length === 0) return [];
  const { summary } = check;
  const name = monitor.definition.name;
  const counts = `${summary.changed} changed, ${summary.new} new, ${summary.removed} removed, ${summary.error} errors of ${summary.totalPages} pages`;
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
    ...noteworthy.map((page) => `<li><strong>${page.status}</strong> <a href="${escapeHtml(page.url)}">${escapeHtml(page.url)}</a>${diffOf(page) ? `<pre>${escapeHtml(diffOf(page))}</pre>` : ''}</li>`),
    '</ul>',
  ].join('\n');
  const message: EmailMessage = { to: email.recipients, subject, text, html };
  const id = randomUUID();
  return [{ id, team: monitor.team, monitorId: monitor.id, checkId: check.id, channel: 'email', event: 'monitor.check.summary', target: email.recipients.join(', '), headers: {}, body: JSON.stringify(message), nextAttemptAt: now.toISOString() }];
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

export function outboxStore(db: Db) {
  return {
    /** Inside the caller's transaction: the check's deliveries, pending. */
    enqueue(entries: readonly NewDelivery[], now: Date): void {
      const insert = db.prepare("INSERT INTO outbox (id, team, private_targets_allowed, monitor_id, check_id, channel, event, target, headers, body, status, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)");
      for (const e of entries) insert.run(e.id, e.team, e.privateTargetsAllowed ? 1 : 0, e.monitorId, e.checkId, e.channel, e.event, e.target, JSON.stringify(e.headers), e.body, e.nextAttemptAt, now.toISOString());
    },

    due(now: Date, limit = 100): OutboxEntry[] {
      return db.prepare<[string, number], Row>("SELECT * FROM outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?").all(now.toISOString(), limit).map(fromRow);
    },

    /** When the next pending delivery is due, if any is. */
    nextAttemptAt(): string | undefined {
      return db.prepare<[], { next: string | null }>("SELECT min(next_attempt_at) AS next FROM outbox WHERE status = 'pending'").get()?.next ?? undefined;
    },

    delivered(id: string, now: Date): void {
      db.prepare("UPDATE outbox SET status = 'delivered', attempts = attempts + 1, delivered_at = ?, last_error = NULL WHERE id = ?").run(now.toISOString(), id);
    },

    /** A failed attempt: tried again at `retryAt`, or failed for good when there is none. */
    attemptFailed(id: string, error: string, retryAt: Date | undefined): void {
      if (retryAt) db.prepare('UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE id = ?').run(error, retryAt.toISOString(), id);
      else db.prepare("UPDATE outbox SET status = 'failed', attempts = attempts + 1, last_error = ? WHERE id = ?").run(error, id);
    },

    forCheck(checkId: string): OutboxEntry[] {
      return db.prepare<[string], Row>('SELECT * FROM outbox WHERE check_id = ? ORDER BY created_at, rowid').all(checkId).map(fromRow);
    },

    notificationStatus(checkId: string): NotificationStatus | null {
      const rows = db.prepare<[string], { channel: 'webhook' | 'email'; status: OutboxEntry['status']; n: number }>('SELECT channel, status, count(*) AS n FROM outbox WHERE check_id = ? GROUP BY channel, status').all(checkId);
      if (rows.length === 0) return null;
      const status: NotificationStatus = {};
      for (const row of rows) {
        const channel = (status[row.channel] ??= { pending: 0, delivered: 0, failed: 0 });
        channel[row.status] = row.n;
      }
      const errors = db.prepare<[string], { channel: 'webhook' | 'email'; last_error: string; attempts: number }>(
        "SELECT channel, last_error, attempts FROM outbox WHERE check_id = ? AND last_error IS NOT NULL AND status != 'delivered' ORDER BY rowid",
      ).all(checkId);
      for (const row of errors) Object.assign(status[row.channel]!, { lastError: row.last_error, attempts: row.attempts });
      return status;
    },

    /** The deliveries of a check, their state and last error; a webhook URL without its query. */
    deliveries(checkId: string): DeliveryState[] {
      return db.prepare<[string], { channel: 'webhook' | 'email'; event: string; target: string; status: DeliveryState['status']; attempts: number; last_error: string | null }>(
        'SELECT channel, event, target, status, attempts, last_error FROM outbox WHERE check_id = ? ORDER BY created_at, rowid',
      ).all(checkId).map((row) => ({ channel: row.channel, event: row.event, target: withoutQuery(row.target), status: row.status, attempts: row.attempts, lastError: row.last_error }));
    },
  };
}

export type OutboxStore = ReturnType<typeof outboxStore>;
