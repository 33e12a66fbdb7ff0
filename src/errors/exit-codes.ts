/** The exit-code table (DESIGN §3), shown by `webwatch help exit-codes` and docs/output.md. */

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  conflict: 5,
  limit: 6,
  timeout: 7,
  changesPending: 8,
  agentRefused: 9,
  agentCancelled: 10,
  browserMissing: 11,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * Each exit code's name: the `code` of a --json error document when the error has no code of
 * its own and did not come from an HTTP answer, so that a script can always match on one.
 */
export const EXIT_CODE_TABLE: readonly { code: ExitCode; name: string; meaning: string }[] = [
  { code: EXIT.ok, name: 'OK', meaning: 'success' },
  { code: EXIT.failure, name: 'FAILED', meaning: 'runtime failure: network, server 5xx after retries, engine fault' },
  {
    code: EXIT.usage,
    name: 'USAGE_ERROR',
    meaning:
      'usage error or invalid input: bad flags, invalid YAML or definition, HTTP 400/413/422, or a setting the request needs is missing (no model, no search provider)',
  },
  { code: EXIT.auth, name: 'UNAUTHORIZED', meaning: 'authentication or permission: HTTP 401, 403' },
  { code: EXIT.notFound, name: 'NOT_FOUND', meaning: 'not found: HTTP 404' },
  { code: EXIT.conflict, name: 'CONFLICT', meaning: 'conflict: HTTP 409' },
  { code: EXIT.limit, name: 'LIMIT_REACHED', meaning: 'credits, rate or concurrency limit still hit after retries: HTTP 402, 429' },
  { code: EXIT.timeout, name: 'TIMEOUT', meaning: 'timeout: HTTP 408, 504, or a local timeout' },
  { code: EXIT.changesPending, name: 'CHANGES_PENDING', meaning: 'changes pending: only with --detailed-exitcode' },
  { code: EXIT.agentRefused, name: 'AGENT_REFUSED', meaning: 'the agent refused the task (agent run, agent trace --follow)' },
  {
    code: EXIT.agentCancelled,
    name: 'AGENT_CANCELLED',
    meaning: 'the agent job was cancelled (agent run, agent trace --follow); a failed run is 1, one that hit maxCredits 6',
  },
  {
    code: EXIT.browserMissing,
    name: 'BROWSER_NOT_FOUND',
    meaning:
      'the request needs a tool that is missing: a browser (actions, screenshot, waitFor, mobile) and no Chromium was found, or ffmpeg (the video and audio formats)',
  },
  { code: EXIT.interrupted, name: 'INTERRUPTED', meaning: 'interrupted (Ctrl-C)' },
];

/** The exit code for an HTTP status of an error response. */
export function exitCodeForStatus(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 409) return EXIT.conflict;
  if (status === 402 || status === 429) return EXIT.limit;
  if (status === 408 || status === 504) return EXIT.timeout;
  if (status >= 400 && status < 500) return EXIT.usage;
  return EXIT.failure;
}
