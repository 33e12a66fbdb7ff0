/** How deeply objects and arrays nest in a value, against MAX_JSON_DEPTH. */
import type { PathSegment } from './issues.js';
import { MAX_JSON_DEPTH } from './limits.js';

/**
 * The path of the first object or array (depth first, in order) that lies deeper than
 * `maxDepth`, the top-level value being depth 1; undefined when none does. Iterative, so that
 * it answers for any depth instead of overflowing the stack.
 */
export function pathBeyondDepth(value: unknown, maxDepth: number = MAX_JSON_DEPTH): PathSegment[] | undefined {
  const pending: { value: unknown; path: PathSegment[] }[] = [{ value, path: [] }];
  while (pending.length > 0) {
    const { value: here, path } = pending.pop()!;
    if (typeof here !== 'object' || here === null) continue;
    if (path.length + 1 > maxDepth) return path;
    const children: [PathSegment, unknown][] = Array.isArray(here) ? here.map((item, index) => [index, item]) : Object.entries(here);
    // Pushed last to first, so that the first child is looked at first.
    for (let i = children.length - 1; i >= 0; i--) {
      const [segment, child] = children[i]!;
      if (typeof child === 'object' && child !== null) pending.push({ value: child, path: [...path, segment] });
    }
  }
  return undefined;
}
