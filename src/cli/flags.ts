/** The one place where raw commander flags become typed options. */
import type { z } from 'zod';
import { UsageError } from '../errors/webwatch-error.js';
import { describeIssue, SECRET_NAME } from '../spec/issues.js';
import '../spec/zod-settings.js';

export function parseFlags<T extends z.ZodType>(schema: T, raw: unknown): z.infer<T> {
  const result = schema.safeParse(raw, { reportInput: true });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const flag = issue.path
      .map(String)
      .join('.')
      .replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    // Said of the value as typed: a number flag's text has become NaN by then.
    const typed = issue.path.reduce<unknown>((value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key], raw);
    const concealInput = SECRET_NAME.test(flag);
    const problem = describeIssue(issue.code === 'invalid_type' && typeof typed === 'string' ? { ...issue, input: typed } : issue, { concealInput })[0]!;
    throw new UsageError(`--${flag}: ${problem.message}`);
  }
  return result.data;
}
