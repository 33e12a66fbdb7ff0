/**
 * Documents made to hurt a reader: RTF nested past any sane depth or never closed, an ODT that
 * runs a macro when it is opened, XML entities that would read a file of the machine or grow
 * without end. Each gets its text or a clear error, within its deadline and memory cap.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { CONVERTERS, documentToHtml } from '../../../src/engine/documents/convert.js';
import { workbookHtml } from '../../../src/engine/documents/sheets.js';
import { documentToolsMissing } from '../../helpers/documents.js';
import { zip } from '../../helpers/zip.js';

const soon = () => ({ deadline: Date.now() + 60_000 });
const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:script="urn:oasis:names:tc:opendocument:xmlns:script:1.0" xmlns:xlink="http://www.w3.org/1999/xlink"';

/** An ODT package with its manifest naming every part, as LibreOffice insists. */
function odt(content: string, parts: { name: string; data: string }[] = []): Buffer {
  const entries = [{ name: 'content.xml', data: content }, ...parts];
  const manifest = `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>${entries
    .map((entry) => `<manifest:file-entry manifest:full-path="${entry.name}" manifest:media-type="text/xml"/>`)
    .join('')}</manifest:manifest>`;
  return zip([
    { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', stored: true },
    ...entries,
    { name: 'META-INF/manifest.xml', data: manifest },
  ]);
}

describe('hostile documents', { skip: documentToolsMissing }, () => {
  let asked = 0;
  const server = createServer((_request, response) => {
    asked++;
    response.writeHead(200, { 'content-type': 'text/plain' }).end('FETCHED-BY-THE-CONVERTER');
  });
  let base = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  it('reads RTF nested 200,000 groups deep, and refuses one that never closes its groups within its memory cap', async () => {
    const depth = 200_000;
    const deep = Buffer.from(`{\\rtf1\\ansi ${'{'.repeat(depth)}Deep inside.${'}'.repeat(depth)}}`);
    assert.match(await documentToHtml(deep, 'rtf', soon()), /Deep inside\./);
    const unclosed = Buffer.from(`{\\rtf1\\ansi ${'{\\b '.repeat(5_000_000)}x`);
    await assert.rejects(documentToHtml(unclosed, 'rtf', { ...soon(), memoryBytes: 512 * 1024 * 1024 }), { code: 'DOCUMENT_UNREADABLE' });
  });

  it('converts no more documents at once than the process has converter slots; one that waits past its deadline fails', async () => {
    const held = await Promise.all(Array.from({ length: CONVERTERS.size }, () => CONVERTERS.take(Date.now() + 60_000)));
    const rtf = Buffer.from('{\\rtf1\\ansi Waited for a slot.\\par}');
    try {
      await assert.rejects(documentToHtml(rtf, 'rtf', { deadline: Date.now() + 50 }), { code: 'DOCUMENT_UNREADABLE', message: /no converter came free/ });
      const waiting = documentToHtml(rtf, 'rtf', soon());
      assert.equal(CONVERTERS.waiting, 1);
      held.pop()!();
      assert.match(await waiting, /Waited for a slot\./);
    } finally {
      for (const release of held) release();
    }
  });

  it('cuts a row of 16,384 columns with a warning, and refuses a sheet of a million rows by the HTML it would become', async () => {
    const sheetNs =
      'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"';
    const ods = (rows: string) =>
      zip([
        { name: 'mimetype', data: 'application/vnd.oasis.opendocument.spreadsheet', stored: true },
        {
          name: 'content.xml',
          data: `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${sheetNs} office:version="1.2"><office:body><office:spreadsheet><table:table table:name="Big">${rows}</table:table></office:spreadsheet></office:body></office:document-content>`,
        },
        {
          name: 'META-INF/manifest.xml',
          data: '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>',
        },
      ]);
    const cell = (text: string, repeated = 1) =>
      `<table:table-cell table:number-columns-repeated="${repeated}" office:value-type="string"><text:p>${text}</text:p></table:table-cell>`;
    const wide = workbookHtml(await documentToHtml(ods(`<table:table-row>${cell('y', 16_384)}</table:table-row>`), 'ods', soon()));
    assert.equal(wide.warnings.length, 1);
    assert.match(wide.warnings[0]!, /^sheet ".+" has 16,384 columns: only the first 200 were read$/);
    assert.equal((wide.html.match(/<th>y<\/th>/g) ?? []).length, 200);
    const tall = ods(`<table:table-row table:number-rows-repeated="1000000">${cell('x')}${cell('z')}</table:table-row>`);
    await assert.rejects(documentToHtml(tall, 'ods', soon()), { code: 'DOCUMENT_UNREADABLE', message: /more than 64 MiB of HTML/ });
  });

  it('runs no macro of a document, even one bound to its opening', async () => {
    const content = `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODF_NS} office:version="1.2"><office:scripts><office:event-listeners><script:event-listener script:language="ooo:script" script:event-name="office:load" xlink:href="vnd.sun.star.script:Standard.Module1.Main?language=Basic&amp;location=document" xlink:type="simple"/></office:event-listeners></office:scripts><office:body><office:text><text:p>The text as written.</text:p></office:text></office:body></office:document-content>`;
    const macro = odt(content, [
      {
        name: 'Basic/script-lc.xml',
        data: '<?xml version="1.0" encoding="UTF-8"?><library:libraries xmlns:library="http://openoffice.org/2000/library" xmlns:xlink="http://www.w3.org/1999/xlink"><library:library library:name="Standard" xlink:href="vnd.sun.star.expand:$(CURRENT_DOCUMENT)/Basic/Standard/script.xlb/" xlink:type="simple" library:link="false"/></library:libraries>',
      },
      {
        name: 'Basic/Standard/script-lb.xml',
        data: '<?xml version="1.0" encoding="UTF-8"?><library:library xmlns:library="http://openoffice.org/2000/library" library:name="Standard" library:readonly="false" library:passwordprotected="false"><library:element library:name="Module1"/></library:library>',
      },
      {
        name: 'Basic/Standard/Module1.xml',
        data: `<?xml version="1.0" encoding="UTF-8"?><script:module xmlns:script="http://openoffice.org/2000/script" script:name="Module1" script:language="StarBasic">Sub Main\nThisComponent.Text.setString(&quot;MACRO RAN&quot;)\nShell(&quot;curl ${base}/macro&quot;)\nEnd Sub\n</script:module>`,
      },
    ]);
    const html = await documentToHtml(macro, 'odt', soon());
    assert.match(html, /The text as written\./);
    assert.doesNotMatch(html, /MACRO RAN/);
    assert.equal(asked, 0);
  });

  it('expands no external or exponential entity: the file is refused, nothing of the machine or the network in its error', async () => {
    const content = `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE office:document-content [<!ENTITY passwd SYSTEM "file:///etc/passwd"><!ENTITY remote SYSTEM "${base}/entity"><!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><office:document-content ${ODF_NS} office:version="1.2"><office:body><office:text><text:p>Before &passwd; &remote; &c; after.</text:p></office:text></office:body></office:document-content>`;
    const error = await documentToHtml(odt(content), 'odt', soon()).then(
      (html) => new Error(`converted: ${html.slice(0, 2000)}`),
      (failure: Error) => failure,
    );
    assert.equal((error as { code?: string }).code, 'DOCUMENT_UNREADABLE', error.message);
    assert.doesNotMatch(error.message, /root:|FETCHED|lollol/);
    assert.equal(asked, 0);
  });
});
