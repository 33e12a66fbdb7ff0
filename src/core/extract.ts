/** `extract`: start an extract job and wait for its end, asking less often as it goes on. */
import type { ExtractService } from '../services/interfaces.js';
import type { ExtractStatusDocument } from '../contract/extract.js';
import type { ExtractRequestInput } from '../spec/extract.js';

/** The first look comes soon (a local job on a fast model ends in well under a second), then every 2 s at most. */
const FIRST_POLL_MS = 100;
const POLL_MAX_MS = 2000;

export interface ExtractWait {
  /** The job's id once it has started, and what the API said of the request. */
  onStarted?(id: string, warning: string | undefined): void;
  signal?: AbortSignal;
  sleep?(ms: number): Promise<void>;
}

/** Starts the job and returns its status once it is no longer processing. */
export async function extractAndWait(
  backend: { extract: ExtractService },
  request: ExtractRequestInput,
  wait: ExtractWait = {},
): Promise<ExtractStatusDocument> {
  const sleep = wait.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const { id, warning } = await backend.extract.start(request);
  wait.onStarted?.(id, warning);
  let pause = FIRST_POLL_MS;
  for (;;) {
    wait.signal?.throwIfAborted();
    const status = await backend.extract.get(id);
    if (status.status !== 'processing') return status;
    await sleep(pause);
    pause = Math.min(pause * 2, POLL_MAX_MS);
  }
}
