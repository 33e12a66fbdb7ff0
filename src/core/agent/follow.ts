/**
 * Following an agent job's trace through any backend: events after the last one seen, each
 * once, in producerSequence order, until the run has ended. Long polls where the API waits for
 * the next event (the local engine, webwatch serve), polling with a growing pause where it
 * answers at once (the hosted API). A follow ends only when the run has: on `run.finished`, or,
 * for a trace that lacks it, when the job's status says the run is over. Ctrl-C (the signal)
 * stops following and leaves the job alone; an API that keeps failing after the client's own
 * retries ends it with that error.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Backend } from '../../services/interfaces.js';
import type { AgentStatusDocument, RunOutcome, TraceEvent } from '../../contract/agent.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';

/** How long one request may wait for the next event (the engine caps it at 25 s): short enough that a
 * server gone quiet is noticed, long enough that a follower costs next to nothing while it waits. */
export const FOLLOW_WAIT_MS = 5_000;
/** The first pause after an API answered at once with nothing new; it doubles up to the max. */
export const FOLLOW_POLL_MS = 250;
export const FOLLOW_POLL_MAX_MS = 2_000;
/** While nothing comes, the job's status is read this often: a run may end without `run.finished`. */
export const FOLLOW_STATUS_MS = 5_000;

export interface FollowOptions {
  /** Events after this producerSequence (0: from the start). */
  since?: number;
  /** Stops following (Ctrl-C): the job goes on. */
  signal?: AbortSignal;
  waitMs?: number;
  pollMs?: number;
  statusMs?: number;
  /** Told the job's credits whenever an answer carries them. */
  onCredits?: (credits: number) => void;
}

/** The outcome of a run that ended, read from its status document when its trace does not say. */
export function outcomeOfStatus(status: AgentStatusDocument): RunOutcome | undefined {
  if (status.status === 'processing') return undefined;
  if (status.status === 'completed') return 'succeeded';
  const said = status.error ?? '';
  if (/cancel/i.test(said)) return 'cancelled';
  if (/refus/i.test(said)) return 'refused';
  if (/credit/i.test(said)) return 'credit_limit_reached';
  return 'failed';
}

export class TraceFollower {
  /** How the run ended; undefined while it goes on, or when following was stopped first. */
  outcome: RunOutcome | undefined;
  private last: number;

  constructor(
    private readonly backend: Backend,
    private readonly id: string,
    private readonly options: FollowOptions = {},
  ) {
    this.last = options.since ?? 0;
  }

  private get stopped(): boolean {
    return this.options.signal?.aborted ?? false;
  }

  /** Each new event once, in order; ends when the run has ended or the signal aborts. */
  async *events(): AsyncGenerator<TraceEvent> {
    const { options } = this;
    const waitMs = options.waitMs ?? FOLLOW_WAIT_MS;
    const statusMs = options.statusMs ?? FOLLOW_STATUS_MS;
    let pause = options.pollMs ?? FOLLOW_POLL_MS;
    let statusReadAt = Date.now();
    while (!this.stopped) {
      const asked = Date.now();
      const answer = await this.ask(waitMs);
      if (!answer) return;
      const seen = this.last;
      yield* this.unseen(answer.events);
      if (this.outcome) return;
      if (this.last > seen) {
        pause = options.pollMs ?? FOLLOW_POLL_MS;
        continue;
      }
      // Nothing new for a while: a run that ended without `run.finished` in its trace ends here too.
      if (Date.now() - statusReadAt >= statusMs) {
        statusReadAt = Date.now();
        const ended = await this.endedByStatus();
        if (ended) {
          // Events recorded just before the end are still shown.
          yield* this.unseen((await this.ask(0))?.events ?? []);
          this.outcome ??= ended;
          return;
        }
      }
      // An API that answered at once did not wait: it is asked again after a pause that grows.
      if (Date.now() - asked < waitMs / 2) {
        try {
          await sleepFor(pause, undefined, options.signal ? { signal: options.signal } : {});
        } catch {
          return;
        }
        pause = Math.min(pause * 2, FOLLOW_POLL_MAX_MS);
      }
    }
  }

  /** The events not yet seen, in order, up to `run.finished` (which sets the outcome). */
  private *unseen(events: readonly TraceEvent[]): Generator<TraceEvent> {
    for (const event of events) {
      if (event.producerSequence <= this.last) continue;
      this.last = event.producerSequence;
      yield event;
      if (event.type === 'run.finished') {
        this.outcome = event.outcome;
        return;
      }
    }
  }

  /** One trace request; undefined when following was stopped meanwhile. */
  private async ask(waitMs: number): Promise<{ events: TraceEvent[] } | undefined> {
    const { signal } = this.options;
    try {
      const answer = await this.backend.agents.trace(this.id, this.last, { ...(waitMs > 0 && { waitMs }), ...(signal && { signal }) });
      if (answer.creditsUsed !== undefined) this.options.onCredits?.(answer.creditsUsed);
      return answer;
    } catch (error) {
      if (this.stopped) return undefined;
      throw error;
    }
  }

  private async endedByStatus(): Promise<RunOutcome | undefined> {
    try {
      return outcomeOfStatus(await this.backend.agents.get(this.id));
    } catch (error) {
      if (this.stopped) return undefined;
      throw error;
    }
  }
}

/** The exit code of a finished run's outcome (`webwatch help exit-codes`). */
export function outcomeExitCode(outcome: RunOutcome): ExitCode {
  switch (outcome) {
    case 'succeeded':
      return EXIT.ok;
    case 'credit_limit_reached':
      return EXIT.limit;
    case 'refused':
      return EXIT.agentRefused;
    case 'cancelled':
      return EXIT.agentCancelled;
    default:
      return EXIT.failure;
  }
}
