/**
 * The Node.js versions webwatch claims (`engines.node`) are ones every package it installs
 * claims too: otherwise `npm ci` or `npm install webwatch` warns EBADENGINE on a Node we say
 * we support, and that package may use what that Node lacks. The lockfile is what `npm ci`
 * installs, and records each package's `engines`. CI runs the tests on each claimed line.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { rangeAdmits, rangeWithin, versionsOf } from '../helpers/node-range.js';

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
    if (range !== undefined && !rangeWithin(claimed, range)) found.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} (${range})`);
  }
  return found.sort();
}

describe('the Node.js versions webwatch claims', () => {
  it('are claimed by every runtime dependency, so that installing webwatch warns on none of them', () => {
    assert.deepEqual(refusing(CLAIMED, 'runtime'), [], `engines.node is "${CLAIMED}"; these runtime packages do not claim all of it`);
  });

  it('are claimed by every development dependency, so that npm ci in a checkout warns on none of them', () => {
    assert.deepEqual(refusing(CLAIMED, 'dev'), [], `engines.node is "${CLAIMED}"; these development packages do not claim all of it`);
  });

  it('are the lockfile\'s too (npm ci compares the two)', () => {
    assert.deepEqual(LOCK.packages['']?.engines, PACKAGE.engines);
  });

  it('are tested: CI runs the tests on each claimed major line', () => {
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    const listed = /^NODE_LINES="([\d ]+)"$/m.exec(ci)?.[1]?.split(' ').map(Number);
    assert.ok(listed, '.ci/run sets NODE_LINES="22 24 ..."');
    const claimedMajors = versionsOf(CLAIMED).flatMap(({ from, to }) => {
      assert.ok(Number.isFinite(to[0]), `engines.node "${CLAIMED}" has no upper bound: a Node no one has tested would be claimed`);
      return Array.from({ length: (to[1] === 0 && to[2] === 0 ? to[0] : to[0] + 1) - from[0] }, (_, index) => from[0] + index);
    });
    assert.deepEqual(listed, claimedMajors);
  });
});

describe('reading engines ranges', () => {
  it('finds a range within another, as npm\'s semver would', () => {
    assert.ok(rangeWithin('^22.13.0 || ^24.0.0 || ^26.0.0', '>=23.5.0 || ^22.13.0 || ^20.17.0'));
    assert.ok(rangeWithin('^22.13.0 || ^24.0.0 || ^26.0.0', '20.x || 22.x || 23.x || 24.x || 25.x || 26.x'));
    assert.ok(rangeWithin('^22.13.0 || ^24.0.0', '^22||^24||>=26'));
    assert.ok(rangeWithin('^22.13.0', '>= 22.*'));
    assert.ok(rangeWithin('^22.13.0', '10.* || >= 12.*'));
    assert.ok(rangeWithin('^22.0.0', '*'));
    assert.ok(rangeWithin('~22.13.1', '>=22.12 <22.14'));
    assert.ok(rangeWithin('22.13.0 - 22.20', '^22.13.0'));
  });

  it('finds where it is not', () => {
    // The claim this package made before: Node 20, which kysely and cookie no longer claim.
    assert.equal(rangeWithin('>=20', '>=22.0.0'), false);
    assert.equal(rangeWithin('^22.0.0', '^22.13.0'), false);
    // An open range takes in Node 27, which better-sqlite3 does not claim.
    assert.equal(rangeWithin('^22.13.0 || >=24', '20.x || 22.x || 23.x || 24.x || 25.x || 26.x'), false);
    // Node 23 and 25 lie in >=22 but not in ^22||^24||>=26.
    assert.equal(rangeWithin('>=22', '^22||^24||>=26'), false);
    assert.equal(rangeWithin('^0.2.0', '^0.2.3'), false);
    assert.equal(rangeWithin('^24', '~24.1'), false);
  });

  it('admits single versions as npm does', () => {
    const lts = '^22.13.0 || ^24.0.0 || ^26.0.0';
    for (const version of ['22.13.0', '22.23.3', '24.21.0', '26.10.0']) assert.ok(rangeAdmits(lts, version), version);
    for (const version of ['20.20.2', '22.12.0', '23.11.0', '25.9.0', '27.0.0']) assert.equal(rangeAdmits(lts, version), false, version);
  });

  it('refuses a range it cannot read rather than passing it', () => {
    assert.throws(() => versionsOf('>=22.0.0-rc.1'), /cannot read the version "22.0.0-rc.1" in the range ">=22.0.0-rc.1"/);
    assert.throws(() => versionsOf('node 22'), /cannot read the version "node"/);
  });
});
