/**
 * The webhook of a crawl or batch scrape (POST /v2/crawl, POST /v2/batch/scrape), as the hosted
 * SDK's WebhookConfig types it: a URL, or `{url, headers, metadata, events}`. Events are named
 * short in `events` (`started`, `page`, `completed`, `failed`; all by default) and in full in
 * the payloads: `crawl.page`, `batch_scrape.completed`...
 */
import { z } from 'zod';
import { closedObject, FRAMING_HEADERS, headerFields, httpUrl } from './fields.js';

export const JOB_WEBHOOK_EVENTS = ['started', 'page', 'completed', 'failed'] as const;
export type JobWebhookEvent = (typeof JOB_WEBHOOK_EVENTS)[number];

export const jobWebhookSchema = () => z.union([
  httpUrl(),
  closedObject({
    url: httpUrl(),
    headers: headerFields([...FRAMING_HEADERS, 'host']).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    events: z.array(z.enum(JOB_WEBHOOK_EVENTS)).optional(),
  }),
]);

export type JobWebhookInput = z.infer<ReturnType<typeof jobWebhookSchema>>;

/** A job's webhook as it is kept with the job: every field present. */
export interface JobWebhook {
  url: string;
  headers: Record<string, string>;
  metadata: Record<string, unknown>;
  events: JobWebhookEvent[];
}

export function normalizeJobWebhook(input: JobWebhookInput): JobWebhook {
  if (typeof input === 'string') return { url: input, headers: {}, metadata: {}, events: [...JOB_WEBHOOK_EVENTS] };
  return { url: input.url, headers: input.headers ?? {}, metadata: input.metadata ?? {}, events: input.events ?? [...JOB_WEBHOOK_EVENTS] };
}
