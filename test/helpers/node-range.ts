/**
 * Node.js version ranges as `engines` fields write them (npm's semver syntax, release versions
 * only), read as sets of versions so that one range can be checked to lie within another.
 * A range this does not understand is an error, never a pass.
 */

/** [major, minor, patch]; Infinity as major stands for "no upper bound". */
type Version = readonly [number, number, number];
/** Versions v with from <= v < to. */
type Interval = { from: Version; to: Version };

const UNBOUNDED: Version = [Infinity, 0, 0];
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** A version with some parts left out or written as x, X or *: how many parts it gives, and them. */
function partial(text: string, range: string): { parts: number; version: Version } {
  const match = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?$/.exec(text);
  if (!match) throw new Error(`cannot read the version "${text}" in the range "${range}"`);
  const given = match.slice(1, 4).filter((part) => part !== undefined);
  const wildcard = given.findIndex((part) => /^[xX*]$/.test(part));
  const parts = wildcard === -1 ? given.length : wildcard;
  const numbers = given.slice(0, parts).map(Number);
  return { parts, version: [numbers[0] ?? 0, numbers[1] ?? 0, numbers[2] ?? 0] };
}

/** The first version after every version that matches the partial one (1.2 -> 1.3.0). */
function after({ parts, version: [major, minor, patch] }: { parts: number; version: Version }): Version {
  if (parts === 0) return UNBOUNDED;
  if (parts === 1) return [major + 1, 0, 0];
  if (parts === 2) return [major, minor + 1, 0];
  return [major, minor, patch + 1];
}

function comparator(text: string, range: string): Interval {
  const match = /^(>=|<=|>|<|=|\^|~)?(.*)$/.exec(text)!;
  const operator = match[1] ?? '=';
  const version = partial(match[2]!, range);
  const [major, minor] = version.version;
  switch (operator) {
    case '>=':
      return { from: version.version, to: UNBOUNDED };
    case '>':
      return { from: after(version), to: UNBOUNDED };
    case '<':
      return { from: [0, 0, 0], to: version.version };
    case '<=':
      return { from: [0, 0, 0], to: after(version) };
    case '~':
      return { from: version.version, to: after({ parts: Math.min(version.parts, 2), version: version.version }) };
    case '^': {
      // Up to the next change of the first non-zero part among those given.
      const fixed = major !== 0 || version.parts === 1 ? 1 : minor !== 0 || version.parts === 2 ? 2 : 3;
      return { from: version.version, to: after({ parts: Math.min(version.parts, fixed), version: version.version }) };
    }
    default:
      return { from: version.version, to: after(version) };
  }
}

function intersect(a: Interval, b: Interval): Interval {
  return { from: compare(a.from, b.from) >= 0 ? a.from : b.from, to: compare(a.to, b.to) <= 0 ? a.to : b.to };
}

/** The range as disjoint, ordered intervals. */
export function versionsOf(range: string): Interval[] {
  const intervals: Interval[] = [];
  for (const set of range.split('||')) {
    // ">= 18" is ">=18"; "1.2 - 2" is a hyphen range.
    const words = set.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1').split(/\s+/).filter(Boolean);
    let interval: Interval = { from: [0, 0, 0], to: UNBOUNDED };
    if (words.length === 3 && words[1] === '-') {
      interval = { from: partial(words[0]!, range).version, to: after(partial(words[2]!, range)) };
    } else {
      for (const word of words) interval = intersect(interval, comparator(word, range));
    }
    if (compare(interval.from, interval.to) < 0) intervals.push(interval);
  }
  intervals.sort((a, b) => compare(a.from, b.from));
  const merged: Interval[] = [];
  for (const interval of intervals) {
    const last = merged.at(-1);
    if (last && compare(interval.from, last.to) <= 0) {
      if (compare(interval.to, last.to) > 0) merged[merged.length - 1] = { from: last.from, to: interval.to };
    } else merged.push(interval);
  }
  return merged;
}

/** Whether every version that `inner` admits is admitted by `outer`. */
export function rangeWithin(inner: string, outer: string): boolean {
  const allowed = versionsOf(outer);
  return versionsOf(inner).every((part) => allowed.some((whole) => compare(whole.from, part.from) <= 0 && compare(part.to, whole.to) <= 0));
}

/** Whether the range admits this version (as `process.versions.node` writes it). */
export function rangeAdmits(range: string, version: string): boolean {
  return rangeWithin(`=${version}`, range);
}
