/** The main-content finder of onlyMainContent, and the converter's fallback on broken HTML. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { load } from 'cheerio/slim';
import { cleanHtml } from '../../src/engine/content/clean.js';
import { htmlToMarkdown } from '../../src/engine/content/markdown.js';

const prose = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `<p>${topic} paragraph ${i}, with enough words, commas, and detail to read as prose rather than a caption.</p>`).join('');

function mainText(html: string): string {
  const $ = load(html);
  cleanHtml($, 'https://example.com/', { onlyMainContent: true, blockAds: true });
  return htmlToMarkdown($('body').html() ?? '', 'https://example.com/');
}

describe('main content', () => {
  it('keeps an article split over sibling sections and drops teaser blocks around it', () => {
    const markdown = mainText(`<body><div class="layout">
      <div class="col"><section>${prose('Story', 4)}</section><section>${prose('Continued', 4)}</section></div>
      <div class="more"><h3>More stories</h3><ul>${Array.from({ length: 8 }, (_, i) => `<li><a href="/s${i}">Another headline number ${i} that is a link</a></li>`).join('')}</ul></div>
      </div></body>`);
    assert.match(markdown, /Story paragraph 0/);
    assert.match(markdown, /Continued paragraph 3/);
    assert.ok(!markdown.includes('More stories'));
    assert.ok(!markdown.includes('Another headline'));
  });

  it('prefers prose over a long list of references', () => {
    const references = `<ol class="refs">${Array.from({ length: 40 }, (_, i) => `<li>Author ${i}, Title, Journal, Volume, Pages, Year, Publisher, City.</li>`).join('')}</ol>`;
    const markdown = mainText(`<body><div id="text">${prose('Body', 6)}</div>${references}</body>`);
    assert.match(markdown, /Body paragraph 5/);
  });

  it('keeps a short page whole when nothing looks like an article', () => {
    assert.equal(mainText('<body><p>Just one line.</p></body>'), 'Just one line.');
  });
});

describe('markdown conversion of broken HTML', () => {
  it('falls back to the text instead of failing', () => {
    assert.equal(htmlToMarkdown('<tr><td>a cell</td><td>b</td></tr><p>para</p>', 'https://example.com/'), 'a cell\n\nb\n\npara');
  });
});
