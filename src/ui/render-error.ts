/** The one place errors become output: JSON (spec §7.1 shape) on stdout with --json, else stderr. */
import { asWebwatchError, errorCodeOf } from '../errors/error-code.js';
import type { ExitCode } from '../errors/exit-codes.js';
import type { Output } from './output.js';
import { styledLine } from './terminal-text.js';

export { asWebwatchError };

/** Generic messages of an HTTP status: on their own they say neither what nor why. */
const BARE = new Set([
  'Bad Request',
  'Unauthorized',
  'Forbidden',
  'Not Found',
  'Conflict',
  'Payment Required',
  'Internal Server Error',
  'Bad Gateway',
  'Service Unavailable',
  'Gateway Timeout',
  'Too Many Requests',
]);

/**
 * What the details of an error say, in one line for a terminal: `monitor "Nope": no monitor has
 * this id, id prefix or name`. Field problems (a list) are shown one per line instead.
 */
export function detailLine(details: unknown): string | undefined {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) return undefined;
  const { reason, ...rest } = details as Record<string, unknown>;
  const what = Object.entries(rest)
    .filter(([, value]) => typeof value === 'string' || typeof value === 'number')
    .slice(0, 2)
    .map(([key, value]) => `${key} ${JSON.stringify(value)}`)
    .join(', ');
  const why = typeof reason === 'string' ? reason : '';
  // A reason that names its subject itself (`monitor "Acme blog" is paused`) needs no ids before it.
  if (why.includes('"')) return why;
  return [what, why].filter(Boolean).join(': ') || undefined;
}

const problemLines = (details: unknown): string[] =>
  Array.isArray(details)
    ? details.slice(0, 10).flatMap((problem) => {
        const { path, message } = (problem ?? {}) as { path?: unknown; message?: unknown };
        return typeof message === 'string' ? [`  ${typeof path === 'string' && path ? `${path}: ` : ''}${message}`] : [];
      })
    : [];

export function renderError(error: unknown, output: Output): ExitCode {
  const failure = asWebwatchError(error);
  if (output.json) {
    output.jsonDocument({
      success: false,
      error: failure.message,
      code: errorCodeOf(failure),
      ...(failure.details !== undefined && { details: failure.details }),
      // What the terminal prints as `hint:` (a did-you-mean, the command that fixes it), for scripts too.
      ...(failure.suggestion !== undefined && { hint: failure.suggestion }),
    });
  } else {
    // Messages carry text from outside: a server's error, a file's content, a flag's value.
    const style = output.messageStyle;
    const detail = detailLine(failure.details);
    // The details say what and why; the bare status word adds nothing to them (the exit code keeps the class).
    const message = detail && BARE.has(failure.message) ? detail : failure.message;
    output.problem(styledLine`${style.red('error:')} ${message}`);
    // A server's own message with a reason beside it (an API's 501, an agent passthrough): both are shown.
    const reason = (failure.details as { reason?: unknown } | undefined)?.reason;
    if (typeof reason === 'string' && detail && message !== detail && !message.includes(reason) && reason !== failure.suggestion) output.problem(`  ${reason}`);
    for (const line of problemLines(failure.details)) output.problem(line);
    if (failure.suggestion) output.problem(styledLine`${style.dim('hint:')} ${failure.suggestion}`);
  }
  return failure.exitCode;
}
