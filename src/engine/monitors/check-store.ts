/** Checks, page results and page snapshots of monitors in the engine's database. */
import { randomUUID } from 'node:crypto';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import type { MonitorSummary } from '../../spec/monitor.js';
import type { PageDiff } from '../diff/markdown-diff.js';
import type { JsonFieldDiff } from '../diff/json-diff.js';
import type { Judgment } from '../judge/judge.js';
import type { Db } from '../store/database.js';
import { outboxStore, type NewDelivery, type NotificationStatus } from '../notify/outbox.js';
import { nextRunAt, type StoredMonitor } from './monitor-store.js';
import { processAlive } from '../store/owner-process.js';

export type CheckStatus = 'queued' | 'running' | 'completed' | 'partial' | 'failed' | 'skipped_overlap';
export type PageStatus = 'new' | 'same' | 'changed' | 'removed' | 'error';

export interface PageResult {
  url: string;
  targetId: string;
  status: PageStatus;
  statusCode: number | null;
  previousScrapeId: string | null;
  currentScrapeId: string | null;
  /** The markdown's diff; for a target that extracts JSON, `{json}` of its changed fields (and the markdown's `text` in mixed mode). */
  diff: PageDiff | JsonPageDiff | null;
  judgment: Judgment | null;
  error: string | null;
  /** The JSON extracted this time, for a target that extracts JSON. */
  snapshot?: { json: unknown } | null;
  /**
   * The screenshot of a new or changed page, kept with the check: in the store its file name
   * under the team's `artifacts/kept`; in a check's answer its file URL (a URL of serve under serve).
   */
  screenshot?: string;
}

export interface JsonPageDiff {
  text?: string;
  json: JsonFieldDiff;
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

export interface CheckRecord {
  id: string;
  monitorId: string;
  status: CheckStatus;
  trigger: 'manual' | 'scheduled';
  /** The schedule slot a scheduled check was started for. */
  scheduledFor: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** Zeroed until the check has finished. */
  summary: MonitorSummary;
  error: string | null;
  /** Deliveries of the check's notifications, per channel; null when it has none. */
  notificationStatus: NotificationStatus | null;
  /** The embedded engine bills nothing: credits are counted (a page fetched is 1), never charged. */
  billingStatus: 'not_applicable';
  estimatedCredits: number | null;
  reservedCredits: number | null;
  /** What the check's pages cost, once it has finished: each what its scrape reported (a page not fetched again, 1). */
  actualCredits: number | null;
  createdAt: string;
  updatedAt: string;
}

/** A page result as a check's answer carries it: with its id and time. */
export interface CheckPage extends PageResult {
  /** `<checkId>:<position>`, stable for the life of the check. */
  id: string;
  createdAt: string;
}

const ZERO_SUMMARY: MonitorSummary = { changed: 0, error: 0, new: 0, removed: 0, same: 0, totalPages: 0 };

interface CheckRow {
  id: string;
  monitor_id: string;
  status: CheckStatus;
  trigger: 'manual' | 'scheduled';
  scheduled_for: string | null;
  started_at: string | null;
  finished_at: string | null;
  summary: string | null;
  error: string | null;
  owner_pid: number | null;
  /** Null for checks finished before credits were written: their pages counted 1 each. */
  credits: number | null;
}

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
    actualCredits: summary ? row.credits ?? summary.totalPages - summary.error : null,
    createdAt,
    updatedAt: row.finished_at ?? createdAt,
  };
};

/** The notifications a finished check sends: built inside finish's transaction, from the finished check. */
export type Notify = (check: CheckRecord, pages: readonly PageResult[]) => NewDelivery[];

