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
import { docx, minimalDocx } from '../../helpers/zip.js';
import { documentToolsMissing } from '../../helpers/documents.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const soon = () => ({ deadline: Date.now() + 60_000 });

/** A DOCX whose picture is linked, not embedded: LibreOffice fetches such a picture to show it. */
function linkedPictureDocx(url: string): Buffer {
  const document = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}" xmlns:r="${R}" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body><w:p><w:r><w:t>Before the picture.</w:t></w:r></w:p><w:p><w:r><w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/><wp:docPr id="1" name="Picture 1"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="0" name="remote.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:link="rId9"/></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="952500" cy="952500"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p></w:body></w:document>`;
  return docx(document, [
    {
      name: 'word/_rels/document.xml.rels',
      data: `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId9" Type="${R}/image" Target="${url}" TargetMode="External"/></Relationships>`,
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
    const linked = linkedPictureDocx(`${base}/remote.png`);
    const html = await documentToHtml(linked, 'docx', soon());
    assert.match(html, /Before the picture\./);
    assert.equal(asked, 0, 'the sandboxed converter reached the loopback server');
    // The same converter outside the sandbox asks for the picture: what the sandbox is for.
    const dir = mkdtempSync(join(tmpdir(), 'webwatch-test-'));
    const input = join(dir, 'linked.docx');
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
