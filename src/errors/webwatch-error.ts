/**
 * The one error type of webwatch. Each carries its exit code, a one-line message, and optionally
 * a suggestion, the error code and the details of the v2 error body (spec §7.1).
 */
import { EXIT, exitCodeForStatus, type ExitCode } from './exit-codes.js';

export interface WebwatchErrorOptions {
  exitCode?: ExitCode;
  /** HTTP status, when the error is (or mirrors) an API response. */
  status?: number;
  code?: string;
  suggestion?: string;
  details?: unknown;
  cause?: unknown;
}

export class WebwatchError extends Error {
  readonly exitCode: ExitCode;
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly suggestion: string | undefined;
  readonly details: unknown;

  constructor(message: string, options: WebwatchErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WebwatchError';
    this.status = options.status;
    // Something the configuration lacks (a model, a search provider) is the user's to set, here or
    // on the server that answered: usage (2), whatever HTTP status carried it.
    this.exitCode =
      options.exitCode ??
      (options.code?.endsWith('_NOT_CONFIGURED') ? EXIT.usage : options.status === undefined ? EXIT.failure : exitCodeForStatus(options.status));
    this.code = options.code;
    this.suggestion = options.suggestion;
    this.details = options.details;
  }
}

/** Bad flags, arguments or input: exit 2. */
export class UsageError extends WebwatchError {
  constructor(message: string, options: Omit<WebwatchErrorOptions, 'exitCode'> = {}) {
    super(message, { ...options, exitCode: EXIT.usage });
    this.name = 'UsageError';
  }
}
