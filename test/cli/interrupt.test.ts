/**
 * Ctrl-C in a command that cleans up first: the first press aborts its signal, the second hands
 * SIGINT back to the handler before it (the launcher's, which exits 130) and raises it again;
 * nothing here exits the process itself.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { interruptible } from '../../src/cli/interrupt.js';

describe('interruptible', () => {
  it('aborts on the first press and gives the second to the handler before it', async () => {
    const seen: string[] = [];
    const earlier = () => seen.push('earlier');
    process.on('SIGINT', earlier);
    try {
      const { signal } = interruptible();
      assert.deepEqual(process.listeners('SIGINT').includes(earlier), false, 'the command holds SIGINT alone');
      process.emit('SIGINT', 'SIGINT');
      assert.equal(signal.aborted, true);
      assert.deepEqual(seen, [], "the first press is the command's");
      process.emit('SIGINT', 'SIGINT');
      // Raised again with process.kill: delivered on a later turn of the event loop.
      for (let i = 0; i < 200 && seen.length === 0; i++) await sleep(10);
      assert.deepEqual(seen, ['earlier']);
      assert.deepEqual(process.listeners('SIGINT'), [earlier]);
    } finally {
      process.removeListener('SIGINT', earlier);
    }
  });

  it('gives SIGINT back untouched when disposed', () => {
    const earlier = () => undefined;
    process.on('SIGINT', earlier);
    try {
      const { dispose } = interruptible();
      dispose();
      dispose();
      assert.deepEqual(process.listeners('SIGINT'), [earlier]);
    } finally {
      process.removeListener('SIGINT', earlier);
    }
  });
});
