/**
 * Crawl and batch scrape jobs of `webwatch serve`, stored in the engine's database rather than in
 * memory: each page is written as it is done, read back in pages of bounded size, and the whole
 * job expires a day after it started (as the hosted API keeps crawl results). Every job belongs
 * to the team that started it; another team's id, or a job of the other kind, reads as unknown.
 * A page's row carries its scrapeId, by which GET /v2/scrape/{id} reads it (scrape-documents.ts),
 * except under zero data retention: then no page is readable by its id, and each page's document
 * leaves the store once it has been read after the job ended (routes/jobs.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { JobWebhook } from '../../spec/job-webhook.js';
import { jobAnnouncer, type StoredJobWebhook } from '../notify/job-webhooks.js';
import type { Db, Query } from '../store/database.js';
import { holderGone, leaseUntil, renewWhile, WORKER_ID } from '../store/leases.js';
import { queuedColumns, runContextOf, type RunContext } from '../store/work-queue.js';
import type { Tables } from '../store/tables.js';
import type { ScrapeDocument } from '../../contract/scrape.js';

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
  /** Zero data retention (or lockdown): pages are taken from the store as they are read. */
  zeroDataRetention: boolean;
}

export interface CrawlPageError {
  id: string;
  timestamp: string;
  url: string;
  error: string;
  code: string | null;
}

type Row = Selectable<Tables['crawl_jobs']>;

const fromRow = (row: Row): CrawlJobRecord => ({
  id: row.id,
  team: row.team,
  url: row.url,
  status: row.status,
  total: row.total,
  completed: row.completed,
  creditsUsed: row.credits_used,
  error: row.error,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  zeroDataRetention: row.zero_data_retention === 1,
});

/** Rows of a job's pages read at a time while gathering an answer of bounded size. */
const PAGE_ROWS_READ = 64;

export interface CrawlJobStoreOptions {
  /** A webhook delivery of a job was queued (and committed): the caller's worker may deliver it now. */
  deliveryQueued?(): void;
}

