/**
 * Crawls and batch scrapes started by the MCP server, kept in its memory so that a tool call can
 * start one and come back for its pages (webwatch_crawl_status, webwatch_batch_status). They
 * live as long as the server process; a remote API keeps its own jobs as well.
 */
import { randomUUID } from 'node:crypto';

export type JobKind = 'crawl' | 'batch';
export type JobStatus = 'scraping' | 'completed' | 'failed' | 'cancelled';

export interface Job {
  id: string;
  kind: JobKind;
  status: JobStatus;
  /** Pages to do, when known (a batch's URLs; a crawl's grows as it finds pages). */
  total: number | undefined;
  /** Pages, each its URL and either its document or its error, in the order they finished. */
  pages: { url: string; document?: Record<string, unknown>; error?: string }[];
  error?: string;
  startedAt: string;
  /** Ends the job's work (a cancelled call, or the server stopping). */
  readonly stop: AbortController;
  /** Settles when the job has ended, however it ended. */
  done: Promise<void>;
}

/** Jobs kept at once; the oldest ended ones go first. */
const JOBS_KEPT = 100;

export class Jobs {
  private readonly jobs = new Map<string, Job>();

  start(kind: JobKind, total: number | undefined, work: (job: Job) => Promise<void>): Job {
    const job: Job = {
      id: randomUUID(),
      kind,
      status: 'scraping',
      total,
      pages: [],
      startedAt: new Date().toISOString(),
      stop: new AbortController(),
      done: Promise.resolve(),
    };
    job.done = work(job).then(
      () => {
        job.status = job.stop.signal.aborted ? 'cancelled' : 'completed';
      },
      (error: unknown) => {
        job.status = job.stop.signal.aborted ? 'cancelled' : 'failed';
        job.error = error instanceof Error ? error.message : String(error);
      },
    );
    this.jobs.set(job.id, job);
    this.forgetOld();
    return job;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  /** Stops every job still running (the server stopping) and waits for them to end. */
  async stopAll(): Promise<void> {
    for (const job of this.jobs.values()) job.stop.abort();
    await Promise.all([...this.jobs.values()].map((job) => job.done));
  }

  private forgetOld(): void {
    for (const [id, job] of this.jobs) {
      if (this.jobs.size <= JOBS_KEPT) break;
      if (job.status !== 'scraping') this.jobs.delete(id);
    }
  }
}
