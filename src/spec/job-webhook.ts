/**
 * The webhook of a job on serve, as the hosted SDK types it: a URL, or `{url, headers, metadata,
 * events}`. Crawls, batch scrapes and extract jobs take its `WebhookConfig`, whose events are
 * `started`, `page`, `completed` and `failed`; agent jobs its `AgentWebhookConfig`, whose events
 * are `started`, `action`, `completed`, `failed` and `cancelled`. Events are named short in
 * `events` (all by default) and in full in the payloads: `crawl.page`, `agent.action`...
 */
import { z } from 'zod';
import { closedObject, FRAMING_HEADERS, headerFields, httpUrl, stringKeyed } from './fields.js';

export const JOB_WEBHOOK_EVENTS = ['started', 'page', 'completed', 'failed'] as const;
export const AGENT_WEBHOOK_EVENTS = ['started', 'action', 'completed', 'failed', 'cancelled'] as const;
export type JobWebhookEvent = (typeof JOB_WEBHOOK_EVENTS)[number] | (typeof AGENT_WEBHOOK_EVENTS)[number];

const webhookSchema = <E extends readonly [JobWebhookEvent, ...JobWebhookEvent[]]>(events: E) =>
  z.union([
    httpUrl(),
    closedObject({
      url: httpUrl(),
      headers: headerFields([...FRAMING_HEADERS, 'host']).optional(),
      metadata: stringKeyed(z.unknown()).optional(),
      events: z.array(z.enum(events)).optional(),
    }),
  ]);

/** A crawl's, batch scrape's or extract job's webhook (the SDK's WebhookConfig). */
export const jobWebhookSchema = () => webhookSchema(JOB_WEBHOOK_EVENTS);
/** An agent job's webhook (the SDK's AgentWebhookConfig). */
export const agentWebhookSchema = () => webhookSchema(AGENT_WEBHOOK_EVENTS);

export type JobWebhookInput = z.infer<ReturnType<typeof jobWebhookSchema>> | z.infer<ReturnType<typeof agentWebhookSchema>>;

/** A job's webhook as it is kept with the job: every field present. */
export interface JobWebhook {
  url: string;
  headers: Record<string, string>;
  metadata: Record<string, unknown>;
  events: JobWebhookEvent[];
}

/** Every field present; without `events`, all of `allEvents` (those of the job's kind). */
export function normalizeJobWebhook(input: JobWebhookInput, allEvents: readonly JobWebhookEvent[] = JOB_WEBHOOK_EVENTS): JobWebhook {
  if (typeof input === 'string') return { url: input, headers: {}, metadata: {}, events: [...allEvents] };
  return { url: input.url, headers: input.headers ?? {}, metadata: input.metadata ?? {}, events: input.events ? [...input.events] : [...allEvents] };
}
