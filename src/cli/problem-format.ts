/**
 * How invalid definitions are reported: lines for people, GitHub Actions workflow commands
 * (annotations on the pull request's lines), or SARIF for code scanning.
 */
import { UsageError } from '../errors/webwatch-error.js';
import type { Io } from '../ui/io.js';

export type ProblemFormat = 'text' | 'github' | 'sarif';

/** On GitHub Actions, annotations are what a reviewer sees: the default there, unless --json. */
export function problemFormat(asked: ProblemFormat | undefined, env: Io['env'], json: boolean): ProblemFormat {
  if (asked !== undefined && json) throw new UsageError('give --format or --json, not both');
  if (asked !== undefined) return asked;
  return !json && env.GITHUB_ACTIONS === 'true' ? 'github' : 'text';
}

/** The directory files are named from in annotations and SARIF: the checkout on CI. */
export const reportRoot = (io: Io) => io.env.GITHUB_WORKSPACE || io.cwd();
