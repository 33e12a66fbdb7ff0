/**
 * Agent jobs, their trace events and their artifact snapshots in the engine's database. Every
 * row carries the team of the key that started the job and every read names it: another
 * team's job reads as unknown. Events get a gapless `producerSequence` per job, assigned in the
 * writing transaction, so readers in any process see each event once and in order.
 */
import { usageStore } from '../usage/usage-store.js';
import { randomUUID } from 'node:crypto';
import { EventEmitter, setMaxListeners } from 'node:events';
import type { Db } from '../store/database.js';
import { processAlive } from '../store/owner-process.js';
import { traceError, type AgentIdentity, type RunOutcome, type TraceEvent, type TraceEventBody } from './trace.js';

/** How long a job, its trace and its snapshots are kept after it started. */
export const AGENT_JOB_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export type AgentEffort = 'low' | 'medium' | 'high';

/** What the caller asked for (POST /v2/agent). */
export interface AgentRequest {
  prompt: string;
  urls?: string[];
  schema?: Record<string, unknown>;
  maxCredits?: number;
  effort?: AgentEffort;
  strictConstrainToURLs?: boolean;
  origin?: string;
  integration?: string;
}

export interface AgentJob {
  id: string;
  team: string;
  request: AgentRequest;
  status: 'processing' | 'completed' | 'failed';
  outcome: RunOutcome | null;
  error: string | null;
  data: unknown;
  creditsUsed: number;
  model: string | null;
  cancelRequestedAt: string | null;
  createdAt: string;
  finishedAt: string | null;
  expiresAt: string;
}

interface Row {
  id: string;
  team: string;
  request: string;
  status: AgentJob['status'];
  outcome: RunOutcome | null;
  error: string | null;
  data: string | null;
  credits_used: number;
  model: string | null;
  cancel_requested_at: string | null;
  created_at: string;
  finished_at: string | null;
  expires_at: string;
}

const fromRow = (row: Row): AgentJob => ({
  id: row.id, team: row.team, request: JSON.parse(row.request) as AgentRequest, status: row.status, outcome: row.outcome, error: row.error,
  data: row.data === null ? undefined : JSON.parse(row.data), creditsUsed: row.credits_used, model: row.model,
  cancelRequestedAt: row.cancel_requested_at, createdAt: row.created_at, finishedAt: row.finished_at, expiresAt: row.expires_at,
});

/**
 * Events recorded by this process, by job id: a reader waiting for a job's next event (a
 * trace followed through serve) is woken at once instead of polling.
 */
const recorded = new EventEmitter();
recorded.setMaxListeners(0);

/** The system agent that records what happens to a run from outside it (cancel, recovery). */
export const SYSTEM_AGENT: AgentIdentity = { id: 'system', role: 'system', name: 'webwatch' };