export function crawlJobStore(db: Db, kind: JobKind = 'crawl', storeOptions: CrawlJobStoreOptions = {}) {
  const q = db.query;
  // Webhook events are queued in the transactions that record what they announce.
  const { announce, told: queued } = jobAnnouncer(db, storeOptions.deliveryQueued);
  /** Pages from position `from` on, a batch at a time, in order, until `take` says stop; in `within`, a transaction, when given. */
  async function eachPage<T extends 'document' | 'document_not_null'>(
    jobId: string,
    from: number,
    which: T,
    take: (row: { position: number; document: string | null }) => boolean,
    within: Query = q,
  ): Promise<void> {
    for (let at = from; ; ) {
      const rows = await within
        .selectFrom('crawl_pages')
        .select(['position', 'document'])
        .where('job_id', '=', jobId)
        .where('position', '>=', at)
        .$if(which === 'document_not_null', (query) => query.where('document', 'is not', null))
        .orderBy('position')
        .limit(PAGE_ROWS_READ)
        .execute();
      for (const row of rows) if (!take(row)) return;
      if (rows.length < PAGE_ROWS_READ) return;
      at = rows[rows.length - 1]!.position + 1;
    }
  }
  const store = {
    async start(team: string, url: string, options: unknown, now: Date): Promise<CrawlJobRecord> {
      const id = randomUUID();
      const expiresAt = new Date(now.getTime() + CRAWL_RESULTS_TTL_MS).toISOString();
      await q
        .insertInto('crawl_jobs')
        .values({
          id,
          team,
          kind,
          url,
          options: JSON.stringify(options),
          status: 'scraping',
          created_at: now.toISOString(),
          expires_at: expiresAt,
          owner_pid: process.pid,
          error: null,
          robots_blocked: null,
          lease_owner: WORKER_ID,
          lease_expires_at: leaseUntil(now),
          webhook: null,
        })
        .execute();
      return (await store.get(team, id, now))!;
    },

    /**
     * A job queued for whichever worker claims it (work-queue.ts); it reads as scraping meanwhile.
     * A batch knows its `total` from the start (the URLs asked for); a crawl's grows as it finds pages.
     * With a webhook, its `started` delivery is queued with it: the job has started for its client.
     */
    async enqueue(
      team: string,
      url: string,
      options: unknown,
      now: Date,
      context: RunContext,
      total = 0,
      webhook?: JobWebhook,
      zeroDataRetention = false,
    ): Promise<CrawlJobRecord> {
      const id = randomUUID();
      const kept: StoredJobWebhook | undefined = webhook && { ...webhook, privateTargetsAllowed: context.privateTargetsAllowed };
      const row = {
        id,
        team,
        kind,
        url,
        options: JSON.stringify(options),
        status: 'scraping' as const,
        created_at: now.toISOString(),
        total,
        zero_data_retention: zeroDataRetention ? (1 as const) : (0 as const),
        expires_at: new Date(now.getTime() + CRAWL_RESULTS_TTL_MS).toISOString(),
        error: null,
        robots_blocked: null,
        ...queuedColumns(context),
        webhook: kept ? JSON.stringify(kept) : null,
      };
      queued(
        await q.transaction().execute(async (trx) => {
          await trx.insertInto('crawl_jobs').values(row).execute();
          return announce(trx, row, 'started', now);
        }),
      );
      return (await store.get(team, id, now))!;
    },

    /** A job this worker claimed: what its run needs. Undefined when it has ended meanwhile (cancelled). */
    async claimed(id: string): Promise<{ job: CrawlJobRecord; kind: JobKind; options: unknown; context: RunContext | undefined } | undefined> {
      const row = await q.selectFrom('crawl_jobs').selectAll().where('id', '=', id).where('status', '=', 'scraping').executeTakeFirst();
      return row && { job: fromRow(row), kind: row.kind, options: row.options === null ? null : JSON.parse(row.options), context: runContextOf(row) };
    },

    /** Of these jobs, those cancelled (by a request to any process). */
    async cancelledAmong(ids: readonly string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      return (await q.selectFrom('crawl_jobs').select('id').where('id', 'in', ids).where('status', '=', 'cancelled').execute()).map((row) => row.id);
    },

    /** Keeps the job's lease renewed while its crawl runs. */
    holding<T>(work: Promise<T>): Promise<T> {
      return renewWhile(db, work);
    },

    /** The job, unless it is unknown, another team's, or expired. */
    async get(team: string, id: string, now: Date): Promise<CrawlJobRecord | undefined> {
      const row = await q
        .selectFrom('crawl_jobs')
        .selectAll()
        .where('team', '=', team)
        .where('id', '=', id)
        .where('expires_at', '>', now.toISOString())
        .where('kind', '=', kind)
        .executeTakeFirst();
      return row && fromRow(row);
    },

    /** The job by id alone, for a watcher whose key was checked when it opened. */
    async getById(id: string, now: Date): Promise<CrawlJobRecord | undefined> {
      const row = await q.selectFrom('crawl_jobs').selectAll().where('id', '=', id).where('expires_at', '>', now.toISOString()).executeTakeFirst();
      return row && fromRow(row);
    },

    /**
     * The stored documents of positions `from` on (errors skipped), at most `maxBytes` of them,
     * the last position read, and whether more follow (`nextSkip`).
     */
    async documentsAfter(
      jobId: string,
      from: number,
      maxBytes = CRAWL_PAGE_MAX_BYTES,
    ): Promise<{ data: string[]; nextSkip: number | null; lastPosition: number | null }> {
      const data: string[] = [];
      let bytes = 0;
      let lastPosition: number | null = null;
      let nextSkip: number | null = null;
      await eachPage(jobId, from, 'document', (row) => {
        const size = row.document?.length ?? 0;
        if (data.length > 0 && bytes + size > maxBytes) {
          nextSkip = row.position;
          return false;
        }
        bytes += size;
        lastPosition = row.position;
        if (row.document !== null) data.push(row.document);
        return true;
      });
      return { data, nextSkip, lastPosition };
    },

    /** Zero data retention: the documents of positions `from` to `to`, read, leave the store. */
    async forget(jobId: string, from: number, to: number): Promise<void> {
      await forget(q, jobId, from, to);
    },

    /**
     * One crawled page (a document, or the error that stopped it), counted and stored at once.
     * Pages take positions in the order they are stored, so that reading on from a position never
     * misses one; the job's row, updated first, holds them to that order under concurrent writers.
     */
    async addPage(
      jobId: string,
      page: { url: string; document: ScrapeDocument } | { url: string; error: string; code: string | null },
      now: Date,
      readableById = true,
    ): Promise<void> {
      queued(
        await q.transaction().execute(async (trx) => {
          const done = 'document' in page;
          const credits = done ? (page.document.metadata.creditsUsed ?? 1) : 0;
          const job = await trx
            .updateTable('crawl_jobs')
            .set((eb) => ({
              ...(kind === 'crawl' && { total: eb('total', '+', 1) }),
              completed: eb('completed', '+', done ? 1 : 0),
              credits_used: eb('credits_used', '+', credits),
            }))
            .where('id', '=', jobId)
            .returning(['id', 'team', 'kind', 'webhook'])
            .executeTakeFirstOrThrow();
          const { last } = await trx
            .selectFrom('crawl_pages')
            .select((eb) => eb.fn.max('position').as('last'))
            .where('job_id', '=', jobId)
            .executeTakeFirstOrThrow();
          const document = done ? JSON.stringify(page.document) : null;
          await trx
            .insertInto('crawl_pages')
            .values({
              job_id: jobId,
              position: last === null ? 0 : Number(last) + 1,
              url: page.url,
              document,
              error: done ? null : page.error,
              error_code: done ? null : page.code,
              created_at: now.toISOString(),
              scrape_id: done && readableById ? page.document.metadata.scrapeId : null,
            })
            .execute();
          // The document as the status answer gives it: the same text, the same scrapeId.
          return document !== null && announce(trx, job, 'page', now, { dataText: document });
        }),
      );
    },

    /**
     * Marks a running job cancelled (its crawl is stopped by the caller); false when it had ended.
     * Its webhook hears `failed`, as the hosted API says a cancel.
     */
    async cancel(jobId: string, now = new Date()): Promise<boolean> {
      return store.finish(jobId, 'cancelled', null, now);
    },

    /**
     * Ends a running job; a job already ended (cancelled, say) keeps its status. Its webhook's
     * `completed` or `failed` is queued in the same transaction: once the status reads ended,
     * the delivery is there. False when the job had ended already.
     */
    async finish(jobId: string, status: Exclude<CrawlJobStatus, 'scraping'>, error: string | null = null, now = new Date()): Promise<boolean> {
      const ended = await q.transaction().execute(async (trx) => {
        const job = await trx
          .updateTable('crawl_jobs')
          .set({ status, error, owner_pid: null, lease_owner: null, lease_expires_at: null })
          .where('id', '=', jobId)
          .where('status', '=', 'scraping')
          .returning(['id', 'team', 'kind', 'webhook'])
          .executeTakeFirst();
        if (!job) return undefined;
        return announce(trx, job, status === 'completed' ? 'completed' : 'failed', now, status === 'completed' ? {} : { error: error ?? status });
      });
      queued(ended === true);
      return ended !== undefined;
    },

    /**
     * Documents from position `skip` on, up to `maxBytes` of them (at least one), as the JSON
     * text they are stored as (an answer splices them in, parsing nothing), and the position
     * where the next answer begins, or null when these are the last so far. With `take` (zero
     * data retention), the documents read leave the store in the same transaction: no other
     * answer carries them again.
     */
    async documentTexts(jobId: string, skip: number, maxBytes = CRAWL_PAGE_MAX_BYTES, take = false): Promise<{ texts: string[]; nextSkip: number | null }> {
      const read = async (within: Query) => {
        const texts: string[] = [];
        let bytes = 0;
        let nextSkip: number | null = null;
        let lastPosition: number | null = null;
        await eachPage(
          jobId,
          skip,
          'document_not_null',
          (row) => {
            const document = row.document!;
            if (texts.length > 0 && bytes + document.length > maxBytes) {
              nextSkip = row.position;
              return false;
            }
            bytes += document.length;
            texts.push(document);
            lastPosition = row.position;
            return true;
          },
          within,
        );
        if (take && lastPosition !== null) await forget(within, jobId, skip, lastPosition);
        return { texts, nextSkip };
      };
      return take ? q.transaction().execute(read) : read(q);
    },

    /** The same, parsed. */
    async documents(jobId: string, skip: number, maxBytes = CRAWL_PAGE_MAX_BYTES): Promise<{ data: ScrapeDocument[]; nextSkip: number | null }> {
      const { texts, nextSkip } = await store.documentTexts(jobId, skip, maxBytes);
      return { data: texts.map((text) => JSON.parse(text) as ScrapeDocument), nextSkip };
    },

    /** The URLs robots.txt kept the crawl from (the first ROBOTS_BLOCKED_KEPT). */
    async setRobotsBlocked(jobId: string, urls: readonly string[]): Promise<void> {
      await q
        .updateTable('crawl_jobs')
        .set({ robots_blocked: JSON.stringify(urls.slice(0, ROBOTS_BLOCKED_KEPT)) })
        .where('id', '=', jobId)
        .execute();
    },

    async robotsBlocked(jobId: string): Promise<string[]> {
      const row = await q.selectFrom('crawl_jobs').select('robots_blocked').where('id', '=', jobId).executeTakeFirst();
      return row?.robots_blocked ? (JSON.parse(row.robots_blocked) as string[]) : [];
    },

    async errors(jobId: string): Promise<CrawlPageError[]> {
      const rows = await q
        .selectFrom('crawl_pages')
        .select(['position', 'url', 'error', 'error_code', 'created_at'])
        .where('job_id', '=', jobId)
        .where('error', 'is not', null)
        .orderBy('position')
        .execute();
      return rows.map((row) => ({ id: `${jobId}:${row.position}`, timestamp: row.created_at, url: row.url, error: row.error!, code: row.error_code }));
    },

    /** The team's jobs of this kind still running. */
    async active(team: string, now: Date): Promise<(CrawlJobRecord & { options: unknown })[]> {
      const rows = await q
        .selectFrom('crawl_jobs')
        .selectAll()
        .where('team', '=', team)
        .where('kind', '=', kind)
        .where('status', '=', 'scraping')
        .where('expires_at', '>', now.toISOString())
        .orderBy('created_at')
        .execute();
      return rows.map((row) => ({ ...fromRow(row), options: row.options === null ? null : JSON.parse(row.options) }));
    },

    /** Deletes expired jobs with their pages and webhook deliveries; returns how many. */
    async purgeExpired(now: Date): Promise<number> {
      return q.transaction().execute(async (trx) => {
        const expired = trx.selectFrom('crawl_jobs').select('id').where('expires_at', '<=', now.toISOString());
        await trx.deleteFrom('outbox').where('job_id', 'in', expired).execute();
        // PostgreSQL cascades through the foreign key; SQLite too, with foreign keys on.
        const result = await trx.deleteFrom('crawl_jobs').where('id', 'in', expired).executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    },

    /** Jobs whose worker stopped (a crash, kill -9, a lost machine) can never finish: they are failed. */
    async recoverInterrupted(now = new Date()): Promise<number> {
      const held = await q
        .selectFrom('crawl_jobs')
        .select(['id', 'owner_pid', 'lease_owner', 'lease_expires_at'])
        .where('status', '=', 'scraping')
        .where('kind', '=', kind)
        .execute();
      let recovered = 0;
      let announced = false;
      for (const row of held.filter((candidate) => candidate.owner_pid !== process.pid && holderGone(candidate, now))) {
        const error = `interrupted: the process running the ${kind === 'crawl' ? 'crawl' : 'batch scrape'} ended before it finished`;
        await q.transaction().execute(async (trx) => {
          const job = await trx
            .updateTable('crawl_jobs')
            .set({ status: 'failed', error, owner_pid: null, lease_owner: null, lease_expires_at: null })
            .where('id', '=', row.id)
            .where('status', '=', 'scraping')
            .where('lease_expires_at', 'is not distinct from', row.lease_expires_at)
            .returning(['id', 'team', 'kind', 'webhook'])
            .executeTakeFirst();
          if (!job) return;
          recovered++;
          if (await announce(trx, job, 'failed', now, { error })) announced = true;
        });
      }
      queued(announced);
      return recovered;
    },
  };
  return store;
}

export type CrawlJobStore = ReturnType<typeof crawlJobStore>;

/**
 * Zero data retention: the documents of positions `from` to `to` once read. The rows stay, with
 * their URL and position (a page's place, which later pages' positions follow) and no document.
 */
async function forget(within: Query, jobId: string, from: number, to: number): Promise<void> {
  await within
    .updateTable('crawl_pages')
    .set({ document: null, scrape_id: null })
    .where('job_id', '=', jobId)
    .where('position', '>=', from)
    .where('position', '<=', to)
    .where('document', 'is not', null)
    .execute();
}
