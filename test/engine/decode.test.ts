/** UTF-8 decoding gives the string Node's own decoder gives, whichever path it takes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeBody } from '../../src/engine/fetch/decode.js';

describe('decodeBody, UTF-8', () => {
  it('decodes ASCII, Latin-1, other scripts and astral characters as Node does, dropping a BOM', () => {
    const texts = ['', 'plain ASCII <p>page</p>', 'café über naïve', '— “quotes” 漢字 кириллица', '🙂 emoji 𝔘𝔫𝔦', '\ufeffafter a BOM é', '\ufeff'];
    for (const text of texts) {
      const bytes = Buffer.from(text, 'utf8');
      const expected = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
      assert.equal(decodeBody(bytes, 'text/html; charset=utf-8', true).text, expected);
      assert.equal(decodeBody(bytes, 'text/plain', false).text, expected);
      // Undeclared HTML that is valid UTF-8 is read as UTF-8.
      assert.equal(decodeBody(bytes, 'text/html', true).text, expected);
    }
  });

  it('replaces invalid sequences in declared UTF-8 the way Node does', () => {
    const bytes = Buffer.concat([Buffer.from('ok é '), Buffer.from([0xc3, 0x28, 0xff, 0xe2, 0x82]), Buffer.from(' 漢')]);
    assert.equal(decodeBody(bytes, 'text/html; charset=utf-8', true).text, bytes.toString('utf8'));
    assert.ok(decodeBody(bytes, 'text/html; charset=utf-8', true).text.includes('\ufffd'));
  });
});
