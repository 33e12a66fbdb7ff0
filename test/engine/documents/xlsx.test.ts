/**
 * XLSX read as it streams: sheets by name and order, values as a reader of the sheet sees them,
 * and a sheet of a million rows or a row of 16,384 columns cut at a page's limits with a
 * warning, no entity expanded, a damaged file refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readXlsx } from '../../../src/engine/documents/xlsx.js';
import { zip } from '../../helpers/zip.js';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const soon = () => ({ deadline: Date.now() + 60_000 });

/** A workbook of these sheets (name and sheetData XML, optionally a dimension), shared strings and styles. */
function xlsx(sheets: { name: string; data: string; dimension?: string; prolog?: string }[], shared?: string, styles?: string): Buffer {
  const workbook = `<?xml version="1.0"?><workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets>${sheets
    .map((sheet, index) => `<sheet name="${sheet.name}" sheetId="${index + 1}" r:id="rId${index + 1}"/>`)
    .join('')}</sheets></workbook>`;
  const rels = `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets
    .map((_, index) => `<Relationship Id="rId${index + 1}" Type="${REL}/worksheet" Target="worksheets/s${index + 1}.xml"/>`)
    .join('')}</Relationships>`;
  return zip([
    { name: '[Content_Types].xml', data: '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>' },
    { name: 'xl/workbook.xml', data: workbook },
    { name: 'xl/_rels/workbook.xml.rels', data: rels },
    ...(styles ? [{ name: 'xl/styles.xml', data: styles }] : []),
    ...(shared ? [{ name: 'xl/sharedStrings.xml', data: shared }] : []),
    ...sheets.map((sheet, index) => ({
      name: `xl/worksheets/s${index + 1}.xml`,
      data: `${sheet.prolog ?? '<?xml version="1.0"?>'}<worksheet xmlns="${MAIN}">${sheet.dimension ? `<dimension ref="${sheet.dimension}"/>` : ''}<sheetData>${sheet.data}</sheetData></worksheet>`,
    })),
  ]);
}

const inline = (reference: string, text: string) => `<c r="${reference}" t="inlineStr"><is><t>${text}</t></is></c>`;
const headerOf = (html: string) => /<thead><tr>([\s\S]*?)<\/tr><\/thead>/.exec(html)?.[1];
const bodyRows = (html: string) => [...html.matchAll(/<tbody>([\s\S]*?)<\/tbody>/g)].flatMap(([, body]) => body!.match(/<tr>[\s\S]*?<\/tr>/g) ?? []);

