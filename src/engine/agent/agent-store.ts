/**
 * Agent jobs, their trace events and their artifact snapshots in the engine's database; extract
 * jobs too, which are agent jobs of their own kind (a fixed plan rather than a loop, see
 * extract-run.ts): each route reads only its kind, and a job of the other kind is unknown. Every
 * row carries the team of the key that started the job and every read names it: another
 * team's job reads as unknown. Events get a gapless `producerSequence` per job, assigned in the
 * writing transaction, so readers in any process see each event once and in order.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Selectable } from 'kysely';
import type { Db, Query } from '../store/database.js';
import { holderGone, leaseUntil, renewWhile, WORKER_ID } from '../store/leases.js';
import { queuedColumns, runContextOf, type RunContext } from '../store/work-queue.js';
import type { Tables } from '../store/tables.js';
import type { JobWebhook } from '../../spec/job-webhook.js';
import { agentActionData, jobAnnouncer, type StoredJobWebhook } from '../notify/job-webhooks.js';
import { agentStatusDocument, extractStatusDocument } from './wire.js';
import { traceError, type AgentIdentity, type RunOutcome, type TraceEvent, type TraceEventBody } from './trace.js';

/** How long a job, its trace and its snapshots are kept after it started. */
export const AGENT_JOB_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export type { AgentEffort, AgentJob, AgentRequest, ExtractJob, ExtractRequest, JobKind, StoredJob } from './agent-job.js';
import type { AgentJob, AgentRequest, ExtractJob, ExtractRequest, JobKind, StoredJob } from './agent-job.js';

type Row = Selectable<Tables['agent_jobs']>;

const fromRow = (row: Row): StoredJob => ({
  id: row.id,
  team: row.team,
  kind: row.kind,
  request: JSON.parse(row.request) as AgentRequest & ExtractRequest,
  status: row.status,
  outcome: row.outcome,
  error: row.error,
  data: row.data === null ? undefined : JSON.parse(row.data),
  creditsUsed: row.credits_used,
  model: row.model,
  cancelRequestedAt: row.cancel_requested_at,
  createdAt: row.created_at,
  finishedAt: row.finished_at,
  expiresAt: row.expires_at,
});

/**
 * Events recorded by this process, by job id: a reader waiting for a job's next event (a
 * trace followed through serve) is woken at once instead of polling.
 */
const recorded = new EventEmitter();
recorded.setMaxListeners(0);

/** How often a waiting reader looks for events recorded by another process. */
const EVENT_POLL_MS = 250;

/** The system agent that records what happens to a run from outside it (cancel, recovery). */
export const SYSTEM_AGENT: AgentIdentity = { id: 'system', role: 'system', name: 'webwatch' };

/** What an `agent.action` delivery says besides the tool call itself (run-agent.ts). */
export interface ActionDetail {
  /** Which tool call of the run this is, from 1. */
  step: number;
  /** The run's credits so far. */
  creditsUsed: number;
}

export interface AgentStoreOptions {
  /** A webhook delivery of a job was queued (and committed): the caller's worker may deliver it now. */
  deliveryQueued?(): void;
}

/** A job's status document as its webhook's last event carries it: the GET answer without `success`. */
function statusData(job: StoredJob): string {
  const { success: _, ...status } = job.kind === 'agent' ? agentStatusDocument(job) : extractStatusDocument(job);
  return JSON.stringify(status);
}

