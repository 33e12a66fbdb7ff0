/**
 * The documents of POST /v2/scrape, kept a day as they were answered (the JSON text of the
 * answer's `data`), for GET /v2/scrape/{id}; each belongs to the team that asked. Pages of
 * crawls and batch scrapes are not copied here: their rows in crawl_pages carry the scrapeId
 * (crawl-jobs.ts), and `find` reads those too.
 *
 * A row per scrape is what it costs, and serve's cached scrapes are cheap: a commit each would
 * cost them some 60 us on SQLite. Documents wait instead up to GROUP_WINDOW_MS to be written
 * with the others of the moment, by statements compiled once, and the answer does not wait for
 * them. Until its group is committed, a document is read from the group itself, so this process
 * finds it at once; another process finds it once the group is committed, a moment later. A
 * process that dies loses the group it had not written yet; one that drains writes it (flush).
 * Scrape ids are time-ordered (lib/time-ordered-uuid.ts), so the index grows at its end.
 */
import type { Db, Query } from './database.js';
import { perDatabase, prepared } from './prepared.js';

/** How long a document stays readable: a day, as the hosted API keeps them. */
export const SCRAPE_DOCUMENT_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long a document waits for others to be written with: under load a group gathers tens of
 * scrapes, and its commit costs each a few microseconds rather than one commit each.
 */
const GROUP_WINDOW_MS = 10;
/** Rows written in one group at most. */
const ROWS_PER_GROUP = 512;
/**
 * A group goes in statements of these many rows, each compiled once (a query built per group
 * would cost the query layer's compiling each time), the largest first: 100 rows take one of 64,
 * two of 16 and one of 4.
 */
const ROWS_PER_STATEMENT = [64, 16, 4, 1] as const;

interface Row {
  scrape_id: string;
  team: string;
  document: string;
  expires_at: string;
}

const storeOf = perDatabase((db: Db) => {
  const byId = prepared<'id' | 'team' | 'now', { document: string }>(db, (parameter) =>
    db.query
      .selectFrom('scrape_documents')
      .select('document')
      .where('scrape_id', '=', parameter('id'))
      .where('team', '=', parameter('team'))
      .where('expires_at', '>', parameter('now')),
  );
  const pageById = prepared<'id' | 'team' | 'now', { document: string | null }>(db, (parameter) =>
    db.query
      .selectFrom('crawl_pages')
      .innerJoin('crawl_jobs', 'crawl_jobs.id', 'crawl_pages.job_id')
      .select('crawl_pages.document')
      .where('crawl_pages.scrape_id', '=', parameter('id'))
      .where('crawl_jobs.team', '=', parameter('team'))
      .where('crawl_jobs.expires_at', '>', parameter('now')),
  );
  const inserts = new Map(
    ROWS_PER_STATEMENT.map((size) => [
      size,
      db.query
        .insertInto('scrape_documents')
        .values(Array.from({ length: size }, () => ({ scrape_id: '', team: '', document: '', expires_at: '' })))
        .onConflict((conflict) => conflict.column('scrape_id').doNothing())
        .compile(),
    ]),
  );
  /** Documents not yet committed, by scrapeId, in the order they came: read from here meanwhile. */
  const pending = new Map<string, Row>();
  const waiting: Row[] = [];
  let inFlight: Promise<void> = Promise.resolve();
  const failureReports = new Set<(error: unknown) => void>();

  const insert = async (within: Query, rows: readonly Row[]) => {
    for (let at = 0; at < rows.length; ) {
      const size = ROWS_PER_STATEMENT.find((each) => each <= rows.length - at)!;
      const parameters: string[] = [];
      for (const row of rows.slice(at, at + size)) parameters.push(row.scrape_id, row.team, row.document, row.expires_at);
      await within.executeQuery({ ...inserts.get(size)!, parameters });
      at += size;
    }
  };
  const write = async (): Promise<void> => {
    const group = waiting.splice(0, ROWS_PER_GROUP);
    if (waiting.length > 0) setImmediate(schedule);
    if (group.length === 0) return;
    try {
      // One statement commits alone; several, in one transaction.
      if ((ROWS_PER_STATEMENT as readonly number[]).includes(group.length)) await insert(db.query, group);
      else await db.query.transaction().execute((trx) => insert(trx, group));
    } catch (error) {
      for (const report of failureReports) report(error);
    } finally {
      for (const row of group) if (pending.get(row.scrape_id) === row) pending.delete(row.scrape_id);
    }
  };
  function schedule() {
    inFlight = inFlight.then(write);
  }

  return {
    /**
     * Keeps `document` (the JSON text answered) under `scrapeId` for a day, in the next group
     * written; the answer does not wait for it. A group that cannot be written is reported to
     * `onWriteFailure`'s listeners, and its documents are not found.
     */
    keep(team: string, scrapeId: string, document: string, now: Date): void {
      const row = { scrape_id: scrapeId, team, document, expires_at: new Date(now.getTime() + SCRAPE_DOCUMENT_TTL_MS).toISOString() };
      pending.set(scrapeId, row);
      if (waiting.push(row) === 1) setTimeout(schedule, GROUP_WINDOW_MS).unref();
    },

    /** Calls `report` with what stopped a group being written, until the returned function is called. */
    onWriteFailure(report: (error: unknown) => void): () => void {
      failureReports.add(report);
      return () => void failureReports.delete(report);
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
