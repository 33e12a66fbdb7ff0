/**
 * PDFs end to end on a corpus the tests make: saved pages (test/fixtures/pdf, two of them real
 * pages of the shared corpus) printed to PDF by the system's Chromium, whose printed text is
 * the known text; the same PDFs rasterized to image-only PDFs for OCR; encrypted copies (qpdf),
 * truncated copies and hand-built hostile files. Nothing is committed but the HTML: the PDFs
 * come from it on every run, so the known text and the files can never drift apart.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { deflateSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { crawl, type CrawlPage } from '../../src/engine/crawl/crawl.js';
import { parsePdf, type ParsedPdf, type PdfParseOptions } from '../../src/engine/pdf/parse-pdf.js';
import { findTool, runTool, ToolStopped } from '../../src/engine/tools/child-tools.js';
import { scrape } from '../../src/engine/scrape/scrape.js';
import { WebwatchError } from '../../src/errors/webwatch-error.js';
import type { ScrapeOptions } from '../../src/spec/scrape-options.js';
import { encryptPdf, PdfPrinter, wordScores } from '../helpers/pdf-corpus.js';
import { tempDir } from '../helpers/files.js';
import { resolveToLoopback } from '../helpers/hosts.js';
import { html, startServer, type Handler, type TestServer } from '../helpers/server.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'pdf');
const BIN = join(ROOT, 'bin', 'webwatch.js');
const exec = promisify(execFile);

const missingTools = (() => {
  try {
    for (const tool of ['pdfinfo', 'pdftotext', 'pdftoppm', 'tesseract'] as const) findTool(tool);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
})();

const read = (bytes: Buffer, options: Partial<PdfParseOptions> = {}, timeoutMs = 60_000): Promise<ParsedPdf> =>
  parsePdf(bytes, { mode: 'fast', pageMarkers: false, ...options }, { deadline: Date.now() + timeoutMs, timeoutMs });

/** A minimal PDF of the given objects (1 is the catalog), with a correct cross-reference table. */
function handBuiltPdf(objects: Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((object, i) => {
    const body = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), object, Buffer.from('\nendobj\n')]);
    offsets.push(length);
    parts.push(body);
    length += body.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

const stream = (content: Buffer, filter = '/FlateDecode') =>
  Buffer.concat([Buffer.from(`<< /Length ${content.length} /Filter ${filter} >>\nstream\n`), content, Buffer.from('\nendstream')]);
const catalog = Buffer.from('<< /Type /Catalog /Pages 2 0 R >>');

