/**
 * Crawl and batch scrape jobs of `webwatch serve`, stored in the engine's database rather than in
 * memory: each page is written as it is done, read back in pages of bounded size, and the whole
 * job expires a day after it started (as the hosted API keeps crawl results). Every job belongs
 * to the team that started it; another team's id, or a job of the other kind, reads as unknown.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/database.js';
import { processAlive } from '../store/owner-process.js';
import type { ScrapeDocument } from '../scrape/document.js';

export type CrawlJobStatus = 'scraping' | 'completed' | 'failed' | 'cancelled';
export type JobKind = 'crawl' | 'batch';
/** URLs kept of those robots.txt kept a crawl from. */
export const ROBOTS_BLOCKED_KEPT = 1000;

/** How long a crawl's results are kept after it started. */
export const CRAWL_RESULTS_TTL_MS = 24 * 60 * 60 * 1000;
/** The most bytes of documents one status answer carries; the rest is behind `next`. */
export const CRAWL_PAGE_MAX_BYTES = 10 * 1024 * 1024;

export interface CrawlJobRecord {
  id: string;
  team: string;
  url: string;
  status: CrawlJobStatus;
  total: number;
  completed: number;
  creditsUsed: number;
  error: string | null;
  createdAt: string;
  expiresAt: string;
}

export interface CrawlPageError {
  id: string;
  timestamp: string;
  url: string;
  error: string;
  code: string | null;
}

interface Row {
  id: string;
  team: string;
  url: string;
  options: string | null;
  status: CrawlJobStatus;
  total: number;
  completed: number;
  credits_used: number;
  error: string | null;
  created_at: string;
  expires_at: string;
  robots_blocked: string | null;
}

const fromRow = (row: Row): CrawlJobRecord => ({
  id: row.id, team: row.team, url: row.url, status: row.status, total: row.total, completed: row.completed,
  creditsUsed: row.credits_used, error: row.error, createdAt: row.created_at, expiresAt: row.expires_at,
});

