/** Scrapes of office documents: found by their bytes, read as an HTML page is, a workbook a section per sheet. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { scrape } from '../../../src/engine/scrape/scrape.js';
import type { ScrapeOptions } from '../../../src/spec/scrape-options.js';
import { tempDir, writeFiles } from '../../helpers/files.js';
import { run } from '../../helpers/io.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { zip } from '../../helpers/zip.js';
import { documentToolsMissing } from '../../helpers/documents.js';

const TABLE = 'urn:oasis:names:tc:opendocument:xmlns:table:1.0';
const row = (...cells: string[]) =>
  `<table:table-row>${cells.map((cell) => (/^\d+$/.test(cell) ? `<table:table-cell office:value-type="float" office:value="${cell}"><text:p>${cell}</text:p></table:table-cell>` : `<table:table-cell office:value-type="string"><text:p>${cell}</text:p></table:table-cell>`)).join('')}</table:table-row>`;

/** A two-sheet ODS, written by hand: the smallest package LibreOffice reads. */
function workbook(teaPrice: string): Buffer {
  const content = `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="${TABLE}" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:spreadsheet><table:table table:name="Prices">${row('Item', 'Price')}${row('Tea', teaPrice)}${row('Cake', '5')}</table:table><table:table table:name="Stock">${row('Item', 'Count')}${row('Tea', '40')}</table:table></office:spreadsheet></office:body></office:document-content>`;
  return zip([
    { name: 'mimetype', data: 'application/vnd.oasis.opendocument.spreadsheet', stored: true },
    { name: 'content.xml', data: content },
    {
      name: 'meta.xml',
      data: '<?xml version="1.0" encoding="UTF-8"?><office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.2"><office:meta><dc:title>Price list</dc:title><meta:initial-creator>Ada &amp; Co</meta:initial-creator><meta:creation-date>2026-03-04T10:00:00</meta:creation-date></office:meta></office:document-meta>',
    },
    {
      name: 'META-INF/manifest.xml',
      data: '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/></manifest:manifest>',
    },
  ]);
}

