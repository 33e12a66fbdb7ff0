/** Uploaded images read by OCR: checked by their own header first, their text as paragraphs. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { imageSize, imageTextAvailable, imageTextHtml, MAX_IMAGE_PIXELS, paragraphsHtml } from '../../../src/engine/documents/image-text.js';
import { documentToolsMissing, scannedText } from '../../helpers/documents.js';

/** A PNG header declaring a size, with no pixels after it: what a decompression bomb shows first. */
function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  const chunk = Buffer.concat([Buffer.from('IHDR'), ihdr]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(13);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(chunk));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), length, chunk, crc]);
}

describe('the text of an image', () => {
  it('knows a PNG and a JPEG by their headers, with their sizes, and nothing else', () => {
    assert.deepEqual(imageSize(pngHeader(640, 480)), { format: 'png', width: 640, height: 480 });
    // A JPEG: start of image, an APP0 segment, then a baseline frame of 300 x 200.
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0xc8, 0x01, 0x2c, 0x01, 0x01, 0x11, 0x00]);
    assert.deepEqual(imageSize(jpeg), { format: 'jpeg', width: 300, height: 200 });
    assert.equal(imageSize(Buffer.from('image-data')), undefined);
    assert.equal(imageSize(Buffer.from([0xff, 0xd8, 0x00, 0x01])), undefined);
  });

  it('refuses bytes that are no image, and an image too large to read, before OCR', async () => {
    const deadline = Date.now() + 30_000;
    await assert.rejects(imageTextHtml(Buffer.from('image-data'), { deadline }), { code: 'DOCUMENT_UNREADABLE', message: /no PNG or JPEG/ });
    const side = Math.ceil(Math.sqrt(MAX_IMAGE_PIXELS)) + 1;
    await assert.rejects(imageTextHtml(pngHeader(side, side), { deadline }), { code: 'DOCUMENT_UNREADABLE', message: /megapixels/ });
    await assert.rejects(imageTextHtml(pngHeader(0, 10), { deadline }), { message: /no width or height/ });
  });

  it('writes the text as paragraphs: lines joined, a broken word whole, markup as text', () => {
    assert.equal(
      paragraphsHtml('Quarterly price\nlist for inter-\nnational tea\n\n<b>Green</b> & black\n\f'),
      '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><p>Quarterly price list for international tea</p><p>&lt;b&gt;Green&lt;/b&gt; &amp; black</p></body></html>',
    );
  });

  it('reads the text of a scanned page, PNG or JPEG', { skip: documentToolsMissing ?? (imageTextAvailable() ? undefined : 'no tesseract-ocr') }, async () => {
    for (const format of ['png', 'jpeg'] as const) {
      const html = await imageTextHtml(scannedText(['Quarterly price list', 'Green tea costs four euros.'], format), { deadline: Date.now() + 60_000 });
      assert.match(html, /<p>Quarterly price list<\/p><p>Green tea costs four euros\.<\/p>/, format);
    }
  });

  it('fails at its deadline instead of waiting for OCR', { skip: imageTextAvailable() ? undefined : 'no tesseract-ocr' }, async () => {
    await assert.rejects(imageTextHtml(pngHeader(100, 100), { deadline: Date.now() - 1 }), { code: 'DOCUMENT_UNREADABLE' });
  });
});
