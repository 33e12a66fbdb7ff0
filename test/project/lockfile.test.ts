/**
 * `npm ci` takes the lockfile only when it names every optional dependency of every locked
 * package, the platform packages of other machines included: this checks it does.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const lock = JSON.parse(readFileSync(new URL('../../../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { optionalDependencies?: Record<string, string>; version?: string }>;
};

describe('the lockfile', () => {
  it('lists every optional dependency of each package, so that npm ci accepts it', () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
        // npm looks for a dependency next to its dependent first, then up the tree.
        const candidates = [`${path ? `${path}/` : ''}node_modules/${name}`, `node_modules/${name}`];
        const found = candidates.map((candidate) => lock.packages[candidate]).find(Boolean);
        if (!found) missing.push(`${name}@${range} (of ${path || 'webwatch'})`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
