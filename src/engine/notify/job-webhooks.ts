/**
 * The webhook deliveries of a job on serve (spec/job-webhook.ts). A crawl or batch scrape:
 * `crawl.started` (or `batch_scrape.started`) when the job is accepted, `.page` for each stored
 * document with that document as `data`, then `.completed` or `.failed` (a cancel too). An agent
 * job: `agent.started`, `agent.action` for each tool call, then `agent.completed`, `.failed` or
 * `.cancelled`, the last with the job's status as `data`. An extract job: `extract.started`, then
 * `.completed` or `.failed`. Each as the webhook's `events` allow. The job's store queues them in
 * the transaction that records what they announce (crawl-jobs.ts, agent-store.ts); the outbox
 * delivers them in that order.
 */
import { randomUUID } from 'node:crypto';
import type { JobWebhook, JobWebhookEvent } from '../../spec/job-webhook.js';
import type { Db, Query } from '../store/database.js';
import { outboxStore, type NewDelivery } from './outbox.js';

/** A job's webhook as kept with the job: with the private-address rule of the request that gave it. */
export interface StoredJobWebhook extends JobWebhook {
  privateTargetsAllowed: boolean;
}

export type WebhookJobKind = 'crawl' | 'batch' | 'agent' | 'extract';

export interface WebhookJob {
  id: string;
  team: string;
  kind: WebhookJobKind;
  webhook: StoredJobWebhook;
}

const EVENT_PREFIX: Record<WebhookJobKind, string> = { crawl: 'crawl', batch: 'batch_scrape', agent: 'agent', extract: 'extract' };

/** The payload's `type`: `crawl.page`, `batch_scrape.completed`, `agent.action`... */
export const jobEventType = (kind: WebhookJobKind, event: JobWebhookEvent) => `${EVENT_PREFIX[kind]}.${event}`;

/**
 * The delivery of `event`, unless the webhook's events leave it out. `dataText` is the one
 * element of `data`, as JSON text spliced in as it is (a page's stored document, say); `error`
 * says why a job failed.
 */
export function jobWebhookDelivery(
  job: WebhookJob,
  event: JobWebhookEvent,
  now: Date,
  detail: { dataText?: string; error?: string } = {},
): NewDelivery | undefined {
  const { webhook } = job;
  if (!webhook.events.includes(event)) return undefined;
  const id = randomUUID();
  const type = jobEventType(job.kind, event);
  const head = JSON.stringify({
    success: event !== 'failed' && event !== 'cancelled',
    type,
    id: job.id,
    webhookId: id,
    metadata: webhook.metadata,
    ...(detail.error !== undefined && { error: detail.error }),
  });
  return {
    id,
    team: job.team,
    privateTargetsAllowed: webhook.privateTargetsAllowed,
    monitorId: null,
    checkId: null,
    jobId: job.id,
    channel: 'webhook',
    event: type,
    target: webhook.url,
    headers: webhook.headers,
    body: `${head.slice(0, -1)},"data":[${detail.dataText ?? ''}]}`,
    nextAttemptAt: now.toISOString(),
  };
}

export const parseStoredWebhook = (text: string | null): StoredJobWebhook | undefined => (text === null ? undefined : (JSON.parse(text) as StoredJobWebhook));

/** How much of each argument of a tool call an `agent.action` carries. */
export const ACTION_ARGUMENT_MAX_CHARS = 200;
/** Arguments of a tool call an `agent.action` carries, at most. */
const ACTION_ARGUMENTS_MAX = 10;

const cut = (text: string) => (text.length > ACTION_ARGUMENT_MAX_CHARS ? `${text.slice(0, ACTION_ARGUMENT_MAX_CHARS)}…` : text);

/**
 * An agent's tool call as `agent.action` announces it: the tool, its arguments summarised (each
 * cut to ACTION_ARGUMENT_MAX_CHARS; a structured one as its JSON text), which call of the run it
 * is, the agent that made it, and the run's credits so far. What the tool answered (a page's
 * text) is never in it: the trace and the snapshots have that.
 */
export function agentActionData(toolName: string, parameters: unknown, detail: { step: number; agent: string; creditsUsed: number }): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const given = typeof parameters === 'object' && parameters !== null && !Array.isArray(parameters) ? parameters : {};
  for (const [name, value] of Object.entries(given).slice(0, ACTION_ARGUMENTS_MAX)) {
    input[name] =
      typeof value === 'string'
        ? cut(value)
        : value === null || typeof value === 'number' || typeof value === 'boolean'
          ? value
          : cut(JSON.stringify(value) ?? '');
  }
  return { action: toolName, input, step: detail.step, agent: detail.agent, creditsUsed: detail.creditsUsed };
}

/**
 * A job store's webhook events: `announce` queues the job's `event` inside the transaction that
 * records it, if its webhook takes it (true when a delivery was queued); `told` tells the worker
 * once that transaction has committed.
 */
export function jobAnnouncer(db: Db, deliveryQueued?: () => void) {
  const outbox = outboxStore(db);
  return {
    async announce(
      trx: Query,
      row: { id: string; team: string; kind: WebhookJobKind; webhook: string | null },
      event: JobWebhookEvent,
      now: Date,
      detail?: { dataText?: string; error?: string },
    ): Promise<boolean> {
      const webhook = parseStoredWebhook(row.webhook);
      const delivery = webhook && jobWebhookDelivery({ id: row.id, team: row.team, kind: row.kind, webhook }, event, now, detail);
      if (!delivery) return false;
      await outbox.enqueue([delivery], now, trx);
      return true;
    },
    told(announced: boolean): void {
      if (announced) deliveryQueued?.();
    },
  };
}
