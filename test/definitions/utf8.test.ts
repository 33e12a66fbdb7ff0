/** Strict UTF-8: the first invalid byte found where the native decoder refuses, and placed. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeUtf8, firstInvalidUtf8Byte } from '../../src/lib/utf8.js';

const bytes = (...values: number[]) => Uint8Array.from(values);

describe('strict UTF-8', () => {
  it('points at the lead byte of each kind of ill-formed sequence', () => {
    assert.equal(firstInvalidUtf8Byte(bytes(0x61, 0x80)), 1); // lone continuation byte
    assert.equal(firstInvalidUtf8Byte(bytes(0x61, 0xc0, 0xaf)), 1); // overlong "/"
    assert.equal(firstInvalidUtf8Byte(bytes(0xe0, 0x80, 0xaf)), 0); // overlong, three bytes
    assert.equal(firstInvalidUtf8Byte(bytes(0xed, 0xa0, 0x80)), 0); // UTF-16 surrogate
    assert.equal(firstInvalidUtf8Byte(bytes(0xf4, 0x90, 0x80, 0x80)), 0); // above U+10FFFF
    assert.equal(firstInvalidUtf8Byte(bytes(0x61, 0xe2, 0x82)), 1); // cut short by the end
    assert.equal(firstInvalidUtf8Byte(bytes(0xe2, 0x28, 0xa1)), 0); // continuation missing
    assert.equal(firstInvalidUtf8Byte(bytes(0xff)), 0);
    assert.equal(firstInvalidUtf8Byte(new TextEncoder().encode('é €😀 plain')), -1);
  });

  it('agrees with the native decoder on random bytes', () => {
    const fatal = new TextDecoder('utf-8', { fatal: true });
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    for (let round = 0; round < 3000; round++) {
      // Mostly valid text with a few random bytes, so that failures fall at varied places.
      const text = new TextEncoder().encode(`ab é€😀 ${round}`);
      const sample = Uint8Array.from([...text, ...Array.from({ length: random() % 4 }, random), ...text]);
      const offset = firstInvalidUtf8Byte(sample);
      let valid = true;
      try {
        fatal.decode(sample);
      } catch {
        valid = false;
      }
      assert.equal(offset === -1, valid, `bytes ${Buffer.from(sample).toString('hex')}`);
      // Everything before the reported byte is well-formed.
      if (!valid) assert.doesNotThrow(() => fatal.decode(sample.subarray(0, offset)));
    }
  });

  it('gives the line and the column of the bad byte, and drops a byte order mark', () => {
    const text = Buffer.concat([Buffer.from('name: a\ngoal: "€ '), bytes(0xff), Buffer.from('"\n')]);
    assert.deepEqual(decodeUtf8(text), { ok: false, message: 'invalid UTF-8 at byte 19 (line 2, column 10)', line: 2, column: 10 });
    assert.deepEqual(decodeUtf8(bytes(0x80)), { ok: false, message: 'invalid UTF-8 at byte 0 (line 1, column 1)', line: 1, column: 1 });
    assert.deepEqual(decodeUtf8(Buffer.from('\ufeffname: a\n')), { ok: true, text: 'name: a\n' });
  });
});
