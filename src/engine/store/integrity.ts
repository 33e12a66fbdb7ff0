/**
 * Whether the engine database is damaged (`webwatch db check`, and serve's health route).
 * SQLite: `PRAGMA quick_check` reads every page and checks each b-tree's structure;
 * `integrity_check` (--full) also compares every index with its table, which takes longer.
 * PostgreSQL checks its own pages as it reads them; webwatch has nothing to add there.
 */
import { existsSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { UsageError, WebwatchError } from '../../errors/webwatch-error.js';
import { isPostgresUrl, openDatabase, refuseUnusableFile, schemaVersion, sqlitePath, type DatabaseKind } from './database.js';
import type { IntegrityWorkerInput, IntegrityWorkerMessage, IntegrityWorkerOutput } from './integrity-worker.js';

/** Problems listed at most: a badly damaged file has thousands, and the first say enough. */
export const PROBLEMS_LISTED = 100;

export interface IntegrityProblem {
  message: string;
  /** The table the damaged b-tree belongs to, when SQLite's message names one. */
  table?: string;
  /** The index, when the damaged b-tree is one. */
  index?: string;
}

export interface IntegrityReport {
  /** The file, or the server's address without its password. */
  database: string;
  kind: DatabaseKind;
  /** SQLite's check that ran; null on PostgreSQL. */
  check: 'quick_check' | 'integrity_check' | null;
  ok: boolean;
  problems: IntegrityProblem[];
  /** Why nothing was checked. */
  note?: string;
}

export interface IntegrityOptions {
  /** integrity_check instead of quick_check. */
  full?: boolean;
  /** Stops the check (serve's drain): the promise rejects. */
  signal?: AbortSignal;
}

/** A problem on one line: `table monitors: Tree 3 page 7: btreeInitPage() returns error code 11`. */
export function describeProblem(problem: IntegrityProblem): string {
  const where = problem.index ? `index ${problem.index} of table ${problem.table}: ` : problem.table ? `table ${problem.table}: ` : '';
  return `${where}${problem.message}`;
}

const POSTGRES_NOTE = 'not applicable: PostgreSQL checks its own pages as it reads them; the server answered';

/** Checks the database at `location` (a SQLite file, sqlite:PATH or postgres://), changing nothing. */
export async function checkIntegrity(location: string, options: IntegrityOptions = {}): Promise<IntegrityReport> {
  if (isPostgresUrl(location)) {
    const db = await openDatabase(location, { migrate: false });
    try {
      const version = await schemaVersion(db);
      return { database: db.location, kind: 'postgres', check: null, ok: true, problems: [], note: `${POSTGRES_NOTE} (schema version ${version})` };
    } finally {
      await db.close();
    }
  }
  const path = sqlitePath(location);
  // Opening would create it: a mistyped path would be checked and found fine.
  if (!existsSync(path)) throw new UsageError(`${path} does not exist: nothing to check`);
  await refuseUnusableFile(path);
  return checkSqliteFile(path, options);
}

/** quick_check (or integrity_check) of a SQLite file on a worker thread. */
export async function checkSqliteFile(path: string, options: IntegrityOptions = {}): Promise<IntegrityReport> {
  const pragma = options.full ? 'integrity_check' : 'quick_check';
  const output = await onWorker({ path, pragma, limit: PROBLEMS_LISTED }, options.signal);
  const problems = problemsOf(output);
  const failure = output.failure;
  if (failure && !/^SQLITE_(CORRUPT|NOTADB)/.test(failure.code ?? '')) {
    throw new WebwatchError(`cannot check the engine database ${path}: ${failure.message}`);
  }
  return { database: path, kind: 'sqlite', check: pragma, ok: problems.length === 0, problems };
}

/** SQLite's rows as problems, each with its table or index where a "Tree N" (root page N) names one. */
function problemsOf(output: IntegrityWorkerOutput): IntegrityProblem[] {
  const trees = new Map(output.trees.map(([rootPage, type, name, table]) => [rootPage, { type, name, table }]));
  const problems: IntegrityProblem[] = output.rows
    .flatMap((row) => row.split('\n'))
    .filter((line) => line !== 'ok' && line !== '' && !/^\*\*\* in database \w+ \*\*\*$/.test(line))
    .map((message) => {
      const tree = trees.get(Number(/^Tree (\d+)\b/.exec(message)?.[1]));
      if (!tree) return { message };
      return tree.type === 'index' ? { message, table: tree.table, index: tree.name } : { message, table: tree.table };
    });
  // The check stopped at a page it could not read past: what it said last is a problem too.
  if (output.failure && problems.length < PROBLEMS_LISTED) problems.push({ message: `${output.failure.message} (${output.failure.code})` });
  return problems;
}

async function onWorker(input: IntegrityWorkerInput, signal: AbortSignal | undefined): Promise<IntegrityWorkerOutput> {
  signal?.throwIfAborted();
  const { Worker } = await import('node:worker_threads');
  // Aborted while importing: the listener below would never hear of it.
  signal?.throwIfAborted();
  const worker: Worker = new Worker(new URL('./integrity-worker.js', import.meta.url), { workerData: input });
  // The thread keeps the process alive until it answers (the message listener below holds it,
  // whatever unref() would say): `db check` waits for its result, and serve, when it stops,
  // aborts the check instead.
  return new Promise((resolve, reject) => {
    // Terminating the thread while it loads better-sqlite3's native addon kills the whole process
    // (a fatal N-API error, or a segfault). So the thread says when the addon is loaded, and an
    // abort before that waits for it: milliseconds, where the check takes seconds.
    let loaded = false;
    const settle = (outcome: () => void) => {
      signal?.removeEventListener('abort', stop);
      outcome();
    };
    const stop = () => {
      if (!loaded) return;
      void worker.terminate();
      settle(() => reject(signal!.reason));
    };
    signal?.addEventListener('abort', stop, { once: true });
    worker.on('message', (message: IntegrityWorkerMessage) => {
      loaded = true;
      if ('loaded' in message) {
        if (signal?.aborted) stop();
      } else settle(() => (signal?.aborted ? reject(signal.reason) : resolve(message)));
    });
    worker.once('error', (error) => settle(() => reject(signal?.aborted ? signal.reason : error)));
    worker.once('exit', (code) => {
      settle(() => reject(signal?.aborted ? signal.reason : new Error(`the integrity check's thread ended (code ${code}) without a result`)));
    });
  });
}
