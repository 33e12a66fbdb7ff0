/**
 * Field-by-field comparison of two extracted JSON values: each leaf path that differs maps to
 * `{previous, current}` (the hosted SDK's MonitorJsonFieldDiff). Paths are written as in
 * JavaScript: `plans[1].price`, `["odd key"]`. A value present on one side only is `null` on
 * the other; an object or array that appears or goes whole is one leaf, except the root: a first
 * extraction (nothing before it) lists each of its leaves.
 */
import { isDeepStrictEqual } from 'node:util';

export type { JsonFieldDiff, TrackedFieldDiff } from '../../contract/diff.js';
import type { JsonFieldDiff, TrackedFieldDiff } from '../../contract/diff.js';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

const child = (path: string, key: string) => (IDENTIFIER.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function diffJson(previous: unknown, current: unknown): JsonFieldDiff {
  const changes: JsonFieldDiff = {};
  const walk = (before: unknown, after: unknown, path: string) => {
    if (isRecord(before) && isRecord(after)) {
      for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) walk(before[key], after[key], child(path, key));
      return;
    }
    if (Array.isArray(before) && Array.isArray(after)) {
      for (let i = 0; i < Math.max(before.length, after.length); i++) walk(before[i], after[i], `${path}[${i}]`);
      return;
    }
    if (!isDeepStrictEqual(before ?? null, after ?? null)) changes[path || '(root)'] = { previous: before ?? null, current: after ?? null };
  };
  const empty = (value: unknown) => (Array.isArray(value) ? [] : isRecord(value) ? {} : null);
  walk(previous ?? empty(current), current ?? empty(previous), '');
  return changes;
}

/**
 * A change-tracking scrape's json mode, as the hosted API answers it: each field of the
 * extracted object (its top-level properties, as the schema names them) whose value changed, as
 * `{old, new}` (null where absent). An extraction that is no object is the one field `(root)`.
 */
export function diffTrackedFields(previous: unknown, current: unknown): TrackedFieldDiff {
  const changes: TrackedFieldDiff = {};
  if (!isRecord(previous ?? {}) || !isRecord(current ?? {})) {
    if (!isDeepStrictEqual(previous ?? null, current ?? null)) changes['(root)'] = { old: previous ?? null, new: current ?? null };
    return changes;
  }
  const before = (previous ?? {}) as Record<string, unknown>;
  const after = (current ?? {}) as Record<string, unknown>;
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (!isDeepStrictEqual(before[key] ?? null, after[key] ?? null)) changes[key] = { old: before[key] ?? null, new: after[key] ?? null };
  }
  return changes;
}

/** Tracked fields as lines, as fieldDiffText writes a monitor's. */
export const trackedFieldsText = (fields: TrackedFieldDiff): string =>
  fieldDiffText(Object.fromEntries(Object.entries(fields).map(([key, change]) => [key, { previous: change.old, current: change.new }])));

/** Equal as JSON: the same leaves at the same paths. */
export const sameJson = (previous: unknown, current: unknown) => Object.keys(diffJson(previous, current)).length === 0;

/** A field diff as lines a person (and the lexical judge) reads like a unified diff: `-path: before`, `+path: after`. */
export function fieldDiffText(fields: JsonFieldDiff): string {
  const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  return Object.entries(fields)
    .map(([path, { previous, current }]) =>
      [...(previous !== null ? [`-${path}: ${show(previous)}`] : []), ...(current !== null ? [`+${path}: ${show(current)}`] : [])].join('\n'),
    )
    .join('\n');
}

/** A page's diff as text: the markdown's unified diff, else its JSON fields' changes. */
export function diffText(diff: { text?: string; json?: unknown }): string {
  if (diff.text) return diff.text;
  return isRecord(diff.json) && !('files' in diff.json) ? fieldDiffText(diff.json as JsonFieldDiff) : '';
}

/**
 * A path written as diffJson writes them (`plans[1].price`, `["odd key"]`, `(root)`) as its keys,
 * read left to right in one pass; a SyntaxError says where it cannot be read.
 */
export function parsePath(path: string): (string | number)[] {
  if (path === '(root)' || path === '') return [];
  const keys: (string | number)[] = [];
  let rest = path;
  while (rest.length > 0) {
    const name = /^\.?([A-Za-z_$][\w$]*)/.exec(rest);
    const index = name ? null : /^\[(\d+)\]/.exec(rest);
    const quoted = name || index ? null : /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
    if (name) keys.push(name[1]!);
    else if (index) keys.push(Number(index[1]));
    else if (quoted) keys.push(JSON.parse(quoted[1]!) as string);
    else throw new SyntaxError(`cannot read the path at "${rest}": write fields as in plans[1].price or ["odd key"]`);
    rest = rest.slice((name ?? index ?? quoted)![0].length);
  }
  return keys;
}

/** The value at a path (parsePath's keys, or a path to parse), or undefined when the JSON has none there. */
export function valueAtPath(json: unknown, path: string | readonly (string | number)[]): unknown {
  let value = json;
  for (const key of typeof path === 'string' ? parsePath(path) : path) {
    if (typeof key === 'number' ? !Array.isArray(value) : !isRecord(value)) return undefined;
    value = (value as Record<string | number, unknown>)[key];
    if (value === undefined) return undefined;
  }
  return value;
}