describe('scraping office documents', { skip: documentToolsMissing }, () => {
  let server: TestServer;
  const files: Record<string, Buffer> = {};
  const context = { version: 't', now: () => new Date() };
  const scrapeOf = (path: string, options: ScrapeOptions = {}) => scrape({ url: `${server.origin}${path}`, options }, context);

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webwatch-test-'));
    const markdown =
      '---\ntitle: Terms\nauthor: Ada Lovelace\n---\n\n# Terms of service\n\nYou agree to [the rules](https://rules.example/).\n\n## Payment\n\n- Monthly\n- Yearly\n';
    for (const format of ['docx', 'odt', 'rtf'] as const) {
      execFileSync('pandoc', ['-f', 'markdown', '-t', format, '-s', '-o', join(dir, `terms.${format}`)], { input: markdown });
      files[format] = readFileSync(join(dir, `terms.${format}`));
    }
    files.ods = workbook('3');
    writeFileSync(join(dir, 'prices.ods'), files.ods);
    execFileSync('soffice', ['--headless', `-env:UserInstallation=file://${dir}/profile`, '--convert-to', 'xlsx', '--outdir', dir, join(dir, 'prices.ods')], {
      stdio: 'ignore',
    });
    files.xlsx = readFileSync(join(dir, 'prices.xlsx'));
    const send = (body: () => Buffer, type: string) => (_request: unknown, response: ServerResponse) =>
      void response.writeHead(200, { 'content-type': type }).end(body());
    server = await startServer({
      '/terms.docx': send(() => files.docx!, 'application/octet-stream'),
      '/download': send(() => files.docx!, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
      '/terms.odt': send(() => files.odt!, 'application/vnd.oasis.opendocument.text'),
      '/terms.rtf': send(() => files.rtf!, 'application/rtf'),
      '/prices.ods': send(() => files.ods!, 'application/octet-stream'),
      '/watched.ods': send(() => files.watched ?? files.ods!, 'application/vnd.oasis.opendocument.spreadsheet'),
      '/prices.xlsx': send(() => files.xlsx!, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'),
      '/info.rtf': send(
        () => Buffer.from(String.raw`{\rtf1\ansi{\info{\title Tender \'e9dition}{\author J\'e9r\'f4me}}\pard A tender.\par}`, 'latin1'),
        'application/rtf',
      ),
      '/really-a-page.docx': send(() => Buffer.from('<title>A page</title><p>Only a page.</p>'), 'text/html'),
      '/not-a-sheet.xlsx': send(() => Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'),
    });
  });
  after(() => server.close());

  it('reads DOCX, ODT and RTF with their headings, links and lists, found by bytes or label', async () => {
    for (const path of ['/terms.docx', '/download', '/terms.odt', '/terms.rtf']) {
      const document = await scrapeOf(path, { formats: ['markdown', 'links'] });
      const markdown = document.markdown ?? '';
      assert.match(markdown, /Terms of service/, path);
      assert.match(markdown, /## Payment/, path);
      // pandoc 2.17 reads the lists of RTF as bulleted paragraphs: the words stay, the list does not.
      assert.match(markdown, path === '/terms.rtf' ? /^• Monthly$/m : /^[-*] Monthly$/m, path);
      assert.match(markdown, /\[the rules\]\(https:\/\/rules\.example\/?\)/, path);
      assert.ok(
        document.links?.some((link) => link.startsWith('https://rules.example')),
        path,
      );
      assert.equal(document.warning, undefined, `${path}: ${document.warning}`);
    }
  });

  it('reads a workbook as a section per sheet with a table each, and counts its sheets', async () => {
    for (const path of ['/prices.ods', '/prices.xlsx']) {
      const document = await scrapeOf(path);
      const markdown = document.markdown ?? '';
      assert.match(markdown, /## Prices\s+\| Item \| Price \|\s*\n\|[- |]+\|\s*\n\| Tea \| 3 \|\s*\n\| Cake \| 5 \|/, `${path}:\n${markdown}`);
      assert.match(markdown, /## Stock\s+\| Item \| Count \|[\s\S]*\| Tea \| 40 \|/, path);
      assert.doesNotMatch(markdown, /Sheet 1|Overview|;/, path);
      assert.equal(document.metadata.numPages, 2, path);
    }
  });

  it('a monitor of a workbook sees a changed cell as a changed table row', async () => {
    const env = { WEBWATCH_HOME: tempDir() };
    const dir = writeFiles({ 'm.yaml': `name: Prices\nschedule: {cron: "0 * * * *"}\ntargets:\n  - type: scrape\n    urls: [${server.origin}/watched.ods]\n` });
    assert.equal((await run(['monitor', 'apply', '-f', dir], { env })).code, 0);
    const first = JSON.parse((await run(['monitor', 'run', 'Prices', '--json'], { env })).stdout);
    assert.deepEqual(first.summary, { changed: 0, error: 0, new: 1, removed: 0, same: 0, totalPages: 1 });
    const same = JSON.parse((await run(['monitor', 'run', 'Prices', '--json'], { env })).stdout);
    assert.equal(same.summary.same, 1);
    files.watched = workbook('4');
    const changed = JSON.parse((await run(['monitor', 'run', 'Prices', '--json'], { env })).stdout);
    assert.equal(changed.summary.changed, 1);
    const pages = JSON.parse((await run(['monitor', 'check', 'Prices', changed.id, '--json'], { env })).stdout).pages;
    assert.match(pages[0].diff.text, /^-\| Tea \| 3 \|$/m);
    assert.match(pages[0].diff.text, /^\+\| Tea \| 4 \|$/m);
    assert.doesNotMatch(pages[0].diff.text, /^[-+]\| Cake/m);
  });

  it("carries the document's own title and author as a page's, and its sheets as numPages", async () => {
    const expected: Record<string, [string, string]> = {
      '/terms.docx': ['Terms', 'Ada Lovelace'],
      '/terms.odt': ['Terms', 'Ada Lovelace'],
      '/info.rtf': ['Tender édition', 'Jérôme'],
      '/prices.ods': ['Price list', 'Ada & Co'],
      '/prices.xlsx': ['Price list', 'Ada & Co'],
    };
    for (const [path, [title, author]] of Object.entries(expected)) {
      const { metadata } = await scrapeOf(path);
      assert.equal(metadata.title, title, path);
      assert.equal(metadata.author, author, path);
    }
    assert.equal((await scrapeOf('/prices.ods')).metadata.dcTermsCreated, '2026-03-04T10:00:00');
  });

  it('applies excludeTags as on a page', async () => {
    const document = await scrapeOf('/prices.ods', { excludeTags: ['table'] });
    assert.match(document.markdown ?? '', /## Prices/);
    assert.doesNotMatch(document.markdown ?? '', /Tea/);
  });

  it('reads a page named .docx as the page it is, and says so of bytes labelled XLSX that are none', async () => {
    assert.match((await scrapeOf('/really-a-page.docx')).markdown ?? '', /Only a page\./);
    const fake = await scrapeOf('/not-a-sheet.xlsx');
    assert.equal(fake.markdown, '');
    assert.match(fake.warning ?? '', /labelled as XLSX, the file is not one/);
  });
});
