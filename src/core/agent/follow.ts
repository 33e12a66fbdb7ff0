/**
 * Following an agent job's trace through any backend: events after the last one seen, each
 * once, in producerSequence order, until `run.finished`. Polling, so it works the same on the
 * local engine, against serve and against a remote API.
 */
import type { Backend } from '../../backend/backend.js';
import type { RunOutcome, TraceEvent } from '../../engine/agent/trace.js';
import { EXIT, type ExitCode } from '../../errors/exit-codes.js';

export const FOLLOW_POLL_MS = 100;
/** How long one request may wait for the next event (an API that cannot wait answers at once). */
export const FOLLOW_WAIT_MS = 2000;

export interface FollowOptions {
  /** Events after this producerSequence (0: from the start). */
  since?: number;
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Stops following (Ctrl-C): the job goes on. */
  signal?: AbortSignal;
}

/** Each event once, in order; ends after `run.finished`, or when the signal aborts. */
export async function* followTrace(backend: Backend, id: string, options: FollowOptions = {}): AsyncGenerator<TraceEvent> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.()));
  let last = options.since ?? 0;
  for (;;) {
    if (options.signal?.aborted) return;
    const { events } = await backend.agentTrace(id, last, { waitMs: FOLLOW_WAIT_MS, ...(options.signal && { signal: options.signal }) });
    for (const event of events) {
      // A server that answers the whole trace every time: what was seen is skipped.
      if (event.producerSequence <= last) continue;
      last = event.producerSequence;
      yield event;
      if (event.type === 'run.finished') return;
    }
    // Nothing new: an API that waited had nothing for a while; one that did not is asked again shortly.
    if (events.length === 0) await sleep(options.pollMs ?? FOLLOW_POLL_MS);
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