export function agentStore(db: Db, storeOptions: AgentStoreOptions = {}) {
  const q = db.query;
  // Webhook events are queued in the transactions that record what they announce.
  const { announce, told: tellWorker } = jobAnnouncer(db, storeOptions.deliveryQueued);
  const byId = (team: string, id: string, from: Query = q) =>
    from.selectFrom('agent_jobs').selectAll().where('team', '=', team).where('id', '=', id).executeTakeFirst();
  const eventsAfter = (team: string, jobId: string, since: number, limit: number) =>
    q
      .selectFrom('agent_events')
      .select('event')
      .where('team', '=', team)
      .where('job_id', '=', jobId)
      .where('sequence', '>', since)
      .orderBy('sequence')
      .limit(limit)
      .execute();

  /** Appends an event inside a transaction: the job's row is locked first, so numbers never collide. */
  async function recordIn(trx: Query, job: Pick<AgentJob, 'id' | 'team'>, agent: AgentIdentity, body: TraceEventBody, now: Date): Promise<TraceEvent> {
    if (db.kind === 'postgres') await trx.selectFrom('agent_jobs').select('id').where('id', '=', job.id).forUpdate().execute();
    const last = await trx
      .selectFrom('agent_events')
      .select((eb) => eb.fn.max('sequence').as('n'))
      .where('job_id', '=', job.id)
      .executeTakeFirst();
    const producerSequence = Number(last?.n ?? 0) + 1;
    const event = { schemaVersion: 1, eventId: randomUUID(), runId: job.id, occurredAt: now.toISOString(), producerSequence, agent, ...body } as TraceEvent;
    await trx
      .insertInto('agent_events')
      .values({ job_id: job.id, team: job.team, sequence: producerSequence, event: JSON.stringify(event) })
      .execute();
    return event;
  }

  /** Ends the job, and queues its webhook's last event with it; true when one was queued. */
  async function finishIn(trx: Query, job: Pick<AgentJob, 'id'>, outcome: RunOutcome, result: { data?: unknown; error?: string }, now: Date): Promise<boolean> {
    const succeeded = outcome === 'succeeded';
    const ended = await trx
      .updateTable('agent_jobs')
      .set({
        status: succeeded ? 'completed' : 'failed',
        outcome,
        error: succeeded ? null : (result.error ?? outcome),
        data: succeeded && result.data !== undefined ? JSON.stringify(result.data) : null,
        finished_at: now.toISOString(),
        owner_pid: null,
        lease_owner: null,
        lease_expires_at: null,
        ...(!succeeded && { credits_used: 0 }),
      })
      .where('id', '=', job.id)
      .where('status', '=', 'processing')
      .returningAll()
      .executeTakeFirst();
    if (!ended) return false;
    // What a succeeded run charged goes to the usage ledger; a failed run is charged nothing.
    if (succeeded && ended.credits_used > 0) {
      await trx
        .insertInto('usage')
        .values({ team: ended.team, key_id: ended.key_id, kind: ended.kind, credits: ended.credits_used, tokens: 0, at: now.toISOString() })
        .execute();
    }
    if (ended.webhook === null) return false;
    // An extract job cannot be cancelled: its webhook has no such event.
    const event = succeeded ? 'completed' : outcome === 'cancelled' && ended.kind === 'agent' ? 'cancelled' : 'failed';
    const finished = fromRow(ended);
    return announce(trx, ended, event, now, { dataText: statusData(finished), ...(!succeeded && { error: finished.error ?? outcome }) });
  }

  /**
   * A job run by this process; with `queued`, a job that waits for whichever worker claims it
   * (work-queue.ts), and may have a webhook, whose `started` delivery is queued with it: the job
   * has started for its client.
   */
  async function insert(
    team: string,
    kind: JobKind,
    request: AgentRequest | ExtractRequest,
    model: string | null,
    now: Date,
    queued?: RunContext,
    webhook?: JobWebhook,
  ): Promise<string> {
    const id = randomUUID();
    const kept: StoredJobWebhook | undefined = queued && webhook && { ...webhook, privateTargetsAllowed: queued.privateTargetsAllowed };
    const row = {
      id,
      team,
      kind,
      prompt: request.prompt ?? '',
      request: JSON.stringify(request),
      status: 'processing' as const,
      model,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + AGENT_JOB_TTL_MS).toISOString(),
      outcome: null,
      error: null,
      data: null,
      cancel_requested_at: null,
      finished_at: null,
      webhook: kept ? JSON.stringify(kept) : null,
      ...(queued ? queuedColumns(queued) : { owner_pid: process.pid, lease_owner: WORKER_ID, lease_expires_at: leaseUntil(now) }),
    };
    tellWorker(
      await q.transaction().execute(async (trx) => {
        await trx.insertInto('agent_jobs').values(row).execute();
        return announce(trx, row, 'started', now);
      }),
    );
    return id;
  }

  const store = {
    /**
     * An agent job run by this process; with `queued`, one that waits for whichever worker claims
     * it (work-queue.ts), with its `webhook` if it has one.
     */
    async create(team: string, request: AgentRequest, model: string | null, now: Date, queued?: RunContext, webhook?: JobWebhook): Promise<AgentJob> {
      return (await store.get(team, await insert(team, 'agent', request, model, now, queued, webhook))) as AgentJob;
    },

    /** An extract job, run by this process or queued as `create` says. */
    async createExtract(
      team: string,
      request: ExtractRequest,
      model: string | null,
      now: Date,
      queued?: RunContext,
      webhook?: JobWebhook,
    ): Promise<ExtractJob> {
      return (await store.get(team, await insert(team, 'extract', request, model, now, queued, webhook))) as ExtractJob;
    },

    /** A job this worker claimed, with what its run needs; undefined when it ended meanwhile. */
    async claimed(id: string): Promise<{ job: StoredJob; context: RunContext | undefined } | undefined> {
      const row = await q.selectFrom('agent_jobs').selectAll().where('id', '=', id).where('status', '=', 'processing').executeTakeFirst();
      return row && { job: fromRow(row), context: runContextOf(row) };
    },

    /** Keeps the job's lease renewed while its run goes on. */
    holding<T>(work: Promise<T>): Promise<T> {
      return renewWhile(db, work);
    },

    /** A job of either kind: the caller checks the kind it reads. */
    async get(team: string, id: string): Promise<StoredJob | undefined> {
      const row = await byId(team, id);
      return row && fromRow(row);
    },

    /** The team's agent jobs, newest first, created before `before` (ms) when given. */
    async list(team: string, options: { before?: number; limit: number }): Promise<AgentJob[]> {
      const before = options.before === undefined ? '9999' : new Date(options.before).toISOString();
      const rows = await q
        .selectFrom('agent_jobs')
        .selectAll()
        .where('team', '=', team)
        .where('kind', '=', 'agent')
        .where('created_at', '<', before)
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .limit(options.limit)
        .execute();
      return rows.map(fromRow) as AgentJob[];
    },

    /**
     * Appends an event, numbered after the job's last one. A tool call's start given `action`
     * is announced to the job's webhook as `agent.action`, in the same transaction.
     */
    async record(job: Pick<AgentJob, 'id' | 'team'>, agent: AgentIdentity, body: TraceEventBody, now: Date, action?: ActionDetail): Promise<TraceEvent> {
      const { event, announced } = await q.transaction().execute(async (trx) => {
        const event = await recordIn(trx, job, agent, body, now);
        if (!action || body.type !== 'tool_call.started') return { event, announced: false };
        const row = await trx.selectFrom('agent_jobs').select(['id', 'team', 'kind', 'webhook']).where('id', '=', job.id).executeTakeFirst();
        const data = agentActionData(body.toolName, body.parameters, { ...action, agent: agent.name });
        return { event, announced: row?.webhook != null && (await announce(trx, row, 'action', now, { dataText: JSON.stringify(data) })) };
      });
      // Committed: whoever waits for this job's events may read it now.
      queueMicrotask(() => recorded.emit(job.id));
      tellWorker(announced);
      return event;
    },

    /** Events after `since` (a producerSequence), in order, at most `limit`. */
    async events(team: string, jobId: string, since = 0, limit = 10_000): Promise<TraceEvent[]> {
      return (await eventsAfter(team, jobId, since, limit)).map((row) => JSON.parse(row.event) as TraceEvent);
    },

    /**
     * Waits until the job has events after `since`, up to `ms`. Events recorded by this process
     * wake the wait at once; those of other processes (a worker running the job) are looked for
     * every EVENT_POLL_MS. True when there are some.
     */
    async waitForEvents(team: string, jobId: string, since: number, ms: number, signal?: AbortSignal): Promise<boolean> {
      const hasEvents = async () => (await eventsAfter(team, jobId, since, 1)).length > 0;
      if (ms <= 0 || (await hasEvents())) return hasEvents();
      const deadline = Date.now() + ms;
      while (!signal?.aborted && Date.now() < deadline) {
        const woken = await new Promise<boolean>((resolve) => {
          const done = (local: boolean) => () => {
            clearTimeout(timer);
            recorded.removeListener(jobId, onRecorded);
            signal?.removeEventListener('abort', onAbort);
            resolve(local);
          };
          const onRecorded = done(true);
          const onAbort = done(true);
          const timer = setTimeout(done(false), Math.min(EVENT_POLL_MS, Math.max(0, deadline - Date.now())));
          recorded.on(jobId, onRecorded);
          signal?.addEventListener('abort', onAbort, { once: true });
        });
        if (woken || (await hasEvents())) break;
      }
      return hasEvents();
    },

    async putSnapshot(job: Pick<AgentJob, 'id' | 'team'>, content: string, now: Date): Promise<string> {
      const snapshotId = randomUUID();
      await q
        .insertInto('agent_snapshots')
        .values({ job_id: job.id, team: job.team, snapshot_id: snapshotId, content, created_at: now.toISOString() })
        .execute();
      return snapshotId;
    },

    async snapshot(team: string, jobId: string, snapshotId: string): Promise<string | undefined> {
      return (
        await q
          .selectFrom('agent_snapshots')
          .select('content')
          .where('team', '=', team)
          .where('job_id', '=', jobId)
          .where('snapshot_id', '=', snapshotId)
          .executeTakeFirst()
      )?.content;
    },

    async addCredits(jobId: string, credits: number): Promise<number> {
      const row = await q
        .updateTable('agent_jobs')
        .set((eb) => ({ credits_used: eb('credits_used', '+', credits) }))
        .where('id', '=', jobId)
        .returning('credits_used')
        .executeTakeFirstOrThrow();
      return row.credits_used;
    },

    /**
     * Marks a running job as being cancelled and records `run.cancel_requested`; the run sees it
     * and ends. 'finished' or 'cancelled' when that is already so (409 for the caller).
     */
    async requestCancel(job: StoredJob, now: Date): Promise<'requested' | 'finished' | 'cancelled'> {
      const outcome = await q.transaction().execute(async (trx) => {
        if (db.kind === 'postgres') await trx.selectFrom('agent_jobs').select('id').where('id', '=', job.id).forUpdate().execute();
        const current = fromRow((await byId(job.team, job.id, trx))!);
        if (current.cancelRequestedAt !== null || current.outcome === 'cancelled') return 'cancelled' as const;
        if (current.status !== 'processing') return 'finished' as const;
        await trx.updateTable('agent_jobs').set({ cancel_requested_at: now.toISOString() }).where('id', '=', job.id).execute();
        await recordIn(trx, job, SYSTEM_AGENT, { type: 'run.cancel_requested', reason: 'user' }, now);
        return 'requested' as const;
      });
      if (outcome === 'requested') queueMicrotask(() => recorded.emit(job.id));
      return outcome;
    },

    async cancelRequested(jobId: string): Promise<boolean> {
      return (await q.selectFrom('agent_jobs').select('cancel_requested_at').where('id', '=', jobId).executeTakeFirst())?.cancel_requested_at != null;
    },

    /**
     * Ends a run. A succeeded run keeps its data and credits; any other ends `failed` with its
     * message, no data and no credits (failed runs are not charged, spec §3.2).
     */
    async finish(job: Pick<AgentJob, 'id'>, outcome: RunOutcome, result: { data?: unknown; error?: string }, now: Date): Promise<void> {
      tellWorker(await q.transaction().execute((trx) => finishIn(trx, job, outcome, result, now)));
    },

    /** Jobs whose worker stopped mid-run (see leases.ts) are finished `failed` with `internal`, their trace closed. */
    async recoverInterrupted(now: Date): Promise<number> {
      const held = await q
        .selectFrom('agent_jobs')
        .selectAll()
        .where('status', '=', 'processing')
        .where((where) => where.or([where('lease_owner', 'is', null), where('lease_owner', '!=', WORKER_ID)]))
        .execute();
      let recovered = 0;
      for (const row of held.filter((candidate) => holderGone(candidate, now))) {
        const message = 'interrupted: the process running the agent ended before it finished';
        const ended = await q.transaction().execute(async (trx) => {
          const still = await trx
            .updateTable('agent_jobs')
            .set({ lease_owner: WORKER_ID, lease_expires_at: leaseUntil(now) })
            .where('id', '=', row.id)
            .where('status', '=', 'processing')
            .where('lease_expires_at', 'is not distinct from', row.lease_expires_at)
            .executeTakeFirst();
          if (Number(still.numUpdatedRows) !== 1) return false;
          await recordIn(trx, row, SYSTEM_AGENT, { type: 'run.finished', outcome: 'failed', error: traceError('internal', message) }, now);
          return { announced: await finishIn(trx, row, 'failed', { error: message }, now) };
        });
        if (ended) {
          recovered++;
          queueMicrotask(() => recorded.emit(row.id));
          tellWorker(ended.announced);
        }
      }
      return recovered;
    },

    /** Deletes expired jobs with their events, snapshots and webhook deliveries; returns how many. */
    async purgeExpired(now: Date): Promise<number> {
      return q.transaction().execute(async (trx) => {
        const expired = trx.selectFrom('agent_jobs').select('id').where('expires_at', '<=', now.toISOString());
        await trx.deleteFrom('outbox').where('job_id', 'in', expired).execute();
        const result = await trx.deleteFrom('agent_jobs').where('expires_at', '<=', now.toISOString()).executeTakeFirst();
        return Number(result.numDeletedRows);
      });
    },
  };
  return store;
}

export type AgentStore = ReturnType<typeof agentStore>;
