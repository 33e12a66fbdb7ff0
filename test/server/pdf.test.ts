/**
 * PDFs through `webwatch serve`, as the hosted service's JS SDK sees them: a scrape of a PDF URL
 * returns the shapes its types promise (markdown, pages, blocks, numPages, credits), and a
 * monitor of a PDF sees a changed price as a changed page with its diff.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Firecrawl, { type Document, type PdfPageBlocks } from '@mendable/firecrawl-js';
import { findTool } from '../../src/engine/tools/child-tools.js';
import { resolveToLoopback } from '../helpers/hosts.js';
import { encryptPdf, PdfPrinter } from '../helpers/pdf-corpus.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { call, serveWebwatch, type ServingWebwatch } from '../helpers/webwatch-server.js';

const missingTools = (() => {
  try {
    findTool('pdftotext');
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
})();

describe('PDFs through webwatch serve and the hosted JS SDK', { skip: missingTools }, () => {
  let printer: PdfPrinter;
  let site: TestServer;
  let served: ServingWebwatch;
  let client: Firecrawl;
  let price = '24.50';
  let priceList: Buffer;

  const printPriceList = async () =>
    (
      await printer.print(`<!doctype html><title>Prices</title><h1>Prices</h1>
    <p>The spade costs ${price} this week.</p><p style="break-before: page">Delivery takes two days.</p>`)
    ).pdf;

  before(async () => {
    printer = await PdfPrinter.open();
    priceList = await printPriceList();
    // No .pdf in the URL: the content type says what it is.
    const secret = encryptPdf(priceList, 'open sesame', 'owner');
    site = await startServer({
      '/prices': (_q, r) => void r.writeHead(200, { 'content-type': 'application/pdf' }).end(priceList),
      '/secret': (_q, r) => void r.writeHead(200, { 'content-type': 'application/pdf' }).end(secret),
      // docs.google.com, on loopback for the tests that point it there: an editor page and its PDF export.
      '/document/d/doc-1/edit': (_q, r) =>
        void r.writeHead(200, { 'content-type': 'text/html' }).end('<title>Prices - Google Docs</title><div id="root"></div><script>draw()</script>'),
      '/document/d/doc-1/export': (q, r) =>
        void (q.url?.endsWith('?format=pdf') ? r.writeHead(200, { 'content-type': 'application/pdf' }).end(priceList) : r.writeHead(400).end()),
    });
    served = await serveWebwatch();
    client = new Firecrawl({ apiKey: (await served.keys.create('acme', new Date())).key, apiUrl: served.origin });
  });
  after(async () => {
    await served?.stop();
    await site?.close();
    await printer?.close();
  });

  it('scrape: markdown, pages, blocks and numPages as the SDK types them, a credit a page', async () => {
    const document: Document = await client.scrape(`${site.origin}/prices`, {
      formats: ['markdown'],
      parsers: [{ type: 'pdf', mode: 'fast', pages: true, blocks: true, pageMarkers: true }],
    });
    assert.equal(document.markdown, '# Prices\n\nThe spade costs 24.50 this week.\n\n---\n\n<!-- page 2 -->\n\nDelivery takes two days.');
    assert.deepEqual(document.pages, [
      { pageNumber: 1, markdown: '# Prices\n\nThe spade costs 24.50 this week.' },
      { pageNumber: 2, markdown: 'Delivery takes two days.' },
    ]);
    const blocks: PdfPageBlocks[] = document.blocks ?? [];
    assert.deepEqual(
      blocks.map((page) => [page.pageNumber, page.status, page.items.map((item) => item.type)]),
      [
        [1, 'ok', ['title', 'text']],
        [2, 'ok', ['text']],
      ],
    );
    const [title] = blocks[0]!.items;
    assert.deepEqual(document.markdown!.slice(...title!.markdownSpan!), '# Prices');
    assert.equal(title!.bbox!.length, 4);
    assert.equal(typeof title!.confidence.layout, 'number');
    assert.equal(document.metadata?.numPages, 2);
    assert.equal(document.metadata?.creditsUsed, 2);
    assert.equal(document.metadata?.contentType, 'application/pdf');

    const file = await client.scrape(`${site.origin}/prices`, { formats: ['markdown'], parsers: [] });
    assert.deepEqual(Buffer.from(file.markdown!, 'base64'), priceList);
    assert.equal(file.metadata?.creditsUsed, 1);
  });

  it('an encrypted PDF is a failure of the target: 502 with the code and the reason', async () => {
    const response = await call<{ success: boolean; code: string; error: string }>(
      served,
      (await served.keys.create('acme', new Date())).key,
      'POST',
      '/scrape',
      { url: `${site.origin}/secret` },
    );
    assert.equal(response.status, 502);
    const body = response.body;
    assert.equal(body.success, false);
    assert.equal(body.code, 'SCRAPE_PDF_ENCRYPTED');
    assert.match(body.error, /encrypted and needs a password/);
  });

  it('a Google Docs URL: its PDF export, read as a PDF; sourceURL is the URL asked, url what was fetched', async () => {
    const restore = resolveToLoopback(['docs.google.com']);
    try {
      const asked = `http://docs.google.com:${new URL(site.origin).port}/document/d/doc-1/edit?usp=sharing`;
      const document = await client.scrape(asked, { formats: ['markdown'], parsers: [{ type: 'pdf', mode: 'fast' }] });
      assert.equal(document.markdown, '# Prices\n\nThe spade costs 24.50 this week.\n\nDelivery takes two days.');
      assert.equal(document.metadata?.sourceURL, asked);
      assert.equal(document.metadata?.url, `http://docs.google.com:${new URL(site.origin).port}/document/d/doc-1/export?format=pdf`);
      assert.equal(document.metadata?.numPages, 2);
    } finally {
      restore();
    }
  });

  it("a PDF whose pages cannot be read within the timeout: 408 at once, in the hosted API's words, not retried", async () => {
    const started = Date.now();
    const error = await client.scrape(`${site.origin}/prices`, { timeout: 1000, parsers: [{ type: 'pdf', mode: 'ocr' }] }).then(
      () => undefined,
      (e: unknown) => e as { status?: number; code?: string; message: string },
    );
    assert.equal(error?.status, 408);
    assert.equal(error?.code, 'SCRAPE_PDF_INSUFFICIENT_TIME_ERROR');
    assert.match(
      error?.message ?? '',
      /^Insufficient time to process PDF of 2 pages, which requires more processing time than your current timeout allows \(1000ms\): read by OCR, its pages need 1310ms at the least\. Please increase the timeout parameter in your scrape request to at least 6000ms\.$/,
    );
    assert.ok(Date.now() - started < 1000, `answered after ${Date.now() - started} ms`);
  });

  it('a monitor of a PDF: the first check sees it new, a changed price is a changed page with its diff', async () => {
    const monitor = await client.createMonitor({
      name: 'Price list',
      schedule: { cron: '0 * * * *' },
      targets: [{ type: 'scrape', urls: [`${site.origin}/prices`] }],
    });
    const finished = async (checkId: string) => {
      for (let i = 0; i < 100; i++) {
        const check = await client.getMonitorCheck(monitor.id, checkId);
        if (check.status !== 'running' && check.status !== 'queued') return check;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the check did not finish');
    };
    assert.equal((await finished((await client.runMonitor(monitor.id)).id)).summary.new, 1);
    assert.equal((await finished((await client.runMonitor(monitor.id)).id)).summary.same, 1);
    price = '26.00';
    priceList = await printPriceList();
    const changed = await finished((await client.runMonitor(monitor.id)).id);
    assert.equal(changed.summary.changed, 1);
    assert.match(changed.pages[0]!.diff?.text ?? '', /-The spade costs 24\.50 this week\.\n\+The spade costs 26\.00 this week\./);
  });
});
