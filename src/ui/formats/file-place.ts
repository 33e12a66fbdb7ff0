/** Where a definition file is, for tools that show it in a repository: a code review, code scanning. */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { STDIN_NAME } from '../../spec/located-line.js';

export type FilePlace =
  /** Inside the root, `/`-separated: what a pull request's diff and code scanning name. */
  | { inRoot: true; path: string }
  /** Outside it: the absolute path. */
  | { inRoot: false; path: string };

/**
 * `file` as given on the command line (relative to `cwd`) placed against `root` (the checkout
 * on CI, else the working directory); undefined for standard input, which has no place.
 */
export function filePlace(file: string, root: string, cwd: string): FilePlace | undefined {
  if (file === STDIN_NAME) return undefined;
  const absolute = resolve(cwd, file);
  const fromRoot = relative(resolve(cwd, root), absolute);
  if (fromRoot === '' || fromRoot === '..' || fromRoot.startsWith(`..${sep}`) || isAbsolute(fromRoot)) return { inRoot: false, path: absolute };
  return { inRoot: true, path: fromRoot.split(sep).join('/') };
}
