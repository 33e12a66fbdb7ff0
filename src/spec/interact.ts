/** The interact request (POST /v2/scrape/{scrapeId}/interact, `webwatch interact`), as the hosted SDK and CLI send it. */
import { z } from 'zod';
import { closedObject, requestTags } from './fields.js';
import { describeIssue, type Problem } from './issues.js';
import type { Validation } from './schemas.js';

/** A call's timeout, in seconds, as the hosted API bounds it. */
export const INTERACT_TIMEOUT_MIN_S = 1;
export const INTERACT_TIMEOUT_MAX_S = 300;
export const INTERACT_TIMEOUT_DEFAULT_S = 30;

/** Closed: a field the hosted SDK's ScrapeExecuteRequest does not have is refused by name. Which of prompt and code is given is the engine's rule. */
const interactRequest = closedObject({
  prompt: z.string().optional(),
  code: z.string().optional(),
  language: z.enum(['node', 'python', 'bash']).optional(),
  timeout: z.number().min(INTERACT_TIMEOUT_MIN_S).max(INTERACT_TIMEOUT_MAX_S).optional(),
  ...requestTags(),
});

export type InteractRequestInput = z.infer<typeof interactRequest>;

export function validateInteractRequest(input: unknown): Validation<InteractRequestInput> {
  const result = interactRequest.safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problems: result.error.issues.flatMap((issue) => describeIssue(issue)) as Problem[] };
}
