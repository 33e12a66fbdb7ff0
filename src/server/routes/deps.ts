/**
 * What every routes plugin of `webwatch serve` is registered with: the database, the engine of
 * a team, the work queue, the clock and the private-address rule. The guards' limits are
 * `app.limits` (guards.ts).
 */
import type { FastifyRequest } from 'fastify';
import type { TeamServices } from '../../services/team-services.js';
import type { Db } from '../../engine/store/database.js';
import type { RunContext } from '../../engine/store/work-queue.js';
import type { WorkQueue } from '../work/worker.js';
import type { MediaLinks } from '../media-links.js';
import type { Env } from '../../lib/env.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';

export interface RouteDeps {
  db: Db;
  env: Env;
  /** The services of the request's team, working for its key. */
  servicesOf(request: FastifyRequest): TeamServices;
  /** The work queue: crawls, batches, agent jobs and manual checks run on whichever worker has room. */
  work: WorkQueue & {
    /** What running the request's work needs of it, whichever process runs it. */
    context(request: FastifyRequest): RunContext;
  };
  now(): Date;
  /** serve's private-address rule, unless private targets are allowed. */
  checkUrl?: (url: URL) => Promise<void>;
  /**
   * `value` (a document, a page result) with its screenshots and PDFs, files of this machine,
   * as URLs of this server (`/v2/artifacts/...`), readable with a key of the request's team.
   */
  served<T>(request: FastifyRequest, value: T): T;
  /** The signed links of video and audio files (media-links.ts). */
  mediaLinks?: MediaLinks;
  /** Remembers what a scrape was opened with, for an interact session on it (interact.ts). */
  rememberScrape?(team: string, scrapeId: string, options: ScrapeOptions): void;
}