export function checkStore(db: Db) {
  const outbox = outboxStore(db);
  const record = (row: CheckRow) => checkFromRow(row, outbox.notificationStatus(row.id));
  // Asked once per page of a check: prepared once.
  // Snapshots of checks started in the same millisecond are told apart by the order of writing.
  const lastSnapshotQuery = db.prepare<[string, string, string], { scrape_id: string; fingerprint: string | null; content_hash: string | null; gone: number }>(
    'SELECT scrape_id, fingerprint, content_hash, gone FROM snapshots WHERE monitor_id = ? AND target_id = ? AND url = ? ORDER BY scraped_at DESC, rowid DESC LIMIT 1',
  );
  return {
    /**
     * Marks checks whose process is gone (a crash, Ctrl-C) as failed, so their monitors can run
     * again. Called before a check starts.
     */
    recoverInterrupted(now: Date): number {
      // Only other processes' checks can be orphans: this process's own are running (a burst of
      // scheduled checks made reading them all, at every start, quadratic).
      const stale = db
        .prepare<[number], CheckRow>("SELECT * FROM checks WHERE status IN ('queued', 'running') AND (owner_pid IS NULL OR owner_pid != ?)")
        .all(process.pid)
        .filter((row) => !processAlive(row.owner_pid));
      const fail = db.prepare("UPDATE checks SET status = 'failed', finished_at = ?, error = 'interrupted: the process running the check ended before it finished' WHERE id = ?");
      const release = db.prepare('UPDATE monitors SET current_check_id = NULL WHERE current_check_id = ?');
      db.transaction(() => {
        for (const row of stale) {
          fail.run(now.toISOString(), row.id);
          release.run(row.id);
        }
      }).immediate();
      return stale.length;
    },

    /** A new running check, or 409 Conflict when the monitor already has one. */
    start(monitor: StoredMonitor, trigger: 'manual' | 'scheduled', now: Date, scheduledFor: string | null = null): CheckRecord {
      const id = randomUUID();
      db.transaction(() => {
        const running = db.prepare<[string], { id: string }>("SELECT id FROM checks WHERE monitor_id = ? AND status IN ('queued', 'running')").get(monitor.id);
        if (running) {
          throw new WebwatchError(ERROR_MESSAGES.conflict, { status: 409, details: { monitor: monitor.id, reason: `check ${running.id} is still running` } });
        }
        db.prepare("INSERT INTO checks (id, monitor_id, status, trigger, scheduled_for, started_at, owner_pid) VALUES (?, ?, 'running', ?, ?, ?, ?)").run(id, monitor.id, trigger, scheduledFor, now.toISOString(), process.pid);
        db.prepare('UPDATE monitors SET current_check_id = ? WHERE id = ?').run(id, monitor.id);
      }).immediate();
      return this.get(monitor.id, id)!;
    },

    /** Page results and the end of the check, written together. */
    finish(monitor: StoredMonitor, checkId: string, status: CheckStatus, pages: readonly PageResult[], written: { snapshots: readonly Snapshot[]; fingerprints: readonly FingerprintUpdate[]; credits?: number }, summary: MonitorSummary, error: string | null, now: Date, notify?: Notify): CheckRecord {
      const snapshot = db.prepare('INSERT OR REPLACE INTO snapshots (scrape_id, monitor_id, target_id, url, markdown, scraped_at, fingerprint, content_hash, gone, json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
      const fingerprint = db.prepare('UPDATE snapshots SET fingerprint = ? WHERE scrape_id = ?');
      const insert = db.prepare('INSERT INTO page_results (check_id, position, target_id, url, status, status_code, previous_scrape_id, current_scrape_id, diff, judgment, error, snapshot, screenshot) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
      db.transaction(() => {
        for (const s of written.snapshots) snapshot.run(s.scrapeId, monitor.id, s.targetId, s.url, s.markdown, now.toISOString(), s.fingerprint, s.contentHash, s.gone ? 1 : 0, s.json === undefined ? null : JSON.stringify(s.json));
        for (const update of written.fingerprints) fingerprint.run(update.fingerprint, update.scrapeId);
        pages.forEach((page, position) =>
          insert.run(checkId, position, page.targetId, page.url, page.status, page.statusCode, page.previousScrapeId, page.currentScrapeId, page.diff ? JSON.stringify(page.diff) : null, page.judgment ? JSON.stringify(page.judgment) : null, page.error, page.snapshot ? JSON.stringify(page.snapshot) : null, page.screenshot ?? null),
        );
        db.prepare('UPDATE checks SET status = ?, finished_at = ?, summary = ?, error = ?, credits = ? WHERE id = ?').run(status, now.toISOString(), JSON.stringify(summary), error, written.credits ?? null, checkId);
        const started = db.prepare<[string], { started_at: string }>('SELECT started_at FROM checks WHERE id = ?').get(checkId)!.started_at;
        const current = db.prepare<[string], { status: StoredMonitor['status'] }>('SELECT status FROM monitors WHERE id = ?').get(monitor.id)!;
        db.prepare('UPDATE monitors SET current_check_id = NULL, last_run_at = ?, last_check_summary = ?, next_run_at = ? WHERE id = ?')
          .run(started, JSON.stringify(summary), nextRunAt(monitor.definition, current.status, now), monitor.id);
        if (notify) outbox.enqueue(notify(this.get(monitor.id, checkId)!, pages), now);
      }).immediate();
      return this.get(monitor.id, checkId)!;
    },

    /** A slot that came while the monitor's previous check still ran: recorded, not run. */
    recordSkipped(monitor: StoredMonitor, scheduledFor: string, now: Date): CheckRecord {
      const id = randomUUID();
      db.prepare("INSERT INTO checks (id, monitor_id, status, trigger, scheduled_for, started_at, finished_at, error) VALUES (?, ?, 'skipped_overlap', 'scheduled', ?, ?, ?, 'the previous check was still running')")
        .run(id, monitor.id, scheduledFor, now.toISOString(), now.toISOString());
      return this.get(monitor.id, id)!;
    },

    get(monitorId: string, checkId: string): CheckRecord | undefined {
      const row = db.prepare<[string, string], CheckRow>('SELECT * FROM checks WHERE monitor_id = ? AND id = ?').get(monitorId, checkId);
      return row && record(row);
    },

    list(monitorId: string): CheckRecord[] {
      return db.prepare<[string], CheckRow>('SELECT * FROM checks WHERE monitor_id = ? ORDER BY started_at DESC').all(monitorId).map(record);
    },

    pages(checkId: string, status?: PageStatus): CheckPage[] {
      const createdAt = db.prepare<[string], { at: string | null }>('SELECT coalesce(finished_at, started_at) AS at FROM checks WHERE id = ?').get(checkId)?.at ?? new Date(0).toISOString();
      const rows = db
        .prepare<unknown[], { position: number; target_id: string; url: string; status: PageStatus; status_code: number | null; previous_scrape_id: string | null; current_scrape_id: string | null; diff: string | null; judgment: string | null; error: string | null; snapshot: string | null; screenshot: string | null }>(
          `SELECT * FROM page_results WHERE check_id = ? ${status ? 'AND status = ?' : ''} ORDER BY position`,
        )
        .all(...(status ? [checkId, status] : [checkId]));
      return rows.map((row) => ({
        id: `${checkId}:${row.position}`,
        createdAt,
        url: row.url,
        targetId: row.target_id,
        status: row.status,
        statusCode: row.status_code,
        previousScrapeId: row.previous_scrape_id,
        currentScrapeId: row.current_scrape_id,
        diff: row.diff ? (JSON.parse(row.diff) as PageDiff | JsonPageDiff) : null,
        judgment: row.judgment ? (JSON.parse(row.judgment) as Judgment) : null,
        error: row.error,
        ...(row.snapshot !== null && { snapshot: JSON.parse(row.snapshot) as { json: unknown } }),
        ...(row.screenshot && { screenshot: row.screenshot }),
      }));
    },

    /** The URLs a target had in the last check that finished, except those already removed. */
    previousUrls(monitorId: string, targetId: string): string[] {
      const last = db.prepare<[string], { id: string }>("SELECT id FROM checks WHERE monitor_id = ? AND status IN ('completed', 'partial') ORDER BY finished_at DESC LIMIT 1").get(monitorId);
      if (!last) return [];
      return db.prepare<[string, string], { url: string }>("SELECT url FROM page_results WHERE check_id = ? AND target_id = ? AND status NOT IN ('removed', 'error')").all(last.id, targetId).map((row) => row.url);
    },

    lastSnapshot(monitorId: string, targetId: string, url: string): LastSnapshot | undefined {
      const row = lastSnapshotQuery.get(monitorId, targetId, url);
      return row && { scrapeId: row.scrape_id, fingerprint: row.fingerprint, contentHash: row.content_hash, gone: row.gone === 1 };
    },

    /** The JSON a snapshot kept; null when it kept none (written before its target extracted JSON). */
    snapshotJson(scrapeId: string): unknown {
      const json = db.prepare<[string], { json: string | null }>('SELECT json FROM snapshots WHERE scrape_id = ?').get(scrapeId)?.json;
      return json === null || json === undefined ? null : JSON.parse(json);
    },

    snapshotMarkdown(scrapeId: string): string {
      return db.prepare<[string], { markdown: string }>('SELECT markdown FROM snapshots WHERE scrape_id = ?').get(scrapeId)?.markdown ?? '';
    },

    /**
     * Checks and snapshots older than the retention go; the newest snapshot of a page stays for
     * comparison. Returns the screenshot file names the pruned checks kept, for the caller to delete.
     */
    prune(monitorId: string, retentionDays: number, now: Date): string[] {
      const cutoff = new Date(now.getTime() - retentionDays * 24 * 60 * 60 * 1000).toISOString();
      return db.transaction(() => {
        const screenshots = db
          .prepare<[string, string], { screenshot: string }>('SELECT screenshot FROM page_results WHERE screenshot IS NOT NULL AND check_id IN (SELECT id FROM checks WHERE monitor_id = ? AND finished_at IS NOT NULL AND finished_at < ?)')
          .all(monitorId, cutoff)
          .map((row) => row.screenshot);
        db.prepare("DELETE FROM checks WHERE monitor_id = ? AND finished_at IS NOT NULL AND finished_at < ?").run(monitorId, cutoff);
        db.prepare(`DELETE FROM snapshots WHERE monitor_id = ? AND scraped_at < ? AND scrape_id NOT IN (
          SELECT scrape_id FROM snapshots s WHERE s.monitor_id = snapshots.monitor_id AND s.target_id = snapshots.target_id AND s.url = snapshots.url ORDER BY s.scraped_at DESC, s.rowid DESC LIMIT 1)`).run(monitorId, cutoff);
        return screenshots;
      }).immediate();
    },
  };
}

export type CheckStore = ReturnType<typeof checkStore>;
