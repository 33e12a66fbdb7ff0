/** The one bounded worker pool: results in order, never more than the limit at once, a signal stops new work. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inParallel } from '../../src/lib/in-parallel.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('inParallel', () => {
  it('keeps the order of the items, whatever order they finish in, and at most `limit` run at once', async () => {
    let running = 0;
    let most = 0;
    const results = await inParallel([30, 5, 20, 1, 10, 2], 3, async (ms, index) => {
      most = Math.max(most, ++running);
      await tick(ms);
      running--;
      return `${index}:${ms}`;
    });
    assert.deepEqual(results, ['0:30', '1:5', '2:20', '3:1', '4:10', '5:2']);
    assert.equal(most, 3);
  });

  it('starts nothing new once the signal has aborted; what runs finishes', async () => {
    const controller = new AbortController();
    const started: number[] = [];
    const results = await inParallel(
      [0, 1, 2, 3, 4, 5],
      2,
      async (item) => {
        started.push(item);
        if (item === 1) controller.abort();
        await tick(5);
        return item;
      },
      controller.signal,
    );
    assert.deepEqual(started, [0, 1]);
    assert.deepEqual(results.slice(0, 2), [0, 1]);
    assert.equal(results.length, 6);
    assert.equal(results[2], undefined);
  });

  it('handles no items and a limit larger than the items', async () => {
    assert.deepEqual(await inParallel([], 4, async () => 1), []);
    assert.deepEqual(await inParallel([1, 2], 10, async (n) => n * 2), [2, 4]);
  });

  it('rejects with the first failure', async () => {
    await assert.rejects(
      inParallel([1, 2, 3], 2, async (n) => {
        if (n === 2) throw new Error('two failed');
        return n;
      }),
      /two failed/,
    );
  });
});
