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

describe('decodeBody, a charset declared late', () => {
  it('reads a page in the <meta charset> that comes after the first 1,024 bytes, and windows-1252 without one', () => {
    const banner = `<script>${'/* an archive banner */ '.repeat(60)}</script>`;
    // 汉字 in GB2312 is BA BA D7 D6.
    const body = Buffer.concat([
      Buffer.from(`<html><head>${banner}<meta http-equiv="Content-Type" content="text/html; charset=gb2312"><title>`),
      Buffer.from([0xba, 0xba, 0xd7, 0xd6]),
      Buffer.from('</title></head></html>'),
    ]);
    assert.ok(body.indexOf('charset=gb2312') > 1024);
    assert.match(decodeBody(body, 'text/html', true).text, /<title>汉字<\/title>/);
    const latin = Buffer.concat([Buffer.from(`<html><head>${banner}<title>caf`), Buffer.from([0xe9, 0x80]), Buffer.from('</title></head></html>')]);
    assert.match(decodeBody(latin, 'text/html', true).text, /<title>café€<\/title>/);
  });
});