export function crawlJobStore(db: Db, kind: JobKind = 'crawl') {
  const byId = db.prepare<[string, string, string, JobKind], Row>('SELECT * FROM crawl_jobs WHERE team = ? AND id = ? AND expires_at > ? AND kind = ?');
  const insertPage = db.prepare('INSERT INTO crawl_pages (job_id, position, url, document, error, error_code, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const countPage = db.prepare('UPDATE crawl_jobs SET total = total + 1, completed = completed + ?, credits_used = credits_used + ? WHERE id = ? RETURNING total');
  return {
    start(team: string, url: string, options: unknown, now: Date): CrawlJobRecord {
      const id = randomUUID();
      const expiresAt = new Date(now.getTime() + CRAWL_RESULTS_TTL_MS).toISOString();
      db.prepare("INSERT INTO crawl_jobs (id, team, kind, url, options, status, created_at, expires_at, owner_pid) VALUES (?, ?, ?, ?, ?, 'scraping', ?, ?, ?)")
        .run(id, team, kind, url, JSON.stringify(options), now.toISOString(), expiresAt, process.pid);
      return this.get(team, id, now)!;
    },

    /** The job, unless it is unknown, another team's, or expired. */
    get(team: string, id: string, now: Date): CrawlJobRecord | undefined {
      const row = byId.get(team, id, now.toISOString(), kind);
      return row && fromRow(row);
    },

    /** The job by id alone, for a watcher whose key was checked when it opened. */
    getById(id: string, now: Date): CrawlJobRecord | undefined {
      const row = db.prepare<[string, string], Row>('SELECT * FROM crawl_jobs WHERE id = ? AND expires_at > ?').get(id, now.toISOString());
      return row && fromRow(row);
    },

    /**
     * The stored documents of positions `from` on (errors skipped), at most `maxBytes` of them,
     * the last position read, and whether more follow (`nextSkip`).
     */
    documentsAfter(jobId: string, from: number, maxBytes = CRAWL_PAGE_MAX_BYTES): { data: string[]; nextSkip: number | null; lastPosition: number | null } {
      const rows = db.prepare<[string, number], { position: number; document: string | null }>(
        'SELECT position, document FROM crawl_pages WHERE job_id = ? AND position >= ? ORDER BY position',
      ).iterate(jobId, from);
      const data: string[] = [];
      let bytes = 0;
      let lastPosition: number | null = null;
      for (const row of rows) {
        const size = row.document?.length ?? 0;
        if (data.length > 0 && bytes + size > maxBytes) {
          rows.return?.();
          return { data, nextSkip: row.position, lastPosition };
        }
        bytes += size;
        lastPosition = row.position;
        if (row.document !== null) data.push(row.document);
      }
      return { data, nextSkip: null, lastPosition };
    },

    /** One crawled page (a document, or the error that stopped it), counted and stored at once. */
    addPage(jobId: string, page: { url: string; document: ScrapeDocument } | { url: string; error: string; code: string | null }, now: Date): void {
      db.transaction(() => {
        const done = 'document' in page;
        const credits = done ? page.document.metadata.creditsUsed ?? 1 : 0;
        const { total } = countPage.get(done ? 1 : 0, credits, jobId) as { total: number };
        insertPage.run(jobId, total - 1, page.url, done ? JSON.stringify(page.document) : null, done ? null : page.error, done ? null : page.code, now.toISOString());
      })();
    },

    /** Marks a running job cancelled (its crawl is stopped by the caller); false when it had ended. */
    cancel(jobId: string): boolean {
      return db.prepare("UPDATE crawl_jobs SET status = 'cancelled', owner_pid = NULL WHERE id = ? AND status = 'scraping'").run(jobId).changes === 1;
    },

    /** Ends a running job; a job already ended (cancelled, say) keeps its status. */
    finish(jobId: string, status: Exclude<CrawlJobStatus, 'scraping'>, error: string | null = null): void {
      db.prepare("UPDATE crawl_jobs SET status = ?, error = ?, owner_pid = NULL WHERE id = ? AND status = 'scraping'").run(status, error, jobId);
    },

    /**
     * Documents from position `skip` on, up to `maxBytes` of them (at least one), as the JSON
     * text they are stored as (an answer splices them in, parsing nothing), and the position
     * where the next answer begins, or null when these are the last so far.
     */
    documentTexts(jobId: string, skip: number, maxBytes = CRAWL_PAGE_MAX_BYTES): { texts: string[]; nextSkip: number | null } {
      const rows = db.prepare<[string, number], { position: number; document: string }>(
        'SELECT position, document FROM crawl_pages WHERE job_id = ? AND position >= ? AND document IS NOT NULL ORDER BY position',
      ).iterate(jobId, skip);
      const texts: string[] = [];
      let bytes = 0;
      for (const row of rows) {
        if (texts.length > 0 && bytes + row.document.length > maxBytes) {
          rows.return?.();
          return { texts, nextSkip: row.position };
        }
        bytes += row.document.length;
        texts.push(row.document);
      }
      return { texts, nextSkip: null };
    },

    /** The same, parsed. */
    documents(jobId: string, skip: number, maxBytes = CRAWL_PAGE_MAX_BYTES): { data: ScrapeDocument[]; nextSkip: number | null } {
      const { texts, nextSkip } = this.documentTexts(jobId, skip, maxBytes);
      return { data: texts.map((text) => JSON.parse(text) as ScrapeDocument), nextSkip };
    },

    /** The URLs robots.txt kept the crawl from (the first ROBOTS_BLOCKED_KEPT). */
    setRobotsBlocked(jobId: string, urls: readonly string[]): void {
      db.prepare('UPDATE crawl_jobs SET robots_blocked = ? WHERE id = ?').run(JSON.stringify(urls.slice(0, ROBOTS_BLOCKED_KEPT)), jobId);
    },

    robotsBlocked(jobId: string): string[] {
      const row = db.prepare<[string], { robots_blocked: string | null }>('SELECT robots_blocked FROM crawl_jobs WHERE id = ?').get(jobId);
      return row?.robots_blocked ? (JSON.parse(row.robots_blocked) as string[]) : [];
    },

    errors(jobId: string): CrawlPageError[] {
      return db.prepare<[string], { position: number; url: string; error: string; error_code: string | null; created_at: string }>(
        'SELECT position, url, error, error_code, created_at FROM crawl_pages WHERE job_id = ? AND error IS NOT NULL ORDER BY position',
      ).all(jobId).map((row) => ({ id: `${jobId}:${row.position}`, timestamp: row.created_at, url: row.url, error: row.error, code: row.error_code }));
    },

    /** The team's jobs of this kind still running. */
    active(team: string, now: Date): (CrawlJobRecord & { options: unknown })[] {
      return db.prepare<[string, JobKind, string], Row>("SELECT * FROM crawl_jobs WHERE team = ? AND kind = ? AND status = 'scraping' AND expires_at > ? ORDER BY created_at").all(team, kind, now.toISOString()).map((row) => ({ ...fromRow(row), options: row.options === null ? null : JSON.parse(row.options) }));
    },

    /** Deletes expired jobs with their pages; returns how many. */
    purgeExpired(now: Date): number {
      return db.prepare('DELETE FROM crawl_jobs WHERE expires_at <= ?').run(now.toISOString()).changes;
    },

    /** Jobs whose process is gone (a crash, kill -9) can never finish: they are failed. */
    recoverInterrupted(): number {
      const stale = db.prepare<[JobKind], { id: string; owner_pid: number | null }>("SELECT id, owner_pid FROM crawl_jobs WHERE status = 'scraping' AND kind = ?").all(kind)
        .filter((row) => row.owner_pid !== process.pid && !processAlive(row.owner_pid));
      const fail = db.prepare(`UPDATE crawl_jobs SET status = 'failed', error = 'interrupted: the process running the ${kind === 'crawl' ? 'crawl' : 'batch scrape'} ended before it finished', owner_pid = NULL WHERE id = ?`);
      db.transaction(() => stale.forEach((row) => fail.run(row.id)))();
      return stale.length;
    },
  };
}

export type CrawlJobStore = ReturnType<typeof crawlJobStore>;
