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
const pages = available
  ? readdirSync(CORPUS)
      .filter((name) => existsSync(`${CORPUS}${name}/source.html`))
      .sort()
  : [];

const words = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * Recall: share of the expected content's words found in the markdown; precision: share of the
 * markdown's words that are expected (as multisets, link targets left out).
 */
function overlap(markdown: string, expectedHtml: string): { recall: number; precision: number } {
  const ours = words(markdown.replace(/\]\([^)]*\)/g, ']'));
  const counts = new Map<string, number>();
  for (const word of ours) counts.set(word, (counts.get(word) ?? 0) + 1);
  const expected = words(load(expectedHtml).root().text());
  let found = 0;
  for (const word of expected) {
    const n = counts.get(word) ?? 0;
    if (n > 0) {
      found++;
      counts.set(word, n - 1);
    }
  }
  return { recall: expected.length === 0 ? 1 : found / expected.length, precision: ours.length === 0 ? 0 : found / ours.length };
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
      assert.ok(
        document.links!.every((link) => /^https?:\/\//.test(link)),
        `${name}: relative link`,
      );
    }
  });

  // A spread of layouts: clutter-named wrappers (videos-1), divs as paragraphs (royal-road),
  // comments and related posts inside the article's wrapper (wordpress), hidden blocks, definition lists.
  const spread = [
    'aclu',
    'bbc-1',
    'guardian-1',
    'lwn-1',
    'medium-2',
    'wikipedia',
    'dropbox-blog',
    'folha',
    'mozilla-1',
    'royal-road',
    'videos-1',
    'wordpress',
    'hidden-nodes',
    'archive-of-our-own',
  ];
  for (const name of spread) {
    it(`${name}: title and main content`, { skip: !pages.includes(name) && 'page missing' }, async () => {
      const expected = JSON.parse(readFileSync(`${CORPUS}${name}/expected-metadata.json`, 'utf8')) as { title?: string };
      const document = await scrapePage(name);
      if (expected.title) {
        const title = (document.metadata.title ?? '').replace(/\s+/g, ' ');
        assert.ok(title.includes(expected.title.replace(/\s+/g, ' ')) || expected.title.includes(title), `${name}: "${title}" vs "${expected.title}"`);
      }
      if (existsSync(`${CORPUS}${name}/expected.html`)) {
        const { recall, precision } = overlap(document.markdown!, readFileSync(`${CORPUS}${name}/expected.html`, 'utf8'));
        assert.ok(recall >= 0.8, `${name}: only ${(recall * 100).toFixed(0)} % of the main content's words`);
        assert.ok(precision >= 0.75, `${name}: only ${(precision * 100).toFixed(0)} % of the markdown's words are main content`);
      }
    });
  }
});
