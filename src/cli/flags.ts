/** The one place where raw commander flags become typed options. */
import type { z } from 'zod';
import { UsageError } from '../errors/webwatch-error.js';
import '../spec/zod-settings.js';

export function parseFlags<T extends z.ZodType>(schema: T, raw: unknown): z.infer<T> {
  const result = schema.safeParse(raw);
  if (!result.success) {
    const problem = result.error.issues[0]!;
    const flag = problem.path.map(String).join('.').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    throw new UsageError(`--${flag}: ${problem.message}`);
  }
  return result.data;
}
