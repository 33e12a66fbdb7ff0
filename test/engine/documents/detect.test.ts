/** Which document a response is: by its bytes first, by its label and name only where the bytes cannot tell. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claimsDocument, detectDocument, extensionOf } from '../../../src/engine/documents/detect.js';
import { minimalDocx, minimalOdf, zip } from '../../helpers/zip.js';

const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const ole2With = (stream: string) => Buffer.concat([OLE2, Buffer.alloc(504), Buffer.from(stream, 'utf16le'), Buffer.alloc(64)]);
const xlsx = zip([
  { name: '[Content_Types].xml', data: '<Types/>' },
  { name: 'xl/workbook.xml', data: '<workbook/>' },
]);

describe('detectDocument', () => {
  it('knows each format by its bytes, whatever it is called', () => {
    const cases: [Buffer, string][] = [
      [minimalDocx('hello'), 'docx'],
      [xlsx, 'xlsx'],
      [minimalOdf('text'), 'odt'],
      [minimalOdf('spreadsheet'), 'ods'],
      [Buffer.from('{\\rtf1\\ansi Hello}'), 'rtf'],
      [ole2With('WordDocument'), 'doc'],
      [ole2With('Workbook'), 'xls'],
    ];
    for (const [body, kind] of cases) {
      assert.equal(detectDocument('application/octet-stream', body, 'https://a.example/download')?.kind, kind, kind);
      assert.equal(detectDocument('', body, 'report.bin')?.kind, kind, kind);
    }
  });

  it('says what the label claimed when the bytes are another format, and reads them as what they are', () => {
    assert.deepEqual(detectDocument('application/msword', minimalDocx('x'), 'https://a.example/terms.doc'), { kind: 'docx', claimed: 'doc' });
    assert.deepEqual(detectDocument('application/octet-stream', minimalOdf('text'), 'prices.xlsx'), { kind: 'odt', claimed: 'xlsx' });
  });

  it('takes no other bytes for a document, whatever the name or label says', () => {
    const html = Buffer.from('<!doctype html><title>Not a document</title>');
    assert.equal(detectDocument('text/html', html, 'https://a.example/terms.docx'), undefined);
    assert.equal(detectDocument(claimsType('docx'), html, 'terms'), undefined);
    // A ZIP that is no office document, and an OLE2 file of neither kind.
    assert.equal(detectDocument('application/zip', zip([{ name: 'a.txt', data: 'a' }]), 'a.docx'), undefined);
    assert.equal(detectDocument('application/octet-stream', ole2With('Other'), 'a.bin'), undefined);
    assert.equal(claimsDocument(claimsType('docx'), 'terms'), 'docx');
    assert.equal(claimsDocument('application/octet-stream', 'https://a.example/q3.xlsx?download=1'), 'xlsx');
    assert.equal(claimsDocument('text/html', 'https://a.example/page'), undefined);
  });

  it('takes CSV by its label, or by its name when the label says nothing', () => {
    const csv = Buffer.from('a,b\n1,2\n');
    assert.equal(detectDocument('text/csv', csv, 'https://a.example/data')?.kind, 'csv');
    assert.equal(detectDocument('text/plain', csv, 'https://a.example/data.csv')?.kind, 'csv');
    assert.equal(detectDocument('text/plain', csv, 'https://a.example/data.txt'), undefined);
    assert.equal(detectDocument('text/html', csv, 'https://a.example/data.csv'), undefined);
  });

  it('reads the extension of a URL path or a file name', () => {
    assert.equal(extensionOf('https://a.example/files/Q3.XLSX?x=1#y'), 'xlsx');
    assert.equal(extensionOf('report.final.docx'), 'docx');
    assert.equal(extensionOf('https://a.example/'), '');
    assert.equal(extensionOf('.hidden'), '');
  });
});

function claimsType(kind: 'docx'): string {
  return { docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }[kind];
}
