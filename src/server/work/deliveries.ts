/**
 * The delivery loop of a worker: notifications go out after each check, and again when their
 * next attempt is due. The outbox is shared: deliveries of checks other processes finished are
 * found within DELIVERY_POLL_MS.
 */
import { deliverDue } from '../../engine/notify/deliver.js';
import { outboxStore } from '../../engine/notify/outbox.js';
import type { Db } from '../../engine/store/database.js';
import { renewWhile } from '../../engine/store/leases.js';

/** How soon deliveries held by another worker are looked at again. */
const DELIVERY_RECHECK_MS = 250;
/**
 * How often a worker looks for deliveries it was not told of: those of checks that another
 * process (an API process, say) finished.
 */
const DELIVERY_POLL_MS = 5_000;

export interface DeliveryOptions {
  db: Db;
  now(): Date;
  version: string;
  webhookSecret?: string | undefined;
  smtp?: { url: string; from: string } | undefined;
  onError(error: unknown): void;
}

export interface Deliveries {
  /** Delivers what is due now (a check just ended, a job queued an event); during a round, once more right after it. */
  deliver(): void;
  /** The last round, then one more for what the last checks queued; no more after it. */
  finish(): Promise<void>;
}

export function startDeliveries(options: DeliveryOptions): Deliveries {
  const outbox = outboxStore(options.db);
  let delivering: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let closing = false;

  const plan = async () => {
    if (timer) clearTimeout(timer);
    const next = await outbox.nextAttemptAt().catch(() => undefined);
    if (closing) return;
    // Deliveries claimed by another worker stay due until it records them: look again soon, not at once.
    const wait = next ? Math.max(DELIVERY_RECHECK_MS, Date.parse(next) - options.now().getTime()) : DELIVERY_POLL_MS;
    timer = setTimeout(deliver, Math.min(wait, DELIVERY_POLL_MS)).unref();
  };
  function deliver() {
    if (closing) return;
    // What was queued during a round may have been queued after the round claimed: one more follows.
    if (delivering) {
      again = true;
      return;
    }
    // Claims are renewed while the round lasts: a slow receiver (10 s an attempt) must not let another worker take them over.
    delivering = renewWhile(
      options.db,
      deliverDue({
        outbox,
        now: options.now,
        version: options.version,
        ...(options.webhookSecret && { secret: options.webhookSecret }),
        ...(options.smtp && { smtp: options.smtp }),
      }),
    )
      .then(() => undefined, options.onError)
      .finally(() => {
        delivering = undefined;
        if (again) {
          again = false;
          deliver();
        } else void plan();
      });
  }

  return {
    deliver,
    async finish() {
      // The last checks' notifications get their first attempt; retries wait for the next start.
      while (delivering) await delivering;
      deliver();
      while (delivering) await delivering;
      closing = true;
      if (timer) clearTimeout(timer);
    },
  };
}
