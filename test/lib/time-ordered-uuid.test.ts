/** Version 7 UUIDs: the scrape ids that serve's document store indexes in the order they come. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { timeOrderedUuid } from '../../src/lib/time-ordered-uuid.js';

describe('timeOrderedUuid', () => {
  it('is a version 7, variant 10 UUID whose first 48 bits are the time in milliseconds', () => {
    const at = Date.UTC(2026, 10, 25, 9, 30, 0, 123);
    const id = timeOrderedUuid(at);
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(parseInt(id.replace(/-/g, '').slice(0, 12), 16), at);
  });

  it('sorts by time, and is unique across more ids than one fetch of random bytes holds', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => timeOrderedUuid(1_700_000_000_000 + Math.floor(i / 10)));
    assert.equal(new Set(ids).size, ids.length);
    for (let i = 10; i < ids.length; i += 10) assert.ok(ids[i - 10]! < ids[i]!, `${ids[i - 10]} before ${ids[i]}`);
  });
});
