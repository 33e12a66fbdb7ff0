/**
 * Office documents to HTML through the Debian converters, each in its sandbox: what a document
 * says comes through; what it links is never fetched; a bomb, a damaged file and a file that
 * never ends converting get clear errors.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { documentToHtml } from '../../../src/engine/documents/convert.js';
import { runTool } from '../../../src/engine/tools/child-tools.js';
import { minimalDocx, zip } from '../../helpers/zip.js';
import { documentToolsMissing } from '../../helpers/documents.js';

const soon = () => ({ deadline: Date.now() + 60_000 });

/** An ODT whose picture is linked, not embedded: LibreOffice asks for such a picture to show it. */
function linkedPictureOdt(url: string): Buffer {
  const content = `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.2"><office:body><office:text><text:p>Before the picture.</text:p><text:p><draw:frame draw:name="P" svg:width="2cm" svg:height="2cm"><draw:image xlink:href="${url}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p></office:text></office:body></office:document-content>`;
  return zip([
    { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', stored: true },
    { name: 'content.xml', data: content },
    {
      name: 'META-INF/manifest.xml',
      data: '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>',
    },
  ]);
}

describe('documentToHtml', { skip: documentToolsMissing }, () => {
  let asked = 0;
  const server = createServer((_request, response) => {
    asked++;
    response.writeHead(404).end();
  });
  let base = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  it('reads a DOCX with its heading, paragraph and table', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webwatch-test-'));
    const file = join(dir, 'a.docx');
    execFileSync('pandoc', ['-f', 'markdown', '-t', 'docx', '-o', file], {
      input: '# Prices\n\nThe list of the month.\n\n| Item | Price |\n|---|---|\n| Tea | 3 |\n| Cake | 5 |\n',
    });
    const html = await documentToHtml(readFileSync(file), 'docx', soon());
    assert.match(html, /<h1[^>]*>.*Prices.*<\/h1>/s);
    assert.match(html, /The list of the month\./);
    assert.match(html, /<table[\s\S]*Tea[\s\S]*3[\s\S]*Cake[\s\S]*5[\s\S]*<\/table>/);
  });

  it('reads RTF and CSV with pandoc', async () => {
    assert.match(await documentToHtml(Buffer.from('{\\rtf1\\ansi {\\b Terms} of service.\\par}'), 'rtf', soon()), /<strong>Terms<\/strong> of service\./);
    const csv = await documentToHtml(Buffer.from('name,price\nTea,3\n'), 'csv', soon());
    assert.match(csv, /<th[^>]*>name<\/th>[\s\S]*<td[^>]*>Tea<\/td>/);
  });

  it('never fetches what a document links, where the converter unsandboxed does', async () => {
    const linked = linkedPictureOdt(`${base}/remote.png`);
    const html = await documentToHtml(linked, 'odt', soon());
    assert.match(html, /Before the picture\./);
    assert.equal(asked, 0, 'the sandboxed converter reached the loopback server');
    // The same converter outside the sandbox asks for the picture: what the sandbox is for.
    const dir = mkdtempSync(join(tmpdir(), 'webwatch-test-'));
    const input = join(dir, 'linked.odt');
    writeFileSync(input, linked);
    await runTool(
      'soffice',
      ['--headless', '--norestore', `-env:UserInstallation=file://${dir}/profile`, '--convert-to', 'html', '--outdir', join(dir, 'out'), input],
      { deadline: Date.now() + 60_000, memoryBytes: 3 * 1024 ** 3, maxOutputBytes: 1024 * 1024 },
    );
    assert.ok(asked > 0, 'LibreOffice did not ask for the linked picture, so this test shows nothing');
  });

  it('refuses a ZIP bomb before any converter runs, and a truncated file with a clear error', async () => {
    const bomb = minimalDocx('x', [{ name: 'word/media/bomb.xml', data: Buffer.alloc(64 * 1024 * 1024, 0x61) }]);
    const started = Date.now();
    await assert.rejects(documentToHtml(bomb, 'docx', soon()), { code: 'DOCUMENT_UNREADABLE', message: /inflates \d+ times/ });
    assert.ok(Date.now() - started < 10_000);
    const whole = minimalDocx('hello');
    await assert.rejects(documentToHtml(whole.subarray(0, whole.length - 30), 'docx', soon()), { code: 'DOCUMENT_UNREADABLE', message: /truncated/ });
    await assert.rejects(documentToHtml(Buffer.from('{\\rtf1 never closed'), 'rtf', { deadline: Date.now() - 1 }), {
      code: 'DOCUMENT_UNREADABLE',
      message: /longer than the time left/,
    });
  });
});
