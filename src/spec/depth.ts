/** Nesting depth of parsed JSON or YAML values, measured without recursion. */

/**
 * The path of the first value nested deeper than `maxDepth` levels of objects and arrays (the
 * top-level value is level 1), or undefined when none is.
 */
export function pathBeyondDepth(value: unknown, maxDepth: number): (string | number)[] | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (path.length >= maxDepth) return path;
    const entries: [string | number, unknown][] = Array.isArray(current) ? current.map((item, index) => [index, item]) : Object.entries(current);
    for (const [key, item] of entries) if (item !== null && typeof item === 'object') stack.push({ value: item, path: [...path, key] });
  }
  return undefined;
}
