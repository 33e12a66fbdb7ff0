/**
 * SQLite's integrity check, on a thread of its own (started by integrity.ts): it reads every
 * page of the file, seconds on a large database, and serve goes on answering meanwhile. The
 * file is opened read-only, on a connection of its own, so pages are read from the disk, not
 * from the cache of the connection that serve uses.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

export interface IntegrityWorkerInput {
  path: string;
  pragma: 'quick_check' | 'integrity_check';
  /** At most this many problems are listed. */
  limit: number;
}

export interface IntegrityWorkerOutput {
  /** The check's rows, as SQLite wrote them ("ok" when there is nothing to say). */
  rows: string[];
  /** Root page, type, name and table of each table and index, to say which one a "Tree N" is. */
  trees: [number, string, string, string][];
  /** What stopped the check, if something did: damage it could not read past, or another failure. */
  failure?: { code: string | undefined; message: string };
}

/** `loaded` once better-sqlite3's native addon is loaded (integrity.ts waits for it), then the output. */
export type IntegrityWorkerMessage = { loaded: true } | IntegrityWorkerOutput;

const { path, pragma, limit } = workerData as IntegrityWorkerInput;
const output: IntegrityWorkerOutput = { rows: [], trees: [] };
try {
  // better-sqlite3 loads its native addon at the first open: from here, terminating is safe.
  const db = new Database(path, { readonly: true, fileMustExist: true });
  parentPort!.postMessage({ loaded: true } satisfies IntegrityWorkerMessage);
  try {
    db.pragma('busy_timeout = 5000');
    output.trees = db.prepare('SELECT rootpage, type, name, tbl_name FROM sqlite_schema WHERE rootpage > 0').raw().all() as IntegrityWorkerOutput['trees'];
    // Row by row: the check may list problems and then fail on a page it cannot read past,
    // and all() would drop what it listed.
    for (const row of db
      .prepare(`PRAGMA ${pragma}(${Number(limit)})`)
      .raw()
      .iterate())
      output.rows.push(String((row as unknown[])[0]));
  } finally {
    db.close();
  }
} catch (error) {
  output.failure = { code: (error as { code?: string }).code, message: (error as Error).message };
}
parentPort!.postMessage(output satisfies IntegrityWorkerMessage);
