/**
 * What every routes module of `webwatch serve` gets from the server: the engine of a team, the
 * key's concurrency limit, the work queue, the clock and the private-address rule.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LocalBackend } from '../../backend/local/local-backend.js';
import type { RunContext } from '../../engine/store/work-queue.js';

export interface RouteDeps {
  /** The engine of the request's team, working for its key. */
  backendOf(request: FastifyRequest): LocalBackend;
  /** Answers 429 (and returns true) when the key runs all it may at once. */
  tooBusy(request: FastifyRequest, reply: FastifyReply): Promise<boolean>;
  /** Runs `work` as one of the key's concurrent jobs, or answers 429. */
  limited<T>(request: FastifyRequest, reply: FastifyReply, work: () => Promise<T>): Promise<T | FastifyReply>;
  /** The work queue: crawls, batches, agent jobs and manual checks run on whichever worker has room. */
  work: {
    /** What running the request's work needs of it, whichever process runs it. */
    context(request: FastifyRequest): RunContext;
    /** Tells the workers (this process's, and PostgreSQL's listeners) that work was queued. */
    queued(): Promise<void>;
    /** Stops a crawl or batch at once if this process runs it (it was cancelled). */
    abort(id: string, reason: string): void;
  };
  now(): Date;
  /** serve's private-address rule, unless private targets are allowed. */
  checkUrl?: (url: URL) => Promise<void>;
  /**
   * `value` (a document, a page result) with its screenshots and PDFs, files of this machine,
   * as URLs of this server (`/v2/artifacts/...`), readable with a key of the request's team.
   */
  served<T>(request: FastifyRequest, value: T): T;
}