export function agentStore(db: Db) {
  const byId = db.prepare<[string, string], Row>('SELECT * FROM agent_jobs WHERE team = ? AND id = ?');
  const lastSequence = db.prepare<[string], { n: number | null }>('SELECT max(sequence) AS n FROM agent_events WHERE job_id = ?');
  const insertEvent = db.prepare('INSERT INTO agent_events (job_id, team, sequence, event) VALUES (?, ?, ?, ?)');
  const eventsAfter = db.prepare<[string, string, number, number], { event: string }>('SELECT event FROM agent_events WHERE team = ? AND job_id = ? AND sequence > ? ORDER BY sequence LIMIT ?');

  const store = {
    create(team: string, request: AgentRequest, model: string | null, now: Date): AgentJob {
      const id = randomUUID();
      db.prepare("INSERT INTO agent_jobs (id, team, prompt, request, status, model, created_at, expires_at, owner_pid) VALUES (?, ?, ?, ?, 'processing', ?, ?, ?, ?)")
        .run(id, team, request.prompt, JSON.stringify(request), model, now.toISOString(), new Date(now.getTime() + AGENT_JOB_TTL_MS).toISOString(), process.pid);
      return store.get(team, id)!;
    },

    get(team: string, id: string): AgentJob | undefined {
      const row = byId.get(team, id);
      return row && fromRow(row);
    },

    /** The team's jobs, newest first, created before `before` (ms) when given. */
    list(team: string, options: { before?: number; limit: number }): AgentJob[] {
      const before = options.before === undefined ? '9999' : new Date(options.before).toISOString();
      return db.prepare<[string, string, number], Row>('SELECT * FROM agent_jobs WHERE team = ? AND created_at < ? ORDER BY created_at DESC, id LIMIT ?')
        .all(team, before, options.limit).map(fromRow);
    },

    /** Appends an event, numbered after the job's last one. */
    record(job: Pick<AgentJob, 'id' | 'team'>, agent: AgentIdentity, body: TraceEventBody, now: Date): TraceEvent {
      const recordedEvent = db.transaction(() => {
        const producerSequence = (lastSequence.get(job.id)?.n ?? 0) + 1;
        const event = { schemaVersion: 1, eventId: randomUUID(), runId: job.id, occurredAt: now.toISOString(), producerSequence, agent, ...body } as TraceEvent;
        insertEvent.run(job.id, job.team, producerSequence, JSON.stringify(event));
        return event;
      }).immediate();
      // Committed: whoever waits for this job's events may read it now.
      queueMicrotask(() => recorded.emit(job.id));
      return recordedEvent;
    },

    /** Events after `since` (a producerSequence), in order, at most `limit`. */
    events(team: string, jobId: string, since = 0, limit = 10_000): TraceEvent[] {
      return eventsAfter.all(team, jobId, since, limit).map((row) => JSON.parse(row.event) as TraceEvent);
    },

    /**
     * Waits until the job has events after `since`, up to `ms`; events recorded by other
     * processes are seen when the wait ends. True when there are some.
     */
    async waitForEvents(team: string, jobId: string, since: number, ms: number, signal?: AbortSignal): Promise<boolean> {
      const hasEvents = () => eventsAfter.all(team, jobId, since, 1).length > 0;
      if (ms <= 0 || hasEvents()) return hasEvents();
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          recorded.removeListener(jobId, done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        recorded.on(jobId, done);
        signal?.addEventListener('abort', done, { once: true });
      });
      return hasEvents();
    },

    putSnapshot(job: Pick<AgentJob, 'id' | 'team'>, content: string, now: Date): string {
      const snapshotId = randomUUID();
      db.prepare('INSERT INTO agent_snapshots (job_id, team, snapshot_id, content, created_at) VALUES (?, ?, ?, ?, ?)').run(job.id, job.team, snapshotId, content, now.toISOString());
      return snapshotId;
    },

    snapshot(team: string, jobId: string, snapshotId: string): string | undefined {
      return db.prepare<[string, string, string], { content: string }>('SELECT content FROM agent_snapshots WHERE team = ? AND job_id = ? AND snapshot_id = ?').get(team, jobId, snapshotId)?.content;
    },

    addCredits(jobId: string, credits: number): number {
      return (db.prepare('UPDATE agent_jobs SET credits_used = credits_used + ? WHERE id = ? RETURNING credits_used').get(credits, jobId) as { credits_used: number }).credits_used;
    },

    /**
     * Marks a running job as being cancelled and records `run.cancel_requested`; the run sees it
     * and ends. 'finished' or 'cancelled' when that is already so (409 for the caller).
     */
    requestCancel(job: AgentJob, now: Date): 'requested' | 'finished' | 'cancelled' {
      return db.transaction(() => {
        const current = fromRow(byId.get(job.team, job.id)!);
        if (current.cancelRequestedAt !== null || current.outcome === 'cancelled') return 'cancelled';
        if (current.status !== 'processing') return 'finished';
        db.prepare('UPDATE agent_jobs SET cancel_requested_at = ? WHERE id = ?').run(now.toISOString(), job.id);
        store.record(job, SYSTEM_AGENT, { type: 'run.cancel_requested', reason: 'user' }, now);
        return 'requested' as const;
      }).immediate();
    },

    cancelRequested(jobId: string): boolean {
      return db.prepare<[string], { at: string | null }>('SELECT cancel_requested_at AS at FROM agent_jobs WHERE id = ?').get(jobId)?.at != null;
    },

    /**
     * Ends a run. A succeeded run keeps its data and credits; any other ends `failed` with its
     * message, no data and no credits (failed runs are not charged, spec §3.2).
     */
    finish(job: Pick<AgentJob, 'id'>, outcome: RunOutcome, result: { data?: unknown; error?: string }, now: Date): void {
      const succeeded = outcome === 'succeeded';
      const ended = db.prepare(`UPDATE agent_jobs SET status = ?, outcome = ?, error = ?, data = ?, finished_at = ?, owner_pid = NULL${succeeded ? '' : ', credits_used = 0'} WHERE id = ? AND status = 'processing' RETURNING team, credits_used`)
        .get(succeeded ? 'completed' : 'failed', outcome, succeeded ? null : result.error ?? outcome, succeeded && result.data !== undefined ? JSON.stringify(result.data) : null, now.toISOString(), job.id) as { team: string; credits_used: number } | undefined;
      // What a succeeded run charged goes to the usage ledger; a failed run is charged nothing.
      if (ended && succeeded) usageStore(db).record(ended.team, { kind: 'agent', credits: ended.credits_used }, now);
    },

    /** Jobs whose process died mid-run are finished `failed` with `internal`, their trace closed. */
    recoverInterrupted(now: Date): number {
      const stale = db.prepare<[number], Row & { owner_pid: number | null }>("SELECT * FROM agent_jobs WHERE status = 'processing' AND (owner_pid IS NULL OR owner_pid != ?)").all(process.pid)
        .filter((row) => !processAlive(row.owner_pid));
      for (const row of stale) {
        const message = 'interrupted: the process running the agent ended before it finished';
        db.transaction(() => {
          store.record(row, SYSTEM_AGENT, { type: 'run.finished', outcome: 'failed', error: traceError('internal', message) }, now);
          store.finish(row, 'failed', { error: message }, now);
        }).immediate();
      }
      return stale.length;
    },

    purgeExpired(now: Date): number {
      return db.prepare('DELETE FROM agent_jobs WHERE expires_at <= ?').run(now.toISOString()).changes;
    },
  };
  return store;
}

export type AgentStore = ReturnType<typeof agentStore>;
