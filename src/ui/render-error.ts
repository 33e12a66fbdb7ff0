/** The one place errors become output: JSON (spec §7.1 shape) on stdout with --json, else stderr. */
import { WebwatchError } from '../errors/webwatch-error.js';
import { EXIT, type ExitCode } from '../errors/exit-codes.js';
import type { Output } from './output.js';
import { escapeControls, styled } from './terminal-text.js';

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
    // Messages carry text from outside: a server's error, a file's content, a flag's value.
    const style = output.errorStyle;
    output.problem(styled(`${style.red('error:')} ${escapeControls(failure.message)}`));
    if (failure.suggestion) output.problem(styled(`${style.dim('hint:')} ${escapeControls(failure.suggestion)}`));
  }
  return failure.exitCode;
}
