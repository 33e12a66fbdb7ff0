/** The one place errors become output: JSON (spec §7.1 shape) on stdout with --json, else stderr. */
import { WebwatchError } from '../errors/webwatch-error.js';
import { EXIT, type ExitCode } from '../errors/exit-codes.js';
import type { Output } from './output.js';

export function asWebwatchError(error: unknown): WebwatchError {
  if (error instanceof WebwatchError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new WebwatchError(`internal error: ${message}`, { exitCode: EXIT.failure, cause: error });
}

export function renderError(error: unknown, output: Output): ExitCode {
  const failure = asWebwatchError(error);
  if (output.json) {
    output.jsonDocument({
      success: false,
      error: failure.message,
      ...(failure.code !== undefined && { code: failure.code }),
      ...(failure.details !== undefined && { details: failure.details }),
    });
  } else {
    const style = output.errorStyle;
    output.problem(`${style.red('error:')} ${failure.message}`);
    if (failure.suggestion) output.problem(`${style.dim('hint:')} ${failure.suggestion}`);
  }
  return failure.exitCode;
}
