/**
 * The Node.js versions webwatch claims (`engines.node`) are ones every package it installs
 * claims too: otherwise `npm ci` or `npm install webwatch` warns EBADENGINE on a Node we say
 * we support, and that package may use what that Node lacks. The lockfile is what `npm ci`
 * installs, and records each package's `engines`. CI runs the tests on each claimed line.
 * Ranges are read by semver, the package npm itself reads them with.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import semver from 'semver';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
type Locked = { version?: string; dev?: boolean; engines?: Record<string, string> | string[] };
const LOCK = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, Locked> };
const CLAIMED = PACKAGE.engines.node;

/** The locked packages whose Node.js range does not hold all of `claimed`, as "name@version (range)". */
function refusing(claimed: string, which: 'runtime' | 'dev'): string[] {
  const found: string[] = [];
  for (const [path, entry] of Object.entries(LOCK.packages)) {
    if (path === '' || Boolean(entry.dev) !== (which === 'dev')) continue;
    // Some old packages write engines as an array of strings, which npm ignores.
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (range !== undefined && !semver.subset(claimed, range)) found.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} (${range})`);
  }
  return found.sort();
}

/** The major lines a range takes in, up to Node 99. */
const majorsOf = (range: string) => Array.from({ length: 100 }, (_, major) => major).filter((major) => semver.intersects(range, `${major}.x`));

describe('the Node.js versions webwatch claims', () => {
  it('are claimed by every runtime dependency, so that installing webwatch warns on none of them', () => {
    assert.deepEqual(refusing(CLAIMED, 'runtime'), [], `engines.node is "${CLAIMED}"; these runtime packages do not claim all of it`);
  });

  it('are claimed by every development dependency, so that npm ci in a checkout warns on none of them', () => {
    assert.deepEqual(refusing(CLAIMED, 'dev'), [], `engines.node is "${CLAIMED}"; these development packages do not claim all of it`);
  });

  it("are the lockfile's too (npm ci compares the two)", () => {
    assert.deepEqual(LOCK.packages['']?.engines, PACKAGE.engines);
  });

  it('have an upper bound: a Node no one has tested is not claimed', () => {
    assert.equal(semver.intersects(CLAIMED, '>=100.0.0'), false);
  });

  it('are tested: CI runs the whole suite on one claimed line and the version-sensitive tests on each other', () => {
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    const main = /^MAIN_NODE=(\d+)$/m.exec(ci)?.[1];
    const others = /^OTHER_NODE_LINES="([\d ]+)"$/m.exec(ci)?.[1]?.split(' ');
    assert.ok(main && others, '.ci/run sets MAIN_NODE=24 and OTHER_NODE_LINES="22 26"');
    assert.deepEqual(
      [Number(main), ...others.map(Number)].sort((a, b) => a - b),
      majorsOf(CLAIMED),
    );
    // The README's test command is what CI runs, on that line.
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    assert.ok(readme.includes(`npx -y -p node@${main} -c 'npm ci && npm test'`), 'the README gives the test command CI runs');
    assert.ok(ci.includes(`npx -y -p "node@$MAIN_NODE" -c 'npm ci && npm test'`), ".ci/run runs the README's test command");
  });

  it('hold the Node-API that the SQLite module needs (22.14 and later), and not Node 20', () => {
    for (const version of ['22.14.0', '22.23.5', '24.0.0', '24.22.3', '26.0.0', '26.12.1']) assert.ok(semver.satisfies(version, CLAIMED), version);
    for (const version of ['20.20.2', '22.13.1', '23.11.0', '25.9.0', '27.0.0']) assert.equal(semver.satisfies(version, CLAIMED), false, version);
  });
});
