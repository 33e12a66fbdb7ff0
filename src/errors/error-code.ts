/** What any failure is as a WebwatchError, and the code its JSON error carries: for --json and MCP alike. */
import { EXIT, EXIT_CODE_TABLE } from './exit-codes.js';
import { codeOfStatus } from './status-codes.js';
import { WebwatchError } from './webwatch-error.js';

export function asWebwatchError(error: unknown): WebwatchError {
  if (error instanceof WebwatchError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new WebwatchError(`internal error: ${message}`, { exitCode: EXIT.failure, cause: error });
}

/** The error's own code, else its HTTP answer's, else its exit code's name. */
export function errorCodeOf(failure: WebwatchError): string {
  if (failure.code !== undefined) return failure.code;
  if (failure.status !== undefined) return codeOfStatus(failure.status);
  return EXIT_CODE_TABLE.find((entry) => entry.code === failure.exitCode)?.name ?? 'FAILED';
}
