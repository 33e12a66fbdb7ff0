/** Field-level differences between two JSON values: `{path, from, to}` with paths like `targets[0].urls[1]`. */
import { formatPath, type PathSegment } from '../../spec/issues.js';

export interface FieldChange {
  path: string;
  from: unknown;
  to: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function fieldChanges(from: unknown, to: unknown, path: PathSegment[] = []): FieldChange[] {
  if (Array.isArray(from) && Array.isArray(to)) {
    const changes: FieldChange[] = [];
    for (let i = 0; i < Math.max(from.length, to.length); i++) changes.push(...fieldChanges(from[i], to[i], [...path, i]));
    return changes;
  }
  if (isObject(from) && isObject(to)) {
    const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])];
    return keys.flatMap((key) => fieldChanges(from[key], to[key], [...path, key]));
  }
  if (JSON.stringify(from) === JSON.stringify(to)) return [];
  return [{ path: formatPath(path), from: from ?? null, to: to ?? null }];
}
