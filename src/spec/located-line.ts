/** The one form of a located problem for people: `file:line:col  path  message`. */
import type { PathSegment } from './issues.js';
import { formatPath } from './issues.js';

/** The file name of definitions read from standard input, in located lines and reports. */
export const STDIN_NAME = '<stdin>';

export interface LocatedLine {
  line: number | null;
  column: number | null;
  /** A formatted path (`targets[0].url`) or its segments. */
  path: string | readonly PathSegment[];
  message: string;
}

type Paint = (text: string) => string;
const plain: Paint = (text) => text;

/**
 * `outside` is applied first to the pieces that come from the input (file name, path, message),
 * `where` and `path` after it: a terminal escapes what it is given, then colours it.
 */
export function formatLocated(file: string, problem: LocatedLine, style: { outside?: Paint; where?: Paint; path?: Paint } = {}): string {
  const outside = style.outside ?? plain;
  const where = problem.line === null ? outside(file) : `${outside(file)}:${problem.line}:${problem.column}`;
  const path = outside(typeof problem.path === 'string' ? problem.path : formatPath(problem.path));
  return `${(style.where ?? plain)(where)}${path === '' ? '' : `  ${(style.path ?? plain)(path)}`}  ${outside(problem.message)}`;
}
