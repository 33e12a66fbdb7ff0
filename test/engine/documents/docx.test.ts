/**
 * DOCX read by mammoth on a thread of its own: what a document says comes through; what it
 * links is neither fetched nor read from disk; a damaged file, one past the reader's heap and
 * one past its deadline each fail alone, with a clear error.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { docxToHtml } from '../../../src/engine/documents/docx.js';
import { convertPage } from '../../../src/engine/scrape/convert.js';
import { tempDir } from '../../helpers/files.js';
import { docx, minimalDocx } from '../../helpers/zip.js';
import { documentToolsMissing } from '../../helpers/documents.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const soon = () => ({ deadline: Date.now() + 60_000 });
const pandocDocx = (markdown: string, cwd = tempDir()) => execFileSync('pandoc', ['-f', 'markdown', '-t', 'docx', '-o', '-'], { input: markdown, cwd });

/** A DOCX of two pictures linked, not embedded: one on a web server, one a file of this machine. */
function linkedPictures(url: string): Buffer {
  const picture = (id: string) =>
    `<w:p><w:r><w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/><wp:docPr id="1" name="P"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="0" name="p.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:link="${id}"/></pic:blipFill><pic:spPr/></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;
  const document = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}" xmlns:r="${R}" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body><w:p><w:r><w:t>Before the pictures.</w:t></w:r></w:p>${picture('rIdWeb')}${picture('rIdFile')}</w:body></w:document>`;
  return docx(document, [
    {
      name: 'word/_rels/document.xml.rels',
      data: `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdWeb" Type="${R}/image" Target="${url}" TargetMode="External"/><Relationship Id="rIdFile" Type="${R}/image" Target="file:///etc/passwd" TargetMode="External"/></Relationships>`,
    },
  ]);
}

describe('DOCX by mammoth', () => {
  let asked = 0;
  const server = createServer((_request, response) => {
    asked++;
    response.writeHead(200, { 'content-type': 'image/png' }).end('not really');
  });
  let base = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  it('keeps headings, lists, tables and links, the title a heading', { skip: documentToolsMissing }, async () => {
    const html = await docxToHtml(
      pandocDocx(
        '---\ntitle: Supply terms\n---\n\n# Delivery\n\n- Within ten days\n- Free over 100\n\n| Lot | Price |\n|---|---|\n| A | 100 |\n\nSee [the rules](https://rules.example/).\n',
      ),
      soon(),
    );
    assert.match(html, /<h1>Supply terms<\/h1>/);
    assert.match(html, /<h1[^>]*>(<a[^>]*><\/a>)?Delivery<\/h1>/);
    assert.match(html, /<ul><li>Within ten days<\/li><li>Free over 100<\/li><\/ul>/);
    assert.match(html, /<table>[\s\S]*<td><p>A<\/p><\/td><td><p>100<\/p><\/td>[\s\S]*<\/table>/);
    assert.match(html, /<a href="https:\/\/rules\.example\/">the rules<\/a>/);
  });

  it('neither fetches a linked picture nor reads one that names a file of this machine', async () => {
    const html = await docxToHtml(linkedPictures(`${base}/remote.png`), soon());
    assert.match(html, /Before the pictures\./);
    assert.doesNotMatch(html, /root:|data:image/);
    assert.equal(asked, 0);
  });

  it('embeds a picture of the document as data, which removeBase64Images drops as on a page', { skip: documentToolsMissing }, async () => {
    const dir = tempDir();
    const png = new PNG({ width: 4, height: 4 });
    png.data.fill(200);
    writeFileSync(join(dir, 'dot.png'), PNG.sync.write(png));
    const page = { body: pandocDocx('A dot:\n\n![a dot](dot.png)\n', dir), contentType: 'application/octet-stream', finalUrl: 'http://127.0.0.1:9/dot.docx' };
    const kept = await convertPage(page, { removeBase64Images: false }, ['markdown']);
    assert.match(kept.markdown, /!\[a dot\]\(data:image\/png;base64,/);
    const dropped = await convertPage(page, {}, ['markdown']);
    assert.doesNotMatch(dropped.markdown, /base64/);
    assert.match(dropped.markdown, /A dot:/);
  });

  it('expands no external or exponential entity of a DOCTYPE', async () => {
    const entities = `<!DOCTYPE w:document [<!ENTITY x SYSTEM "file:///etc/passwd"><!ENTITY r SYSTEM "${base}/entity"><!ENTITY a "lollollol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>`;
    const hostile = docx(
      `<?xml version="1.0"?>${entities}<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>Before &x;&r;&b; after.</w:t></w:r></w:p></w:body></w:document>`,
    );
    const outcome = await docxToHtml(hostile, soon()).then(
      (html) => html,
      (error: Error & { code?: string }) => (assert.equal(error.code, 'DOCUMENT_UNREADABLE'), error.message),
    );
    assert.doesNotMatch(outcome, /root:|lollol|not really/);
    assert.equal(asked, 0);
  });

  it('fails a damaged document, one past its heap and one past its deadline, each alone', async () => {
    const broken = docx('<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p>');
    await assert.rejects(docxToHtml(broken, soon()), { code: 'DOCUMENT_UNREADABLE' });
    const paragraphs = Array.from({ length: 40_000 }, (_, index) => `<w:p><w:r><w:t>Paragraph ${index} of a long report.</w:t></w:r></w:p>`).join('');
    const large = docx(`<?xml version="1.0"?><w:document xmlns:w="${W}"><w:body>${paragraphs}</w:body></w:document>`);
    await assert.rejects(docxToHtml(large, { ...soon(), heapMb: 16 }), { code: 'DOCUMENT_UNREADABLE', message: /more than the 16 MB the reader may use/ });
    await assert.rejects(docxToHtml(minimalDocx('late'), { deadline: Date.now() - 1 }), { code: 'DOCUMENT_UNREADABLE', message: /longer than the time left/ });
    const controller = new AbortController();
    const stopped = docxToHtml(large, { ...soon(), signal: controller.signal });
    // While its thread converts: 40,000 paragraphs take far longer than 20 ms, on any machine.
    setTimeout(() => controller.abort(new Error('the scrape was cancelled')), 20);
    await assert.rejects(stopped, /the scrape was cancelled/);
    assert.match(await docxToHtml(minimalDocx('After them all.'), soon()), /<p>After them all\.<\/p>/);
  });
});
