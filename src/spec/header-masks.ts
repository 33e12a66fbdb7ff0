/**
 * Header values of monitors (webhook headers, the headers of scrape and crawl targets) are
 * secrets: serve answers each one as MASKED_VALUE, as the command line prints it. A definition
 * sent back with a masked value means "the value stored": serve keeps it, and `monitor apply`
 * sees no change in it. Shared by serve, the command line's output and apply.
 */
import type { PathSegment, Problem } from './issues.js';

export const MASKED_VALUE = '<redacted>';

type Headers = Record<string, unknown>;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Each `headers` mapping of a monitor (or of its create request): where it sits, and its target's position. */
function* headerMaps(monitor: unknown): Generator<{ path: PathSegment[]; headers: Headers; target?: number }> {
  if (!isObject(monitor)) return;
  if (isObject(monitor.webhook) && isObject(monitor.webhook.headers)) yield { path: ['webhook', 'headers'], headers: monitor.webhook.headers };
  if (!Array.isArray(monitor.targets)) return;
  for (const [i, target] of monitor.targets.entries()) {
    if (isObject(target) && isObject(target.scrapeOptions) && isObject(target.scrapeOptions.headers)) {
      yield { path: ['targets', i, 'scrapeOptions', 'headers'], headers: target.scrapeOptions.headers, target: i };
    }
  }
}

/** A copy of `value` with the mapping at `path` replaced by `headers`. */
function replaced<T>(value: T, path: readonly PathSegment[], headers: Headers): T {
  if (path.length === 0) return headers as T;
  const [head, ...rest] = path as [PathSegment, ...PathSegment[]];
  if (Array.isArray(value)) return value.map((item, i) => (i === head ? replaced(item, rest, headers) : item)) as T;
  const object = value as Record<string, unknown>;
  return { ...object, [head]: replaced(object[head as string], rest, headers) } as T;
}

const masked = new WeakMap<object, unknown>();

/** The monitor with every header value masked; the monitor itself when it has none. */
export function maskHeaderValues<T extends object>(monitor: T): T {
  const known = masked.get(monitor);
  if (known) return known as T;
  let result = monitor;
  for (const { path, headers } of headerMaps(monitor)) {
    if (Object.keys(headers).length > 0) result = replaced(result, path, Object.fromEntries(Object.keys(headers).map((name) => [name, MASKED_VALUE])));
  }
  // Listed monitors are frozen and kept by the store between requests: so is their masked copy.
  if (Object.isFrozen(monitor)) masked.set(monitor, result);
  return result;
}

/** The target of `stored` that `incoming`'s target at `index` stands for: the one of its id, else the one at its place, of its type. */
function storedTarget(stored: unknown, incoming: unknown, index: number): unknown {
  if (!isObject(stored) || !Array.isArray(stored.targets) || !isObject(incoming) || !Array.isArray(incoming.targets)) return undefined;
  const target = incoming.targets[index] as Record<string, unknown> | undefined;
  if (isObject(target) && typeof target.id === 'string') {
    const byId = stored.targets.find((candidate) => isObject(candidate) && candidate.id === target.id);
    if (byId) return byId;
  }
  const atPlace = stored.targets[index] as Record<string, unknown> | undefined;
  return isObject(atPlace) && isObject(target) && atPlace.type === target.type ? atPlace : undefined;
}

function storedHeaders(stored: unknown, incoming: unknown, place: { path: PathSegment[]; target?: number }): Headers | undefined {
  if (place.target === undefined) return isObject(stored) && isObject(stored.webhook) && isObject(stored.webhook.headers) ? stored.webhook.headers : undefined;
  const target = storedTarget(stored, incoming, place.target);
  return isObject(target) && isObject(target.scrapeOptions) && isObject(target.scrapeOptions.headers) ? target.scrapeOptions.headers : undefined;
}

/**
 * `incoming` (a create or update request's fields) with each masked header value replaced by
 * the value stored under its name in `stored` (the monitor as it is; none for a new monitor);
 * a masked value with none stored is a problem: what it stands for is unknown.
 */
export function unmaskHeaderValues<T>(incoming: T, stored: unknown): { value: T; problems: Problem[] } {
  let value = incoming;
  const problems: Problem[] = [];
  for (const place of headerMaps(incoming)) {
    const names = Object.keys(place.headers).filter((name) => place.headers[name] === MASKED_VALUE);
    if (names.length === 0) continue;
    const before = storedHeaders(stored, incoming, place);
    const headers = { ...place.headers };
    for (const name of names) {
      const storedName = before && (name in before ? name : Object.keys(before).find((candidate) => candidate.toLowerCase() === name.toLowerCase()));
      if (storedName !== undefined && before && typeof before[storedName] === 'string') headers[name] = before[storedName];
      else
        problems.push({
          path: [...place.path, name],
          message: `is ${MASKED_VALUE}, which stands for the value stored, and this monitor has none stored under this name: send the value itself`,
        });
    }
    value = replaced(value, place.path, headers);
  }
  return { value, problems };
}

/**
 * `current` (a monitor as a server answered it) with each masked header value taken from
 * `desired` where it has a header of that name at the same place: what the server hides cannot
 * be compared, and is taken to be what the files say, so that it is neither reported as a
 * change nor sent back masked.
 */
export function assumeMaskedValues<T>(current: T, desired: unknown): T {
  let value = current;
  for (const place of headerMaps(current)) {
    const names = Object.keys(place.headers).filter((name) => place.headers[name] === MASKED_VALUE);
    if (names.length === 0) continue;
    const wanted = storedHeaders(desired, current, place);
    if (!wanted) continue;
    const headers = { ...place.headers };
    for (const name of names) if (typeof wanted[name] === 'string') headers[name] = wanted[name];
    value = replaced(value, place.path, headers);
  }
  return value;
}
