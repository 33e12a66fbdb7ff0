import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Slots, SlotsTimedOut } from '../../src/lib/slots.js';

describe('slots', () => {
  it('gives its slots at once, then in the order asked for as they come back', async () => {
    const slots = new Slots(2);
    const far = Date.now() + 60_000;
    const first = await slots.take(far);
    const second = await slots.take(far);
    const order: string[] = [];
    const third = slots.take(far).then((release) => (order.push('third'), release));
    const fourth = slots.take(far).then((release) => (order.push('fourth'), release));
    assert.equal(slots.waiting, 2);
    second();
    second(); // A second release of the same slot gives nothing more.
    (await third)();
    first();
    (await fourth)();
    assert.deepEqual(order, ['third', 'fourth']);
    assert.equal(slots.waiting, 0);
    // All back: both can be taken again without waiting.
    await slots.take(far);
    await slots.take(far);
    assert.equal(slots.waiting, 0);
  });

  it('lets a waiter go at its deadline or when aborted, and the line moves on without it', async () => {
    const slots = new Slots(1);
    const held = await slots.take(Date.now() + 60_000);
    await assert.rejects(slots.take(Date.now() + 20), SlotsTimedOut);
    await assert.rejects(slots.take(Date.now() - 1), SlotsTimedOut);
    const controller = new AbortController();
    const aborted = slots.take(Date.now() + 60_000, controller.signal);
    const after = slots.take(Date.now() + 60_000);
    controller.abort(new Error('stopped'));
    await assert.rejects(aborted, /stopped/);
    held();
    const release = await after;
    assert.equal(slots.waiting, 0);
    release();
  });
});
