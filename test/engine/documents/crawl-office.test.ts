/** A crawl reads the documents a site links as it reads its pages: a DOCX and a workbook among them. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { documentToolsMissing } from '../../helpers/documents.js';
import { tempDir } from '../../helpers/files.js';
import { run } from '../../helpers/io.js';
import { html, startServer, type TestServer } from '../../helpers/server.js';

describe('crawling a site of documents', { skip: documentToolsMissing }, () => {
  let server: TestServer;
  before(async () => {
    const terms = execFileSync('pandoc', ['-f', 'markdown', '-t', 'docx', '-o', '-'], { input: '# Terms of supply\n\nDelivery within ten days.\n' });
    const prices = execFileSync('pandoc', ['-f', 'markdown', '-t', 'odt', '-o', '-'], { input: '# Tender notice\n\nBids close on Friday.\n' });
    const send = (body: Buffer, type: string) => (_request: unknown, response: ServerResponse) =>
      void response.writeHead(200, { 'content-type': type }).end(body);
    server = await startServer({
      '/': html('<main><h1>Documents</h1><p><a href="/terms.docx">Terms</a> and the <a href="/files/notice">tender</a>.</p></main>'),
      '/terms.docx': send(terms, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
      // Named by nothing: the bytes say it is an ODT.
      '/files/notice': send(prices, 'application/octet-stream'),
    });
  });
  after(() => server.close());

  it('follows the links to documents and reads each as markdown', async () => {
    const crawled = await run(['crawl', `${server.origin}/`, '--json', '--limit', '10', '--sitemap', 'skip', '--ignore-robots-txt'], {
      env: { WEBWATCH_HOME: tempDir() },
    });
    assert.equal(crawled.code, 0, crawled.stderr);
    const pages = crawled.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { data: { markdown?: string; metadata: { sourceURL: string } } }).data);
    const byPath = new Map(pages.map((page) => [new URL(page.metadata.sourceURL).pathname, page.markdown ?? '']));
    assert.match(byPath.get('/terms.docx') ?? '', /# Terms of supply[\s\S]*Delivery within ten days\./);
    assert.match(byPath.get('/files/notice') ?? '', /# Tender notice[\s\S]*Bids close on Friday\./);
  });
});
