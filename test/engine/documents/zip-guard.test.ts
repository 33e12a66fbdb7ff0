/** The archive of a DOCX, XLSX, ODT or ODS is checked before anything inflates it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkZip, ZIP_LIMITS } from '../../../src/engine/documents/zip-guard.js';
import { minimalDocx, zip } from '../../helpers/zip.js';

describe('checkZip', () => {
  it("lists an ordinary document's entries with their sizes", async () => {
    const entries = await checkZip(minimalDocx('hello'));
    assert.deepEqual(
      entries.map((entry) => entry.name),
      ['[Content_Types].xml', '_rels/.rels', 'word/document.xml'],
    );
    assert.ok(entries.every((entry) => entry.uncompressedSize > 0 && entry.compressedSize > 0));
  });

  it('refuses a ZIP bomb by its ratio, without inflating it', async () => {
    // 64 MiB of one byte deflates to some 64 KiB: a thousand times.
    const bomb = minimalDocx('x', [{ name: 'word/media/bomb.xml', data: Buffer.alloc(64 * 1024 * 1024, 0x61) }]);
    assert.ok(bomb.length < 200 * 1024);
    await assert.rejects(checkZip(bomb), { code: 'DOCUMENT_UNREADABLE', message: /word\/media\/bomb\.xml" inflates \d+ times, over the limit of 200/ });
  });

  it('refuses an archive that declares more bytes in all than the limit, or too many entries', async () => {
    const lying = minimalDocx('x', [{ name: 'word/big.xml', data: 'small', declaredSize: 0xffff_fff0 }]);
    await assert.rejects(checkZip(lying, { ...ZIP_LIMITS, maxRatio: Number.POSITIVE_INFINITY }), { message: /inflates to more than 1024 MiB/ });
    const many = zip(Array.from({ length: 30 }, (_, index) => ({ name: `e${index}.xml`, data: '<a/>' })));
    await assert.rejects(checkZip(many, { ...ZIP_LIMITS, maxEntries: 20 }), { message: /30 entries, over the limit of 20/ });
  });

  it('refuses a truncated archive or one that is no ZIP, with a clear error', async () => {
    const whole = minimalDocx('hello');
    await assert.rejects(checkZip(whole.subarray(0, whole.length - 40)), { code: 'DOCUMENT_UNREADABLE', message: /not a readable ZIP archive.*truncated/ });
    await assert.rejects(checkZip(Buffer.from('PK\x03\x04 not really')), { code: 'DOCUMENT_UNREADABLE' });
  });
});
