/**
 * Agent jobs of one team on the local engine: start (the request and its JSON Schema checked,
 * the job recorded, the run started in this process), status, list, trace, snapshot and
 * cancel, with the messages of spec §7.3; and extract jobs, agent jobs of their own kind (start
 * and status). Used by the command line's local backend and by `webwatch serve`.
 */
import { AGENT_MODEL_NOT_CONFIGURED } from '../../spec/errors.js';
import { setMaxListeners } from 'node:events';
import { EXIT } from '../../errors/exit-codes.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { isJobId, type AgentRequestInput } from '../../spec/agent.js';
import type { ExtractRequestInput } from '../../spec/extract.js';
import type { ChatModel, LlmSettings } from '../llm/chat.js';
import type { ScrapeContext } from '../scrape/scrape.js';
import type { SearchProvider } from '../search/search.js';
import type { Db } from '../store/database.js';
import { leaseDuration } from '../store/leases.js';
import {
  agentStore,
  SYSTEM_AGENT,
  type AgentJob,
  type AgentRequest,
  type AgentStore,
  type AgentStoreOptions,
  type ExtractJob,
  type StoredJob,
} from './agent-store.js';
import type { JobWebhook } from '../../spec/job-webhook.js';
import { compileSchema } from '../extract/json-schema.js';
import { traceError, type TraceEvent } from './trace.js';
import type { RunContext } from '../store/work-queue.js';

/** The longest a trace request waits for the next event. */
export const TRACE_WAIT_MAX_MS = 25_000;

export const MODEL_NOT_CONFIGURED_CODE = AGENT_MODEL_NOT_CONFIGURED;
export const MODEL_NOT_CONFIGURED =
  'no model is configured for agent jobs: set llm.baseUrl and llm.model in the config (any OpenAI-compatible server: Ollama, llama.cpp, vLLM or a hosted API), and WEBWATCH_LLM_API_KEY if it needs a key';

export interface AgentJobsOptions {
  db: Db;
  team: string;
  now(): Date;
  llm?: LlmSettings;
  /** How the agent's scrapes run: the backend's context (its team's cache, its network rule). */
  scrape: ScrapeContext;
  search?: SearchProvider;
}

const notFound = (id: string) => new WebwatchError(ERROR_MESSAGES.agentNotFound, { status: 404, details: { id } });
const extractNotFound = (id: string) => new WebwatchError(ERROR_MESSAGES.extractNotFound, { status: 404, details: { id } });

