/** When a check prunes its monitor's history: at the first check, then at the first of each hour. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { pruneDue } from '../../src/engine/monitors/run-check.js';

it('prunes at a monitor first check, not again within the hour of its last, and at the first check of a new hour', () => {
  assert.equal(pruneDue(null, new Date('2026-12-01T10:05:00Z')), true, 'a first check');
  assert.equal(pruneDue('2026-12-01T10:00:00.000Z', new Date('2026-12-01T10:55:00Z')), false, 'the same hour');
  assert.equal(pruneDue('2026-12-01T10:55:00.000Z', new Date('2026-12-01T11:00:00Z')), true, 'the next hour');
  assert.equal(pruneDue('2026-11-20T10:00:00.000Z', new Date('2026-12-01T10:00:00Z')), true, 'days later, at the same hour of the clock');
});
