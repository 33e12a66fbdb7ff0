/**
 * Text webwatch can store and send back as it was given: no NUL character (PostgreSQL's text
 * and JSON cannot hold it) and no half of a UTF-16 surrogate pair (no UTF-8 encoding exists for
 * one: it would come back as U+FFFD). Checked on every string and key of a request body and of
 * a definition file, so that such text is refused by name instead of stored altered.
 */
import type { PathSegment } from './issues.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` cannot be stored as it is, or undefined when it can. */
export function unstorableText(text: string): string | undefined {
  if (text.includes('\0')) return 'holds a NUL character (U+0000), which cannot be stored';
  const half = LONE_SURROGATE.exec(text);
  if (half) return `holds half of a surrogate pair (U+${half[0].charCodeAt(0).toString(16).toUpperCase()}) without its other half: it is not text`;
  return undefined;
}

/** The first string or key of `value` (depth first, in order) that cannot be stored, with why. */
export function unstorableTextIn(value: unknown): { path: PathSegment[]; message: string } | undefined {
  return unstorableTextsIn(value, 1)[0];
}

/** The strings and keys of `value` that cannot be stored, in order, `most` of them at most. */
export function unstorableTextsIn(value: unknown, most: number): { path: PathSegment[]; message: string }[] {
  const found: { path: PathSegment[]; message: string }[] = [];
  const pending: { value: unknown; path: PathSegment[] }[] = [{ value, path: [] }];
  while (pending.length > 0 && found.length < most) {
    const { value: here, path } = pending.pop()!;
    if (typeof here === 'string') {
      const message = unstorableText(here);
      if (message) found.push({ path, message });
      continue;
    }
    if (typeof here !== 'object' || here === null) continue;
    const children: [PathSegment, unknown][] = Array.isArray(here) ? here.map((item, index) => [index, item]) : Object.entries(here);
    for (let i = children.length - 1; i >= 0; i--) {
      const [segment, child] = children[i]!;
      if (typeof segment === 'string') {
        const message = unstorableText(segment);
        if (message) found.push({ path: [...path, segment], message: `the key ${message}` });
      }
      if (typeof child === 'string' || (typeof child === 'object' && child !== null)) pending.push({ value: child, path: [...path, segment] });
    }
  }
  return found;
}
