/**
 * The documents of POST /v2/scrape, kept a day as they were answered (the JSON text of the
 * answer's `data`), for GET /v2/scrape/{id}; each belongs to the team that asked. Pages of
 * crawls and batch scrapes are not copied here: their rows in crawl_pages carry the scrapeId
 * (crawl-jobs.ts), and `find` reads those too.
 *
 * Writing one row per scrape would cost serve's cached scrapes a commit each (some 60 µs on
 * SQLite, against 13 for a row within one): documents are written in groups instead, when the
 * event loop turns, and the answer does not wait for them. Until its group is committed, a
 * document is read from the group itself, so this process finds it at once; another process
 * finds it once the group is committed, a moment later. A process that dies loses the group it
 * had not written yet.
 */
import type { Db } from './database.js';
import { perDatabase, prepared } from './prepared.js';

/** How long a document stays readable: a day, as the hosted API keeps them. */
export const SCRAPE_DOCUMENT_TTL_MS = 24 * 60 * 60 * 1000;

/** Rows written in one statement at most: four values each, far under either database's bound on parameters. */
const ROWS_PER_WRITE = 500;

interface Row {
  scrape_id: string;
  team: string;
  document: string;
  expires_at: string;
}

interface Waiting {
  row: Row;
  written: () => void;
  failed: (error: unknown) => void;
}

const storeOf = perDatabase((db: Db) => {
  const byId = prepared<'id' | 'team' | 'now', { document: string }>(db, (parameter) =>
    db.query.selectFrom('scrape_documents').select('document').where('scrape_id', '=', parameter('id')).where('team', '=', parameter('team')).where('expires_at', '>', parameter('now')));
  const pageById = prepared<'id' | 'team' | 'now', { document: string | null }>(db, (parameter) =>
    db.query.selectFrom('crawl_pages').innerJoin('crawl_jobs', 'crawl_jobs.id', 'crawl_pages.job_id').select('crawl_pages.document')
      .where('crawl_pages.scrape_id', '=', parameter('id')).where('crawl_jobs.team', '=', parameter('team')).where('crawl_jobs.expires_at', '>', parameter('now')));
  /** Documents not yet committed, by scrapeId: read from here meanwhile. */
  const pending = new Map<string, Row>();
  let waiting: Waiting[] = [];
  let inFlight: Promise<void> = Promise.resolve();

  const write = async (): Promise<void> => {
    const group = waiting.splice(0, ROWS_PER_WRITE);
    if (waiting.length > 0) setImmediate(schedule);
    try {
      await db.query.insertInto('scrape_documents').values(group.map((entry) => entry.row)).onConflict((conflict) => conflict.column('scrape_id').doNothing()).execute();
      for (const entry of group) entry.written();
    } catch (error) {
      for (const entry of group) entry.failed(error);
    } finally {
      for (const { row } of group) if (pending.get(row.scrape_id) === row) pending.delete(row.scrape_id);
    }
  };
  function schedule() {
    inFlight = inFlight.then(write);
  }

  return {
    /**
     * Keeps `document` (the JSON text answered) under `scrapeId` for a day. Settles once its
     * group is committed; the answer need not wait for it.
     */
    keep(team: string, scrapeId: string, document: string, now: Date): Promise<void> {
      const row = { scrape_id: scrapeId, team, document, expires_at: new Date(now.getTime() + SCRAPE_DOCUMENT_TTL_MS).toISOString() };
      pending.set(scrapeId, row);
      return new Promise<void>((written, failed) => {
        if (waiting.push({ row, written, failed }) === 1) setImmediate(schedule);
      });
    },

    /** The document of `scrapeId` as it was answered, unless it is unknown, another team's, or past its day. */
    async find(team: string, scrapeId: string, now: Date): Promise<string | undefined> {
      const at = now.toISOString();
      const waitingRow = pending.get(scrapeId);
      if (waitingRow) return waitingRow.team === team && waitingRow.expires_at > at ? waitingRow.document : undefined;
      const [kept] = await byId({ id: scrapeId, team, now: at });
      if (kept) return kept.document;
      const [page] = await pageById({ id: scrapeId, team, now: at });
      return page?.document ?? undefined;
    },

    /** Writes what waits (serve draining). */
    async flush(): Promise<void> {
      while (waiting.length > 0) {
        schedule();
        await inFlight;
      }
      await inFlight;
    },

    /** Deletes the documents past their day; returns how many. */
    async purgeExpired(now: Date): Promise<number> {
      const result = await db.query.deleteFrom('scrape_documents').where('expires_at', '<=', now.toISOString()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
});

export type ScrapeDocumentStore = ReturnType<typeof storeOf>;

/** The scrape documents of `db`: one store per database, its waiting group shared by every caller. */
export function scrapeDocumentStore(db: Db): ScrapeDocumentStore {
  return storeOf(db);
}
