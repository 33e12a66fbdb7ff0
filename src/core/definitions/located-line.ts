/** The one form of a located problem for people: `file:line:col  path  message`. */
import type { PathSegment } from '../../spec/issues.js';
import { formatPath } from '../../spec/issues.js';

export interface LocatedLine {
  line: number | null;
  column: number | null;
  /** A formatted path (`targets[0].url`) or its segments. */
  path: string | readonly PathSegment[];
  message: string;
}

type Paint = (text: string) => string;
const plain: Paint = (text) => text;

export function formatLocated(file: string, problem: LocatedLine, style: { where?: Paint; path?: Paint } = {}): string {
  const where = problem.line === null ? file : `${file}:${problem.line}:${problem.column}`;
  const path = typeof problem.path === 'string' ? problem.path : formatPath(problem.path);
  return `${(style.where ?? plain)(where)}${path === '' ? '' : `  ${(style.path ?? plain)(path)}`}  ${problem.message}`;
}