describe('PDFs', { skip: missingTools && `${missingTools}: apt-get install poppler-utils tesseract-ocr tesseract-ocr-eng qpdf` }, () => {
  let printer: PdfPrinter;
  const corpus: Record<string, { pdf: Buffer; text: string }> = {};
  const scans: Record<string, Buffer> = {};
  let server: TestServer;

  before(async () => {
    printer = await PdfPrinter.open();
    for (const name of ['price-list', 'columns', 'daringfireball-1', 'ebb-org']) {
      corpus[name] = await printer.print(readFileSync(join(FIXTURES, `${name}.html`), 'utf8'));
    }
    for (const name of ['price-list', 'daringfireball-1']) scans[name] = await printer.imageOnly(corpus[name]!.pdf);
    const pdf =
      (bytes: () => Buffer, type = 'application/pdf'): Handler =>
      (_q, r) =>
        void r.writeHead(200, { 'content-type': type }).end(bytes());
    server = await startServer({
      '/price-list': pdf(() => corpus['price-list']!.pdf),
      '/download': pdf(() => corpus['price-list']!.pdf, 'application/octet-stream'),
      '/report.html': pdf(() => corpus['price-list']!.pdf, 'text/html; charset=utf-8'),
      '/scan': pdf(() => scans['price-list']!),
      '/secret': pdf(() => encryptPdf(corpus['price-list']!.pdf, 'open sesame', 'owner')),
      '/broken': pdf(() => corpus['price-list']!.pdf.subarray(0, 2000)),
      '/site/': html('<title>Shop</title><main><h1>Shop</h1><a href="/site/prices">Our prices</a></main>'),
      '/site/prices': pdf(() => corpus['price-list']!.pdf),
      // docs.google.com on loopback: a document's and a presentation's editor pages (drawn by
      // script) and their exports, which answer a PDF when asked for one.
      '/document/d/doc-1/edit': html('<title>Price list - Google Docs</title><div id="docs-editor"></div><script>draw()</script>'),
      '/presentation/d/deck-1/edit': html('<title>Deck - Google Slides</title><div id="root"></div><script>draw()</script>'),
      '/document/d/doc-1/export': (q, r) =>
        new URL(q.url!, 'http://x').searchParams.get('format') === 'pdf' ? pdf(() => corpus['price-list']!.pdf)(q, r) : void r.writeHead(400).end(),
      '/presentation/d/deck-1/export': (q, r) =>
        new URL(q.url!, 'http://x').searchParams.get('format') === 'pdf' ? pdf(() => corpus.columns!.pdf)(q, r) : void r.writeHead(400).end(),
    });
  });
  after(async () => {
    await printer?.close();
    await server?.close();
  });

  describe('fast: the text layer', () => {
    for (const name of ['daringfireball-1', 'ebb-org', 'price-list', 'columns']) {
      it(`${name}: word recall and precision against the printed text`, async () => {
        const { pdf, text } = corpus[name]!;
        const parsed = await read(pdf);
        const scores = wordScores(text, parsed.markdown);
        assert.ok(scores.recall >= 0.98, `recall ${scores.recall}`);
        // The printed text has what innerText leaves out (list numbers): 0.9, and pdftotext's own.
        assert.ok(scores.precision >= 0.9, `precision ${scores.precision}`);
        // At least as good as poppler's own plain text of the same file.
        const dir = tempDir();
        writeFileSync(join(dir, 'in.pdf'), pdf);
        const plain = (await exec('pdftotext', ['-enc', 'UTF-8', join(dir, 'in.pdf'), '-'])).stdout;
        const poppler = wordScores(text, plain);
        assert.ok(scores.recall >= poppler.recall - 0.005, `recall ${scores.recall} against pdftotext's ${poppler.recall}`);
        assert.ok(scores.precision >= poppler.precision - 0.01, `precision ${scores.precision} against pdftotext's ${poppler.precision}`);
      });
    }

    it('the price list: title, headings, lists and the table as markdown, pages and markers exactly', async () => {
      const parsed = await read(corpus['price-list']!.pdf, { pageMarkers: true });
      assert.equal(parsed.numPages, 3);
      assert.equal(parsed.pagesParsed, 3);
      assert.equal(parsed.title, 'Garden tools price list');
      const { markdown } = parsed;
      assert.match(markdown, /^# Garden tools price list\n\nThis list gives the spring prices/);
      assert.match(markdown, /\n## Hand tools\n\n- Spade with an ash handle\n- Rake with fourteen teeth\n- Pruning shears for roses\n/);
      assert.match(
        markdown,
        /\| Item \| Price \| Stock \|\n\| --- \| --- \| --- \|\n\| Spade \| 24\.50 \| 12 \|\n\| Rake \| 18\.00 \| 3 \|\n\| Pruning shears \| 31\.20 \| 40 \|\n\| Watering can \| 9\.90 \| 25 \|/,
      );
      assert.match(markdown, /\n1\. Choose the tools you need\.\n2\. Pay by card or bank transfer\.\n3\. Receive a tracking number by mail\./);
      // Markers between pages only: none before page 1, each as spec §2.7 spells it.
      assert.equal(markdown.match(/<!-- page \d+ -->/g)?.join(','), '<!-- page 2 -->,<!-- page 3 -->');
      assert.ok(markdown.includes('| Watering can | 9.90 | 25 |\n\n---\n\n<!-- page 2 -->\n\n## Delivery'));
      assert.ok(!markdown.startsWith('---'));
      // pages: the same markdown, page by page; joined with the markers they are the document.
      assert.deepEqual(
        parsed.pages.map((p) => p.pageNumber),
        [1, 2, 3],
      );
      assert.equal(parsed.pages.map((p, i) => (i === 0 ? p.markdown : `\n\n---\n\n<!-- page ${p.pageNumber} -->\n\n${p.markdown}`)).join(''), markdown);
      assert.match(parsed.pages[2]!.markdown, /^## Returns\n\nUnused tools may be returned/);
    });

    it('columns: paragraphs whole and in reading order, column by column', async () => {
      const { markdown } = await read(corpus.columns!.pdf);
      const order = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot'].map((word) => markdown.indexOf(`${word} paragraph.`));
      assert.ok(
        order.every((at) => at >= 0),
        markdown,
      );
      assert.deepEqual(
        [...order].sort((a, b) => a - b),
        order,
        'in reading order',
      );
      assert.match(
        markdown,
        /Bravo paragraph\. A stone bridge replaced the ferry two centuries later, and the market moved from the bank to the square in front of the church, where it is still held every Thursday morning\./,
      );
      assert.doesNotMatch(markdown, /\|/, 'justified columns are not a table');
    });

    it('blocks: typed, in reading order, boxes inside the page, spans that point at their markdown', async () => {
      const parsed = await read(corpus['price-list']!.pdf);
      assert.deepEqual(
        parsed.blocks.map((b) => [b.pageNumber, b.status]),
        [
          [1, 'ok'],
          [2, 'ok'],
          [3, 'ok'],
        ],
      );
      const first = parsed.blocks[0]!;
      assert.ok(Math.abs(first.width! - 595.92) < 1 && Math.abs(first.height! - 842.88) < 1, 'A4 in points');
      assert.deepEqual(
        first.items.map((item) => item.type),
        ['title', 'text', 'section_header', 'list_item', 'list_item', 'list_item', 'section_header', 'table'],
      );
      let lastTop = -1;
      for (const item of first.items) {
        assert.equal(item.readingOrder, first.items.indexOf(item));
        const [x0, y0, x1, y1] = item.bbox!;
        assert.ok(x0 >= 0 && y0 >= 0 && x1 <= 1 && y1 <= 1 && x0 < x1 && y0 < y1, `box ${item.bbox}`);
        assert.ok(y0 > lastTop, 'a single column reads top to bottom');
        lastTop = y0;
        const [start, end] = item.markdownSpan!;
        assert.ok(parsed.markdown.slice(start, end).includes(item.content.split('\n')[0]!.split('\t')[0]!), `${item.type} span`);
        assert.deepEqual(item.confidence.ocr, null);
        assert.equal(item.source, 'text');
      }
      const spans = parsed.blocks.flatMap((b) => b.items).map((item) => item.markdownSpan![0]);
      assert.deepEqual(
        [...spans].sort((a, b) => a - b),
        spans,
        'spans follow the reading order across pages',
      );
    });

    it('maxPages reads the first pages only, and says so', async () => {
      const parsed = await read(corpus['price-list']!.pdf, { maxPages: 1, pageMarkers: true });
      assert.equal(parsed.numPages, 3);
      assert.equal(parsed.pagesParsed, 1);
      assert.doesNotMatch(parsed.markdown, /Delivery|page 2/);
      assert.match(parsed.warnings.join(), /only the first 1 of 3 pages were read \(maxPages\)/);
    });

    it('a scan has no text layer: fast reads nothing from it', async () => {
      const parsed = await read(scans['price-list']!);
      assert.equal(parsed.markdown, '');
      assert.deepEqual(
        parsed.blocks.map((b) => b.status),
        ['empty', 'empty', 'empty'],
      );
    });
  });

  describe('OCR', () => {
    it('ocr: the scanned pages read back with their words, tables and lists', async () => {
      const parsed = await read(scans['price-list']!, { mode: 'ocr' });
      const scores = wordScores(corpus['price-list']!.text, parsed.markdown);
      assert.ok(scores.recall >= 0.95, `recall ${scores.recall}`);
      assert.ok(scores.precision >= 0.9, `precision ${scores.precision}`);
      assert.match(parsed.markdown, /\| Spade \| 24\.50 \| 12 \|/);
      assert.match(parsed.markdown, /- Rake with fourteen teeth/);
      const items = parsed.blocks.flatMap((b) => b.items);
      assert.ok(items.every((item) => item.source === 'ocr' && item.confidence.ocr! > 0.5 && item.confidence.ocr! <= 1));
    });

    it('ocr on a real page: word recall and precision against the printed text', async () => {
      const parsed = await read(scans['daringfireball-1']!, { mode: 'ocr' });
      const scores = wordScores(corpus['daringfireball-1']!.text, parsed.markdown);
      assert.ok(scores.recall >= 0.9, `recall ${scores.recall}`);
      assert.ok(scores.precision >= 0.85, `precision ${scores.precision}`);
    });

    it('auto: OCR for pages without text only', async () => {
      const scanned = await read(scans['price-list']!, { mode: 'auto', maxPages: 1 });
      assert.match(scanned.markdown, /Garden tools price list/);
      assert.equal(scanned.blocks[0]!.items[0]!.source, 'ocr');
      const printed = await read(corpus['price-list']!.pdf, { mode: 'auto' });
      assert.ok(printed.blocks.flatMap((b) => b.items).every((item) => item.source === 'text'));
    });
  });

  describe('bad PDFs fail clearly, in bounded time, and webwatch goes on', () => {
    const fails = async (promise: Promise<unknown>, code: string, message: RegExp) => {
      const error = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof WebwatchError, `expected an error, got ${String(error)}`);
      assert.equal(error.code, code);
      assert.match(error.message, message);
    };

    it('encrypted with a password: a clear error; encrypted with only an owner password: read', async () => {
      await fails(read(encryptPdf(corpus['price-list']!.pdf, 'open sesame', 'owner')), 'SCRAPE_PDF_ENCRYPTED', /encrypted and needs a password/);
      const restricted = encryptPdf(corpus['price-list']!.pdf, '', 'owner', ['--extract=n', '--print=none']);
      assert.match((await read(restricted)).markdown, /Watering can/);
    });

    it('truncated: a clear error, or what could be read with a warning', async () => {
      const pdf = corpus['price-list']!.pdf;
      await fails(read(pdf.subarray(0, 2000)), 'SCRAPE_PDF_UNREADABLE', /the PDF cannot be read: pdftotext failed: /);
      // Cut before its end, the file loses its cross-reference table; poppler rebuilds it.
      const cut = await read(pdf.subarray(0, pdf.length - 40)).then(
        (parsed) => parsed,
        (error: unknown) => error,
      );
      if (cut instanceof WebwatchError) assert.equal(cut.code, 'SCRAPE_PDF_UNREADABLE');
      else assert.match((cut as ParsedPdf).markdown + (cut as ParsedPdf).warnings.join(), /Garden tools|errors/);
    });

    it('not a PDF at all, though labelled one', async () => {
      await fails(read(Buffer.from('<html>Not found</html>')), 'SCRAPE_PDF_UNREADABLE', /not a PDF \(the file has no %PDF- header\)/);
    });

    it('a page tree that claims a billion pages', async () => {
      const pages = Buffer.from('<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 1000000000 >>');
      const page = Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>');
      await fails(read(handBuiltPdf([catalog, pages, page])), 'SCRAPE_PDF_UNREADABLE', /Page count \(1000000000\) larger than number of objects/);
    });

    it("more pages than the timeout can read: refused at once, in the hosted API's words", async () => {
      const refused = async (promise: Promise<unknown>, message: RegExp, withinMs: number) => {
        const started = Date.now();
        await fails(promise, 'SCRAPE_PDF_INSUFFICIENT_TIME_ERROR', message);
        assert.ok(Date.now() - started < withinMs, `refused after ${Date.now() - started} ms`);
      };
      // OCR of 3 pages needs about 2 s at the least: refused after pdfinfo alone, in `ocr`...
      await refused(
        read(scans['price-list']!, { mode: 'ocr' }, 1500),
        /^Insufficient time to process PDF of 3 pages, which requires more processing time than your current timeout allows \(1500ms\): read by OCR, its pages need 1965ms at the least\. Please increase the timeout parameter in your scrape request to at least 8000ms\.$/,
        1000,
      );
      // ...and in `auto` once the text layer shows that no page has text.
      await refused(
        read(scans['price-list']!, { mode: 'auto' }, 1500),
        /^Insufficient time to process PDF of 3 pages, which .*: read by OCR, its pages need 1965ms/,
        1000,
      );
      // One page of OCR fits in the time: read as before.
      assert.match((await read(scans['price-list']!, { mode: 'ocr', maxPages: 1 }, 60_000)).markdown, /Garden tools/);
      // The text layer: the page count against the timeout, whatever these pages would take here
      // (3000 blank pages read in about a second): refused with 3 s, read with 6 s.
      const kids = Array.from({ length: 3000 }, (_, i) => `${i + 3} 0 R`).join(' ');
      const blank = handBuiltPdf([
        catalog,
        Buffer.from(`<< /Type /Pages /Kids [${kids}] /Count 3000 >>`),
        ...Array.from({ length: 3000 }, () => Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>')),
      ]);
      await fails(
        read(blank, { mode: 'fast' }, 3000),
        'SCRAPE_PDF_INSUFFICIENT_TIME_ERROR',
        /^Insufficient time to process PDF of 3000 pages, which .*: its text need 5814ms/,
      );
      assert.equal((await read(blank, { mode: 'fast' }, 6000)).numPages, 3000);
      // Through a scrape, whose 1 s timeout the fetch has already used some of.
      const scan = await scrape(
        { url: `${server.origin}/scan`, options: { timeout: 1000, parsers: [{ type: 'pdf', mode: 'ocr' }] } },
        { version: 't', now: () => new Date() },
      ).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(scan instanceof WebwatchError && scan.code === 'SCRAPE_PDF_INSUFFICIENT_TIME_ERROR' && scan.status === 408, String(scan));
    });

    it('a compressed content stream that inflates to 64 MiB of drawing: stopped at the deadline', async () => {
      const drawing = deflateSync(Buffer.from('0 0 m 1 1 l S\n'.repeat((64 * 1024 * 1024) / 14)), { level: 9 });
      const bomb = handBuiltPdf([
        catalog,
        Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
        Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>'),
        stream(drawing),
      ]);
      const started = Date.now();
      await fails(read(bomb, { mode: 'ocr' }, 1500), 'SCRAPE_TIMEOUT', /took longer than the scrape's timeout \(1500 ms\)/);
      assert.ok(Date.now() - started < 4000, `stopped after ${Date.now() - started} ms`);
    });

    it('each tool runs within its address-space cap, its output cap and its deadline', async () => {
      const limits = { deadline: Date.now() + 10_000, memoryBytes: 1024 ** 3, maxOutputBytes: 1024 ** 2 };
      assert.equal((await runTool('pdftotext', ['-v'], limits)).code, 0);
      const starved = await runTool('pdftotext', ['-v'], { ...limits, memoryBytes: 4 * 1024 ** 2 });
      assert.notEqual(starved.code, 0, 'a tool that cannot have the memory it asks for fails, and webwatch goes on');
      const dir = tempDir();
      writeFileSync(join(dir, 'in.pdf'), corpus['price-list']!.pdf);
      await assert.rejects(
        runTool('pdftotext', [join(dir, 'in.pdf'), '-'], { ...limits, maxOutputBytes: 100 }),
        (error: unknown) => error instanceof ToolStopped && error.reason === 'output',
      );
      await assert.rejects(
        runTool('pdftotext', [join(dir, 'in.pdf'), '-'], { ...limits, deadline: Date.now() - 1 }),
        (error: unknown) => error instanceof ToolStopped && error.reason === 'deadline',
      ); // A deadline too far for a timer (or none at all) is no deadline passed.
      for (const deadline of [Infinity, Date.now() + 2 ** 32]) assert.equal((await runTool('pdftotext', ['-v'], { ...limits, deadline })).code, 0);
    });

    it('a page 200 inches wide is read by OCR at a resolution its image fits in', async () => {
      const huge = handBuiltPdf([
        catalog,
        Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
        Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 14400 14400] >>'),
      ]);
      const parsed = await read(huge, { mode: 'ocr' });
      assert.equal(parsed.markdown, '');
      assert.equal(parsed.numPages, 1);
    });
  });

  describe('scrape, crawl and the command line', () => {
    const context = { version: 't', now: () => new Date() };
    const scrapeOf = (path: string, options: ScrapeOptions = {}) => scrape({ url: `${server.origin}${path}`, options }, context);

    it('a PDF by content type or by signature, never by the URL; a credit a page', async () => {
      for (const path of ['/price-list', '/download', '/report.html']) {
        const document = await scrapeOf(path);
        assert.match(document.markdown ?? '', /^# Garden tools price list/, path);
        assert.equal(document.metadata.numPages, 3);
        assert.equal(document.metadata.creditsUsed, 3);
        assert.equal(document.metadata.title, 'Garden tools price list');
        assert.equal(document.pages, undefined, 'pages only when asked');
        assert.equal(document.blocks, undefined, 'blocks only when asked');
      }
    });

    it('parsers options: pages, blocks, page markers, maxPages (billed pages read)', async () => {
      const document = await scrapeOf('/price-list', { parsers: [{ type: 'pdf', mode: 'fast', pages: true, blocks: true, pageMarkers: true, maxPages: 2 }] });
      assert.deepEqual(
        document.pages?.map((p) => p.pageNumber),
        [1, 2],
      );
      assert.deepEqual(
        document.blocks?.map((b) => b.pageNumber),
        [1, 2],
      );
      assert.match(document.markdown ?? '', /\n\n---\n\n<!-- page 2 -->\n\n## Delivery/);
      assert.equal(document.metadata.numPages, 3);
      assert.equal(document.metadata.creditsUsed, 2);
      assert.match(document.warning ?? '', /only the first 2 of 3 pages/);
    });

    it('parsers: [] returns the PDF itself, base64, for one credit', async () => {
      const document = await scrapeOf('/price-list', { parsers: [], formats: ['markdown', 'html'] });
      assert.deepEqual(Buffer.from(document.markdown!, 'base64'), corpus['price-list']!.pdf);
      assert.equal(document.html, document.markdown);
      assert.equal(document.metadata.creditsUsed, 1);
      assert.equal(document.metadata.numPages, undefined);
    });

    it('a scan through scrape: OCR in auto mode; PII redacted in markdown, pages and blocks alike', async () => {
      const document = await scrapeOf('/scan', {
        parsers: [{ type: 'pdf', maxPages: 1, pages: true, blocks: true }],
        redactPII: { mode: 'fast', entities: ['EMAIL'] },
      });
      assert.match(document.markdown ?? '', /Pruning shears/);
      assert.equal(document.blocks?.[0]?.items[0]?.source, 'ocr');
      assert.equal(document.pages?.[0]?.markdown, document.markdown);
      const encrypted = await scrapeOf('/secret').then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(encrypted instanceof WebwatchError && encrypted.code === 'SCRAPE_PDF_ENCRYPTED');
    });

    it('Google Docs and Slides: fetched through their PDF export and read as PDFs; sourceURL is the URL asked', async () => {
      const restore = resolveToLoopback(['docs.google.com']);
      try {
        const google = `http://docs.google.com:${new URL(server.origin).port}`;
        const doc = await scrape({ url: `${google}/document/d/doc-1/edit?usp=sharing`, options: { parsers: [{ type: 'pdf', mode: 'fast' }] } }, context);
        assert.match(doc.markdown ?? '', /^# Garden tools price list/);
        assert.equal(doc.metadata.numPages, 3);
        assert.equal(doc.metadata.creditsUsed, 3);
        assert.equal(doc.metadata.contentType, 'application/pdf');
        assert.equal(doc.metadata.sourceURL, `${google}/document/d/doc-1/edit?usp=sharing`);
        assert.equal(doc.metadata.url, `${google}/document/d/doc-1/export?format=pdf`);
        const deck = await scrape({ url: `${google}/presentation/d/deck-1/edit#slide=id.p`, options: { parsers: [{ type: 'pdf', mode: 'fast' }] } }, context);
        assert.match(deck.markdown ?? '', /Alpha paragraph\./);
        assert.equal(deck.metadata.url, `${google}/presentation/d/deck-1/export?format=pdf`);
        assert.ok(!server.requests.some((request) => request.path.endsWith('/edit')), 'the editor pages were never asked for');
      } finally {
        restore();
      }
    });

    it('crawl: a linked PDF is a page of the crawl, parsed, and its links are not followed', async () => {
      const pages: CrawlPage[] = [];
      await crawl(`${server.origin}/site/`, { limit: 5 }, {}, context, (page) => void pages.push(page));
      const pdf = pages.find((page) => page.url.endsWith('/site/prices'));
      assert.ok(pdf && 'document' in pdf && pdf.document, 'the PDF was crawled');
      assert.match(pdf.document.markdown ?? '', /\| Spade \| 24\.50 \| 12 \|/);
      assert.equal(pdf.document.metadata.creditsUsed, 3);
    });

    it('webwatch scrape prints a PDF as markdown; an encrypted one fails with its reason and exit code 1', async () => {
      const ok = await exec(process.execPath, [BIN, 'scrape', `${server.origin}/price-list`], { env: { ...process.env, WEBWATCH_HOME: tempDir() } });
      assert.match(ok.stdout, /^# Garden tools price list/);
      const failed = await exec(process.execPath, [BIN, 'scrape', `${server.origin}/secret`], { env: { ...process.env, WEBWATCH_HOME: tempDir() } }).then(
        () => undefined,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      assert.equal(failed?.code, 1);
      assert.equal(failed?.stdout, '');
      assert.match(failed?.stderr ?? '', /^error: the PDF is encrypted and needs a password to open/m);
    });

    it('without poppler: a clear error naming the package to install', async () => {
      const failed = await exec(process.execPath, [BIN, 'scrape', '--json', `${server.origin}/price-list`], {
        env: { PATH: '/nonexistent', WEBWATCH_HOME: tempDir() },
      }).then(
        () => undefined,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      assert.equal(failed?.code, 1);
      const body = JSON.parse(failed!.stdout);
      assert.equal(body.code, 'PDF_TOOLS_NOT_FOUND');
      assert.match(body.error, /reading PDFs needs pdftotext \(Debian package poppler-utils\)/);
    });
  });
});
