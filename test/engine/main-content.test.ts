/** The main-content finder of onlyMainContent, and the converter's fallback on broken HTML. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { load } from 'cheerio/slim';
import { cleanHtml } from '../../src/engine/content/clean.js';
import { htmlToMarkdown } from '../../src/engine/content/markdown.js';
import { prepareForMarkdown, rewriteMaths } from '../../src/engine/content/markup.js';

const prose = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `<p>${topic} paragraph ${i}, with enough words, commas, and detail to read as prose rather than a caption.</p>`).join('');

function mainText(html: string): string {
  const $ = load(html);
  cleanHtml($, 'https://example.com/', { onlyMainContent: true, blockAds: true });
  return markdownOf($);
}

/** What convertPage does after cleaning. */
function markdownOf($: ReturnType<typeof load>): string {
  rewriteMaths($.root().toArray());
  prepareForMarkdown($.root().toArray());
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
  it('turns table parts outside a table into blocks instead of stray pipes', () => {
    const $ = load('<body><div><tr><td>a cell</td><td>b</td></tr><p>para</p></div></body>');
    cleanHtml($, 'https://example.com/', { onlyMainContent: false, blockAds: true });
    const markdown = markdownOf($);
    assert.ok(!markdown.includes('|'), markdown);
    assert.match(markdown, /a cell[\s\S]*b[\s\S]*para/);
  });

  it('survives malformed and hostile markup', () => {
    const inputs = [
      '<table><td><table><tr><td>x'.repeat(50),
      '<pre><code class="language-">`'.repeat(20),
      `<ul>${'<li><ol>'.repeat(200)}deep`,
      '<a href="javascript:alert(1)">x</a><img src=x onerror=alert(1)>',
      '\u0000\uFFFF<p>\uD800</p>',
    ];
    for (const input of inputs) assert.equal(typeof htmlToMarkdown(input, 'https://example.com/'), 'string');
  });

  it('fences code with the language from lang-x or from <pre>', () => {
    const $ = load('<body><pre class="lang-python"><code>print(1)</code></pre><pre class="language-rust"><code>fn main() {}</code></pre></body>');
    cleanHtml($, 'https://example.com/', { onlyMainContent: false, blockAds: true });
    const markdown = markdownOf($);
    assert.match(markdown, /```python\nprint\(1\)\n```/);
    assert.match(markdown, /```rust\nfn main\(\) \{\}\n```/);
  });

  it('uses the real source of lazy-loaded images', () => {
    const $ = load('<body><p>x</p><img alt="Lazy" src="data:image/gif;base64,R0lGOD" data-src="/real.png"></body>');
    cleanHtml($, 'https://example.com/', { onlyMainContent: false, blockAds: true });
    assert.match(markdownOf($), /!\[Lazy\]\(https:\/\/example\.com\/real\.png\)/);
  });
});