describe('reading an XLSX as it streams', () => {
  it('gives each sheet in order a section, its values as the sheet shows them', async () => {
    const styles = `<styleSheet xmlns="${MAIN}"><numFmts><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd hh:mm"/><numFmt numFmtId="165" formatCode="&quot;m&quot;0.00"/></numFmts><cellXfs><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="9"/><xf numFmtId="165"/><xf numFmtId="20"/></cellXfs></styleSheet>`;
    const shared = `<sst xmlns="${MAIN}"><si><t>Item</t></si><si><r><t>Green </t></r><r><t>tea</t></r><rPh><t>ruby</t></rPh></si><si><t>Value</t></si></sst>`;
    const prices = [
      `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>2</v></c><c r="D1" t="str"><v>Note</v></c></row>`,
      `<row r="2"><c r="A2" t="s"><v>1</v></c><c r="B2"><v>0.30000000000000004</v></c><c r="D2" t="b"><v>1</v></c></row>`,
      // Row 3 is missing: a blank row between.
      `<row r="4"><c r="A4" s="1"><v>46085</v></c><c r="B4" s="2"><v>46085.5</v></c><c r="C4" s="3"><v>0.125</v></c><c r="D4" t="e"><v>#DIV/0!</v></c></row>`,
      `<row r="5"><c r="A5" s="4"><v>2.5</v></c><c r="B5" s="5"><v>0.75</v></c>${inline('C5', 'inline &amp; text')}</row>`,
    ].join('');
    const book = await readXlsx(
      xlsx(
        [
          { name: 'Prices', data: prices },
          { name: 'Stock & more', data: `<row r="1">${inline('A1', 'Count')}</row><row r="2"><c r="A2"><v>40</v></c></row>` },
        ],
        shared,
        styles,
      ),
      soon(),
    );
    assert.equal(book.sheets, 2);
    assert.deepEqual(book.warnings, []);
    const [first, second] = book.html.split('\n');
    assert.match(first!, /^<h2>Prices<\/h2>/);
    assert.equal(headerOf(first!), '<th>Item</th><th>Value</th><th></th><th>Note</th>');
    assert.deepEqual(bodyRows(first!), [
      '<tr><td>Green tea</td><td>0.3</td><td></td><td>TRUE</td></tr>',
      '<tr><td></td><td></td><td></td><td></td></tr>',
      '<tr><td>2026-03-04</td><td>2026-03-04 12:00</td><td>12.5%</td><td>#DIV/0!</td></tr>',
      '<tr><td>2.5</td><td>18:00</td><td>inline &amp; text</td><td></td></tr>',
    ]);
    assert.match(second!, /^<h2>Stock &amp; more<\/h2>.*<th>Count<\/th>.*<td>40<\/td>/);
  });

  it('cuts a sheet of a million rows (and a million shared strings) at 5,000 with a warning', async () => {
    const rows = Array.from({ length: 1_000_000 }, (_, index) => `<row r="${index + 1}"><c r="A${index + 1}" t="s"><v>${index}</v></c></row>`).join('');
    const shared = `<sst xmlns="${MAIN}">${Array.from({ length: 1_000_000 }, (_, index) => `<si><t>text ${index}</t></si>`).join('')}</sst>`;
    const declared = await readXlsx(xlsx([{ name: 'Big', data: rows, dimension: 'A1:A1000000' }], shared), soon());
    assert.deepEqual(declared.warnings, ['sheet "Big" has 1,000,000 rows: only the first 5,000 were read']);
    const kept = bodyRows(declared.html);
    assert.equal(kept.length, 4_999);
    assert.equal(kept.at(-1), '<tr><td>text 4999</td></tr>');
    const undeclared = await readXlsx(xlsx([{ name: 'Big', data: rows.slice(0, 400_000) }], shared), soon());
    assert.deepEqual(undeclared.warnings, ['sheet "Big" has more than 5,000 rows: only the first 5,000 were read']);
  });

  it('keeps 200 of a row of 16,384 columns, with a warning', async () => {
    const letters = (index: number): string =>
      index < 26 ? String.fromCharCode(65 + index) : letters(Math.floor(index / 26) - 1) + String.fromCharCode(65 + (index % 26));
    const wide = Array.from({ length: 16_384 }, (_, index) => inline(`${letters(index)}1`, `c${index}`)).join('');
    const book = await readXlsx(xlsx([{ name: 'Wide', data: `<row r="1">${wide}</row>` }]), soon());
    assert.deepEqual(book.warnings, ['sheet "Wide" has 16,384 columns: only the first 200 were read']);
    assert.equal((headerOf(book.html)?.match(/<th>/g) ?? []).length, 200);
    assert.match(headerOf(book.html) ?? '', /<th>c199<\/th>$/);
  });

  it('expands no entity of a DOCTYPE, in a sheet or in the shared strings', async () => {
    const doctype = '<?xml version="1.0"?><!DOCTYPE w [<!ENTITY a "lollollol"><!ENTITY b "&a;&a;&a;&a;&a;&a;"><!ENTITY x SYSTEM "file:///etc/passwd">]>';
    const shared = `${doctype}<sst xmlns="${MAIN}"><si><t>s&b;&x;</t></si></sst>`;
    const book = await readXlsx(
      xlsx([{ name: 'S', prolog: doctype, data: `<row r="1"><c r="A1" t="s"><v>0</v></c>${inline('B1', 'i&b;&x;')}</row>` }], shared),
      soon(),
    );
    assert.doesNotMatch(book.html, /lollol|root:/);
    assert.match(book.html, /<th>s&amp;b;&amp;x;<\/th><th>i&amp;b;&amp;x;<\/th>/);
  });

  it('refuses a file that is no workbook, a truncated one, and one past its deadline', async () => {
    await assert.rejects(readXlsx(zip([{ name: 'xl/other.xml', data: '<x/>' }]), soon()), { code: 'DOCUMENT_UNREADABLE', message: /no xl\/workbook\.xml/ });
    const whole = xlsx([{ name: 'A', data: `<row r="1">${inline('A1', 'a')}</row>` }]);
    await assert.rejects(readXlsx(whole.subarray(0, whole.length - 40), soon()), { code: 'DOCUMENT_UNREADABLE' });
    await assert.rejects(readXlsx(whole, { deadline: Date.now() - 1 }), { code: 'DOCUMENT_UNREADABLE', message: /longer than the time left/ });
  });
});
