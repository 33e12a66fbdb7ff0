/**
 * The webhook deliveries of a crawl or batch scrape (spec/job-webhook.ts): `crawl.started` (or
 * `batch_scrape.started`) when the job is accepted, `.page` for each stored document with that
 * document as `data`, then `.completed` or `.failed` (a cancel too) when it ends, each as the
 * webhook's `events` allow. The job's store queues them in the transaction that records what
 * they announce (crawl-jobs.ts); the outbox delivers them in that order.
 */
import { randomUUID } from 'node:crypto';
import type { JobWebhook, JobWebhookEvent } from '../../spec/job-webhook.js';
import type { NewDelivery } from './outbox.js';

/** A job's webhook as kept with the job: with the private-address rule of the request that gave it. */
export interface StoredJobWebhook extends JobWebhook {
  privateTargetsAllowed: boolean;
}

export interface WebhookJob {
  id: string;
  team: string;
  kind: 'crawl' | 'batch';
  webhook: StoredJobWebhook;
}

/** The payload's `type`: `crawl.page`, `batch_scrape.completed`... */
export const jobEventType = (kind: WebhookJob['kind'], event: JobWebhookEvent) => `${kind === 'crawl' ? 'crawl' : 'batch_scrape'}.${event}`;

/**
 * The delivery of `event`, unless the webhook's events leave it out. `documentText` is a page's
 * document as stored (JSON text), spliced into `data` as it is; `error` says why a job failed.
 */
export function jobWebhookDelivery(job: WebhookJob, event: JobWebhookEvent, now: Date, detail: { documentText?: string; error?: string } = {}): NewDelivery | undefined {
  const { webhook } = job;
  if (!webhook.events.includes(event)) return undefined;
  const id = randomUUID();
  const type = jobEventType(job.kind, event);
  const head = JSON.stringify({
    success: event !== 'failed', type, id: job.id, webhookId: id, metadata: webhook.metadata, ...(detail.error !== undefined && { error: detail.error }),
  });
  return {
    id, team: job.team, privateTargetsAllowed: webhook.privateTargetsAllowed, monitorId: null, checkId: null, jobId: job.id,
    channel: 'webhook', event: type, target: webhook.url, headers: webhook.headers,
    body: `${head.slice(0, -1)},"data":[${detail.documentText ?? ''}]}`, nextAttemptAt: now.toISOString(),
  };
}

export const parseStoredWebhook = (text: string | null): StoredJobWebhook | undefined => (text === null ? undefined : (JSON.parse(text) as StoredJobWebhook));
