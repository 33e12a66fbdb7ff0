/** Orderings that do not depend on the machine's locale (and build no ICU collator). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareFileNames, compareText } from '../../src/lib/compare-text.js';

describe('compareText', () => {
  it('orders by code units: ISO timestamps by time, capitals before small letters', () => {
    const stamps = ['2026-11-29T08:00:00.000Z', '2026-01-02T00:00:00.000Z', '2026-11-29T07:59:59.999Z'];
    assert.deepEqual([...stamps].sort(compareText), ['2026-01-02T00:00:00.000Z', '2026-11-29T07:59:59.999Z', '2026-11-29T08:00:00.000Z']);
    assert.deepEqual(['b', 'B', 'a', 'a'].sort(compareText), ['B', 'a', 'a', 'b']);
    assert.equal(compareText('x', 'x'), 0);
  });
});

describe('compareFileNames', () => {
  it('orders case-blind first, then by code units, so that the order is total', () => {
    assert.deepEqual(['c.yml', 'b.yaml', 'A.yaml', 'a.yaml', 'B.yaml'].sort(compareFileNames), ['A.yaml', 'a.yaml', 'B.yaml', 'b.yaml', 'c.yml']);
  });
});
