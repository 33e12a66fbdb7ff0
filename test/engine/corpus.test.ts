/**
 * Real saved pages (../shared/corpus/pages) served from 127.0.0.1: every page scrapes without
 * failing, and for a spread of sites the title and the main content come out right.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { load } from 'cheerio/slim';
import { scrape } from '../../src/engine/scrape/scrape.js';
import { startServer, type TestServer } from '../helpers/server.js';

const CORPUS = fileURLToPath(new URL('../../../../shared/corpus/pages/', import.meta.url));
const available = existsSync(CORPUS);
const pages = available ? readdirSync(CORPUS).filter((name) => existsSync(`${CORPUS}${name}/source.html`)).sort() : [];

const words = (text: string) => text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Share of the expected content's words found in the markdown (as multisets). */
function recall(markdown: string, expectedHtml: string): number {
  const counts = new Map<string, number>();
  for (const word of words(markdown.replace(/\]\([^)]*\)/g, ']'))) counts.set(word, (counts.get(word) ?? 0) + 1);
  const expected = words(load(expectedHtml).root().text());
  let found = 0;
  for (const word of expected) {
    const n = counts.get(word) ?? 0;
    if (n > 0) {
      found++;
      counts.set(word, n - 1);
    }
  }
  return expected.length === 0 ? 1 : found / expected.length;
}

describe('the saved corpus', { skip: !available && 'the corpus is not beside the project' }, () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({}, (request, response) => {
      const name = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname.split('/')[1] ?? '');
      if (!pages.includes(name)) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(readFileSync(`${CORPUS}${name}/source.html`));
    });
  });
  after(() => server.close());
  const context = { version: 't', now: () => new Date() };
  const scrapePage = (name: string) => scrape({ url: `${server.origin}/${encodeURIComponent(name)}/`, options: { formats: ['markdown', 'links'] } }, context);

  it('scrapes every page without failing, with markdown and absolute links', async () => {
    assert.ok(pages.length >= 50, `expected the corpus, found ${pages.length} pages`);
    for (const name of pages) {
      const document = await scrapePage(name);
      assert.ok(document.markdown!.length > 0, `${name}: empty markdown`);
      assert.ok(document.links!.every((link) => /^https?:\/\//.test(link)), `${name}: relative link`);
    }
  });

  for (const name of ['aclu', 'bbc-1', 'guardian-1', 'lwn-1', 'medium-2', 'wikipedia', 'dropbox-blog', 'hukumusume', 'folha', 'mozilla-1']) {
    it(`${name}: title and main content`, { skip: !pages.includes(name) && 'page missing' }, async () => {
      const expected = JSON.parse(readFileSync(`${CORPUS}${name}/expected-metadata.json`, 'utf8')) as { title?: string };
      const document = await scrapePage(name);
      if (expected.title) {
        const title = (document.metadata.title ?? '').replace(/\s+/g, ' ');
        assert.ok(title.includes(expected.title.replace(/\s+/g, ' ')) || expected.title.includes(title), `${name}: "${title}" vs "${expected.title}"`);
      }
      if (existsSync(`${CORPUS}${name}/expected.html`)) {
        const share = recall(document.markdown!, readFileSync(`${CORPUS}${name}/expected.html`, 'utf8'));
        assert.ok(share >= 0.8, `${name}: only ${(share * 100).toFixed(0)} % of the main content's words`);
      }
    });
  }
});
