/** The real terminal's Io: what it costs a command that never reads its input. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { processIo } from '../../src/ui/io.js';

it('makes process.stdin only when a command asks whether it is a terminal', () => {
  const original = Object.getOwnPropertyDescriptor(process, 'stdin')!;
  let made = 0;
  Object.defineProperty(process, 'stdin', {
    configurable: true,
    enumerable: true,
    get() {
      made += 1;
      return original.get!.call(process);
    },
  });
  try {
    const io = processIo();
    assert.equal(made, 0, 'processIo() made process.stdin');
    assert.equal(io.stdinIsTTY, Boolean(original.get!.call(process).isTTY));
    assert.equal(made, 1);
  } finally {
    Object.defineProperty(process, 'stdin', original);
  }
});