export function agentJobs(options: AgentJobsOptions) {
  const store = agentStore(options.db);
  const { team } = options;
  const running = new Set<Promise<void>>();
  const shutdown = new AbortController();
  let modelClient: Promise<ChatModel> | undefined;
  // Every run of the process listens to it: many at once are expected, not a leak.
  setMaxListeners(0, shutdown.signal);
  // Jobs left running by a worker that stopped are finished as soon as anyone looks.
  // Looked for again once per half lease: another machine's job is recovered when its lease runs out.
  let recovered: Promise<unknown> | undefined;
  let recoveredAt = 0;
  const recover = () => {
    if (!recovered || Date.now() - recoveredAt > leaseDuration() / 2) {
      recoveredAt = Date.now();
      recovered = store.recoverInterrupted(options.now()).catch(() => undefined);
    }
    return recovered;
  };

  /** A job of the team and of `kind`: one of the other kind is unknown, as another team's is. */
  async function ofKind(id: string, kind: 'agent'): Promise<AgentJob>;
  async function ofKind(id: string, kind: 'extract'): Promise<ExtractJob>;
  async function ofKind(id: string, kind: StoredJob['kind']): Promise<StoredJob> {
    if (!isJobId(id)) throw new WebwatchError(ERROR_MESSAGES.agentInvalidJobId, { status: 400 });
    await recover();
    const found = await store.get(team, id);
    if (!found || found.kind !== kind) throw kind === 'agent' ? notFound(id) : extractNotFound(id);
    return found;
  }
  const job = (id: string) => ofKind(id, 'agent');

  /** The checks every start makes, agent or extract: a model configured, the schema compiled. */
  async function ready(schema: Record<string, unknown> | undefined): Promise<Awaited<ReturnType<typeof compileSchema>> | undefined> {
    if (!options.llm) {
      // A configuration problem of whoever runs the engine: serve answers it as spec §7.3's 500.
      throw new WebwatchError(MODEL_NOT_CONFIGURED, {
        status: 500,
        exitCode: EXIT.usage,
        code: MODEL_NOT_CONFIGURED_CODE,
        suggestion: 'see "Agent jobs" in docs/agent.md for an example with Ollama',
      });
    }
    const validate = schema ? await compileSchema(schema) : undefined;
    await recover();
    await store.purgeExpired(options.now());
    return validate;
  }

  /** The request as stored, after the checks every start makes. */
  async function prepare(input: AgentRequestInput): Promise<{ request: AgentRequest; validate: Awaited<ReturnType<typeof compileSchema>> | undefined }> {
    const validate = await ready(input.schema);
    const request: AgentRequest = {
      prompt: input.prompt,
      ...(input.urls && { urls: input.urls }),
      ...(input.schema && { schema: input.schema }),
      ...(input.maxCredits !== undefined && { maxCredits: input.maxCredits }),
      ...(input.effort && { effort: input.effort }),
      ...(input.strictConstrainToURLs !== undefined && { strictConstrainToURLs: input.strictConstrainToURLs }),
      ...(input.origin && { origin: input.origin }),
      ...(input.integration && { integration: input.integration }),
    };
    return { request, validate };
  }

  /** Runs a recorded job in this process, writing through `runStore`; the promise it returns settles when the run ends. */
  async function launch(
    created: StoredJob,
    validate: Awaited<ReturnType<typeof compileSchema>> | undefined,
    runStore: AgentStore = store,
  ): Promise<{ done: Promise<void> }> {
    const [{ chatModel }, tools] = await Promise.all([import('../llm/chat.js'), import('./tools.js')]);
    // One client for the team's jobs: building one per job costs each start its setup.
    const model = await (modelClient ??= chatModel(options.llm!));
    const common = { store: runStore, model, now: options.now, shutdown: shutdown.signal, ...(validate && { validate }) };
    const done = runStore.holding(
      created.kind === 'extract'
        ? import('./extract-run.js').then(({ runExtractJob }) =>
            runExtractJob({ ...common, reader: tools.extractReader(options.scrape, options.search) }, created),
          )
        : import('./run-agent.js').then(({ runAgentJob }) => runAgentJob({ ...common, tools: tools.engineTools(options.scrape, options.search) }, created)),
    );
    const tracked = done.finally(() => running.delete(tracked));
    running.add(tracked);
    return { done: tracked };
  }

  return {
    /** Records the job and starts its run in this process; `done` settles when the run ends. */
    async start(input: AgentRequestInput): Promise<{ job: AgentJob; done: Promise<void> }> {
      const { request, validate } = await prepare(input);
      const created = await store.create(team, request, options.llm!.model, options.now());
      return { job: created, ...(await launch(created, validate)) };
    },

    /** Records the job, queued for whichever worker claims it (serve: work-queue.ts), with its webhook if it has one. */
    async enqueue(input: AgentRequestInput, context: RunContext, webhook?: JobWebhook): Promise<AgentJob> {
      const { request } = await prepare(input);
      return store.create(team, request, options.llm!.model, options.now(), context, webhook);
    },

    /** Starts an extract job in this process; `done` settles when the run ends. */
    async startExtract(input: ExtractRequestInput): Promise<{ job: ExtractJob; done: Promise<void> }> {
      const validate = await ready(input.schema);
      const created = await store.createExtract(team, input, options.llm!.model, options.now());
      return { job: created, ...(await launch(created, validate)) };
    },

    /** Records an extract job, queued for whichever worker claims it, with its webhook if it has one. */
    async enqueueExtract(input: ExtractRequestInput, context: RunContext, webhook?: JobWebhook): Promise<ExtractJob> {
      await ready(input.schema);
      return store.createExtract(team, input, options.llm!.model, options.now(), context, webhook);
    },

    getExtract: (id: string): Promise<ExtractJob> => ofKind(id, 'extract'),

    /**
     * Runs a job (agent or extract) this worker claimed from the queue (as `claimed` read it);
     * settles when the run ends. `worker.deliveryQueued` hears of each webhook delivery the run queues.
     */
    async runClaimed(queued: StoredJob, worker: AgentStoreOptions = {}): Promise<void> {
      const runStore = worker.deliveryQueued ? agentStore(options.db, worker) : store;
      let started: { done: Promise<void> };
      try {
        if (!options.llm) throw new WebwatchError(MODEL_NOT_CONFIGURED);
        started = await launch(queued, queued.request.schema ? await compileSchema(queued.request.schema) : undefined, runStore);
      } catch (error) {
        // Nothing of the run started: the job ends with the reason, its trace closed, as a run that failed at once.
        const message = `the worker could not run the job: ${error instanceof Error ? error.message : String(error)}`;
        await runStore.record(queued, SYSTEM_AGENT, { type: 'run.finished', outcome: 'failed', error: traceError('internal', message) }, options.now());
        await runStore.finish(queued, 'failed', { error: message }, options.now());
        return;
      }
      await started.done;
    },

    get: (id: string): Promise<AgentJob> => job(id),

    list: async (listOptions: { before?: number; limit: number }) => {
      await recover();
      return store.list(team, listOptions);
    },

    /** Events after `since`; with `waitMs`, waits that long for the next one when there is none yet. */
    async trace(id: string, since = 0, wait: { waitMs?: number; signal?: AbortSignal } = {}): Promise<{ job: AgentJob; events: TraceEvent[] }> {
      await job(id);
      if (wait.waitMs) await store.waitForEvents(team, id, since, Math.min(wait.waitMs, TRACE_WAIT_MAX_MS), wait.signal);
      return { job: await job(id), events: await store.events(team, id, since) };
    },

    async snapshot(id: string, snapshotId: string): Promise<string> {
      const found = await job(id);
      const content = await store.snapshot(team, found.id, snapshotId);
      if (content === undefined) throw new WebwatchError(ERROR_MESSAGES.agentSnapshotNotFound, { status: 404, details: { id, snapshotId } });
      return content;
    },

    /** Spec §3.2: a running job is asked to stop; 409 when it has ended or is already stopping. */
    async cancel(id: string): Promise<AgentJob> {
      const found = await job(id);
      const answer = await store.requestCancel(found, options.now());
      if (answer === 'finished') throw new WebwatchError(ERROR_MESSAGES.agentAlreadyFinished, { status: 409, details: { id } });
      if (answer === 'cancelled') throw new WebwatchError(ERROR_MESSAGES.agentAlreadyCancelled, { status: 409, details: { id } });
      return job(id);
    },

    /** Runs started here that have not ended. */
    running: (): Promise<void>[] => [...running],

    /** Ends every run of this process now (failed, `internal`), and waits until they have. */
    async stopAll(): Promise<void> {
      shutdown.abort();
      await Promise.allSettled([...running]);
    },
  };
}

export type AgentJobs = ReturnType<typeof agentJobs>;
