/** The fair pick of waiting work: the least loaded party first, oldest first within it, and caps. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capPerParty, countByParty, pickFairly } from '../../src/lib/fair-share.js';

const item = (party: string, n: number) => ({ party, name: `${party}${n}` });
const names = (items: { name: string }[]) => items.map((one) => one.name).join(' ');
const partyOf = (one: { party: string; name: string }) => one.party;

describe('pickFairly', () => {
  it('gives the one item of a party that came last before the twenty-first of another', () => {
    const waiting = [...Array.from({ length: 20 }, (_, i) => item('a', i)), item('b', 0)];
    const picked = pickFairly(waiting, { room: 3, capPerParty: 20, partyOf, runningHere: new Map(), runningEverywhere: new Map([['a', 20]]) });
    assert.equal(names(picked), 'b0 a0 a1');
  });

  it('alternates between parties with equal loads, oldest first', () => {
    const waiting = [item('a', 0), item('a', 1), item('a', 2), item('b', 0), item('b', 1)];
    assert.equal(names(pickFairly(waiting, { room: 5, capPerParty: 5, partyOf, runningHere: new Map() })), 'a0 b0 a1 b1 a2');
  });

  it('counts what a party runs in other processes for the order, but only its own slots here for the cap', () => {
    const waiting = [item('a', 0), item('b', 0), item('b', 1)];
    const everywhere = new Map([
      ['a', 6],
      ['b', 1],
    ]);
    const picked = pickFairly(waiting, { room: 3, capPerParty: 2, partyOf, runningHere: new Map([['b', 1]]), runningEverywhere: everywhere });
    assert.equal(names(picked), 'b0 a0', 'b is less loaded everywhere, then at its cap of 2 here');
  });

  it('leaves slots free rather than pass a cap, and picks nothing without room', () => {
    const waiting = Array.from({ length: 10 }, (_, i) => item('a', i));
    assert.equal(pickFairly(waiting, { room: 10, capPerParty: 3, partyOf, runningHere: new Map([['a', 1]]) }).length, 2);
    assert.deepEqual(pickFairly(waiting, { room: 0, capPerParty: 3, partyOf, runningHere: new Map() }), []);
  });
});

describe('capPerParty', () => {
  it('keeps a quarter of the slots back when parties share them, none for a lone party, and always allows one', () => {
    assert.deepEqual([capPerParty(20, 1), capPerParty(20, 2), capPerParty(8, 2), capPerParty(3, 2), capPerParty(1, 5)], [20, 15, 6, 3, 1]);
  });
});

describe('countByParty', () => {
  it('counts items by party', () => {
    assert.deepEqual(
      [...countByParty([item('a', 0), item('b', 0), item('a', 1)], partyOf)],
      [
        ['a', 2],
        ['b', 1],
      ],
    );
  });
});
