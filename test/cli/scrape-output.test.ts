/** Documents as text: the formats an API returns that the local engine does not. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ScrapeDocument } from '../../src/engine/scrape/document.js';
import { documentsText, formatText } from '../../src/cli/scrape-output.js';

const metadata = { sourceURL: 'https://a.example/', url: 'https://a.example/', statusCode: 200, scrapeId: 's', cacheState: 'miss' as const, creditsUsed: 1 };

describe('formats as text', () => {
  it('prints structured formats as indented JSON, the question format from answer, change tracking as status and diff', () => {
    const document = {
      metadata,
      json: { price: 10 },
      answer: 'Yes.',
      changeTracking: {
        previousScrapeAt: '2026-11-20T12:00:00.000Z',
        changeStatus: 'changed',
        visibility: 'visible',
        diff: { text: '--- previous.md\n+++ current.md\n@@ -1 +1 @@\n-a\n+b\n', json: {} },
      },
    } as unknown as ScrapeDocument;
    assert.equal(formatText(document, 'json'), '{\n  "price": 10\n}');
    assert.equal(formatText(document, 'question'), 'Yes.');
    assert.equal(formatText(document, 'changeTracking'), 'changed since 2026-11-20T12:00:00.000Z\n\n--- previous.md\n+++ current.md\n@@ -1 +1 @@\n-a\n+b');
    assert.equal(formatText(document, 'summary'), '', 'a format the document lacks is empty');
  });

  it('prints changeTracking json mode as the changed fields, before the markdown lines', () => {
    const document = {
      metadata,
      changeTracking: {
        previousScrapeAt: null,
        changeStatus: 'changed',
        visibility: 'visible',
        json: { plans: { old: [10], new: [12] }, note: { old: null, new: 'new' } },
      },
    } as unknown as ScrapeDocument;
    assert.equal(formatText(document, 'changeTracking'), 'changed\n\n-plans: [10]\n+plans: [12]\n+note: new');
  });

  it('leaves bytes out only when other formats are asked for', () => {
    const pages = [{ url: 'https://a.example/', document: { metadata, markdown: '# A', rawBase64: 'QQ==' } as ScrapeDocument }];
    assert.deepEqual(documentsText(pages, ['rawBase64']), { text: 'QQ==', leftOut: [] });
    assert.deepEqual(documentsText(pages, ['markdown', 'rawBase64']), { text: '<!-- markdown -->\n\n# A', leftOut: ['rawBase64'] });
  });
});
