/**
 * The agent job request (POST /v2/agent), as the hosted SDK sends it (`prepareAgentPayload`):
 * a prompt, optional URLs, an optional JSON Schema for the result, a credit bound and an
 * effort, and a webhook (spec/job-webhook.ts: on serve it hears `started`, an `action` per tool
 * call, then `completed`, `failed` or `cancelled`). The SDK's fields the local engine does not
 * use (model, threadId, ...) are accepted and ignored; any other field is refused by name.
 */
import { z } from 'zod';
import { describeIssue, type Problem } from './issues.js';
import { closedObject, httpUrl, stringKeyed } from './fields.js';
import { agentWebhookSchema } from './job-webhook.js';
import { QUESTION_MAX_LENGTH } from './limits.js';
import { auditMetadataSchema, threatProtectionSchema } from './scrape-options.js';

/** URLs an agent job may start from: webwatch's bound. */
export const AGENT_URLS_MAX = 100;

export const AGENT_EFFORTS = ['low', 'medium', 'high'] as const;

const agentRequestSchema = closedObject({
  prompt: z.string().min(1).max(QUESTION_MAX_LENGTH),
  urls: z.array(httpUrl()).max(AGENT_URLS_MAX).optional(),
  schema: stringKeyed(z.unknown()).optional(),
  maxCredits: z.number().int().min(1).optional(),
  effort: z.enum(AGENT_EFFORTS).optional(),
  strictConstrainToURLs: z.boolean().optional(),
  origin: z.string().max(256).optional(),
  integration: z.string().max(256).optional(),
  webhook: agentWebhookSchema().optional(),
  // Accepted and not used: the hosted service's models, threads, chat mode and tool exchange;
  // the server's threat policy; audit data, the caller's.
  model: z.string().optional(),
  threadId: z.string().optional(),
  mode: z.enum(['extract', 'chat']).optional(),
  exchange: stringKeyed(z.unknown()).optional(),
  threatProtection: threatProtectionSchema().optional(),
  auditMetadata: auditMetadataSchema().optional(),
});

export type AgentRequestInput = z.infer<typeof agentRequestSchema>;

/** The request's schema, for clients that describe it (the MCP tool). */
export const agentRequest = () => agentRequestSchema;

export function validateAgentRequest(input: unknown): { ok: true; value: AgentRequestInput } | { ok: false; problems: Problem[] } {
  const result = agentRequestSchema.safeParse(input, { reportInput: true });
  return result.success ? { ok: true, value: result.data } : { ok: false, problems: result.error.issues.flatMap((issue) => describeIssue(issue)) };
}

/** Job ids are UUIDs (spec §7.3). */
export const isJobId = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
