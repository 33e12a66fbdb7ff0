/**
 * The crawl's `includePaths` and `excludePaths`: regular expressions that a client sends and
 * the engine runs against every link it finds. JavaScript's backtracking engine can take
 * exponential time on a crafted pattern (`^(a+)+$`), and a match runs on the event loop that
 * answers every team's requests, so they are compiled by re2js, a port of RE2 whose matching
 * time is linear in the input. RE2's syntax is JavaScript's without lookaround and
 * backreferences; a pattern that needs them, or is too costly, is refused when validated.
 */
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { PATH_PATTERN_MAX_LENGTH, PATH_PATTERN_MAX_PROGRAM_SIZE } from './limits.js';

export interface PathPattern {
  readonly source: string;
  /** Whether the pattern matches anywhere in `path`, as RegExp's `test` does. */
  test(path: string): boolean;
}

let engine: typeof RE2JS | undefined;

/** re2js, loaded when the first pattern is compiled: most commands and definitions have none. */
function re2(): typeof RE2JS {
  engine ??= (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS;
  return engine;
}

export class PathPatternError extends Error {}

/** Compiles a path pattern, or throws PathPatternError saying in plain words why it cannot be used. */
export function compilePathPattern(source: string): PathPattern {
  if (source.length > PATH_PATTERN_MAX_LENGTH) {
    throw new PathPatternError(`is longer than ${PATH_PATTERN_MAX_LENGTH} characters (${source.length})`);
  }
  let compiled: RE2JS;
  try {
    compiled = re2().compile(source);
  } catch (error) {
    throw new PathPatternError(`is not a valid regular expression: ${describeSyntaxError(error as Error)}`);
  }
  const size = compiled.programSize();
  if (size > PATH_PATTERN_MAX_PROGRAM_SIZE) {
    throw new PathPatternError(
      `is too costly to match (program size ${size}, at most ${PATH_PATTERN_MAX_PROGRAM_SIZE}): use smaller repeat counts or fewer alternatives`,
    );
  }
  return { source, test: (path) => compiled.test(path) };
}

/** RE2's message, with a hint where the pattern uses what only a backtracking engine offers. */
function describeSyntaxError(error: Error): string {
  const reason = error.message.replace(/^error parsing regexp: /, '');
  if (/\(\?[=!]|\(\?<[=!]/.test(reason)) return `${reason} (lookahead and lookbehind are not supported: patterns run on a linear-time engine)`;
  if (/invalid escape sequence: `\\[1-9]/.test(reason)) return `${reason} (backreferences are not supported: patterns run on a linear-time engine)`;
  return reason;
}

/** Why `source` cannot be used as a path pattern, or undefined when it can. */
export function pathPatternProblem(source: string): string | undefined {
  try {
    compilePathPattern(source);
    return undefined;
  } catch (error) {
    if (error instanceof PathPatternError) return error.message;
    throw error;
  }
}
