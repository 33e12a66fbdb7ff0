/** The main-content finder of onlyMainContent, and the converter's fallback on broken HTML. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { load } from 'cheerio/slim';
import { cleanHtml } from '../../src/engine/content/clean.js';
import { htmlToMarkdown } from '../../src/engine/content/markdown.js';
import { prepareForMarkdown, rewriteMaths, serializeForMarkdown } from '../../src/engine/content/markup.js';

const prose = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `<p>${topic} paragraph ${i}, with enough words, commas, and detail to read as prose rather than a caption.</p>`).join('');

function mainText(html: string): string {
  const $ = load(html);
  cleanHtml($.root()[0]!, 'https://example.com/', { onlyMainContent: true, blockAds: true });
  return markdownOf($);
}

/** What convertPage does after cleaning. */
function markdownOf($: ReturnType<typeof load>): string {
  rewriteMaths($.root().toArray());
  prepareForMarkdown($.root().toArray());
  return htmlToMarkdown(serializeForMarkdown($('body')[0]!.children), 'https://example.com/');
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

  it('takes a single paragraph of prose as the article, without the links around it', () => {
    const markdown = mainText(`<body><div class="box"><a href="/one">Previous post</a> <a href="/two">Next post</a> <a href="/three">Archive</a></div>
      <div class="entry"><h2>Club night</h2><p>The club reopens on Friday at nine and the first band starts an hour later than it used to do last year</p></div>
      <div class="box"><a href="/contact">Contact</a> <a href="/imprint">Imprint</a> <a href="/privacy">Privacy</a></div></body>`);
    assert.match(markdown, /The club reopens on Friday/);
    for (const gone of ['Previous post', 'Imprint']) assert.ok(!markdown.includes(gone), markdown);
  });

  it('reads no words into generated ids such as e1ad, and still drops a block named ad', () => {
    const markdown = mainText(`<body><article>${prose('Profiling', 3)}
      <p id="e1ad">With the inspector module you can do more than profiling, here is a list of what else:</p>
      <ul><li>memory dumps</li><li>code coverage</li></ul>${prose('Warnings', 2)}
      <div class="ad-box"><p>Buy the premium plan today, it is cheaper than ever and comes with a free mug.</p></div></article></body>`);
    assert.match(markdown, /With the inspector module/);
    assert.ok(!markdown.includes('premium plan'), markdown);
  });

  it('keeps a short page whole when nothing looks like an article', () => {
    assert.equal(mainText('<body><p>Just one line.</p></body>'), 'Just one line.');
  });
});

/** Page furniture the patterns below share: a site header, menu and footer around the content. */
const site = (inner: string) => `<body><header class="site-header"><a href="/">Site</a><nav><a href="/a">A</a> <a href="/b">B</a></nav></header>
  <div id="page">${inner}</div><footer><p>Copyright notice of the site, with its address, its terms, and its privacy policy.</p></footer></body>`;
const comments = (n: number) =>
  `<section class="comments"><h2>${n} comments</h2>${Array.from({ length: n }, (_, i) => `<div class="comment"><p>Reader ${i} wrote a long reply, agreeing with some points, disputing others, and adding an anecdote of their own.</p><p>They went on, at length, about the details.</p></div>`).join('')}</section>`;
const teasers = (n: number) =>
  `<div class="more-stories"><h2>More from the site</h2>${Array.from({ length: n }, (_, i) => `<div class="card"><h3><a href="/story-${i}">Another story number ${i}</a></h3><p>A teaser for that story, one sentence, to tempt a click.</p></div>`).join('')}</div>`;

describe('main content patterns', () => {
  it('1. keeps the article wrapper even when its class says share or sidebar', () => {
    const markdown = mainText(
      site(`<div class="l-sidebar-fixed"><div id="share-root" class="post-share-wrapper"><h1>The headline</h1>${prose('Wrapped', 6)}</div></div>
      <div class="sidebar"><p>About this blog: a sidebar paragraph, long enough to be read as prose, about the author.</p></div>`),
    );
    assert.match(markdown, /# The headline/);
    assert.match(markdown, /Wrapped paragraph 0[\s\S]*Wrapped paragraph 5/);
    assert.ok(!markdown.includes('About this blog'), markdown);
    assert.ok(!markdown.includes('Copyright'), markdown);
  });

  it('1. scores a post inside a wrapper named like a sidebar that holds most of the page', () => {
    const markdown = mainText(`<body><div class="sidebar_content"><div class="post hentry"><h1>Hunter found</h1>${prose('Post', 8)}</div></div>
      <div class="notice"><h4>Write to us</h4><p>Notice: letters, mails, calls, faxes, notes, cards, posts, texts, memos, wires, telexes, pigeons, all welcome.</p></div></body>`);
    assert.match(markdown, /Post paragraph 0[\s\S]*Post paragraph 7/);
    assert.ok(!markdown.includes('pigeons'), markdown);
  });

  it('2. scores a post written as bullet lists above its comment section', () => {
    const items = Array.from({ length: 8 }, (_, i) => `<li>Point ${i}: a full sentence of advice, with a reason, an example, and a caveat.</li>`).join('');
    const markdown = mainText(
      site(`<main id="main"><div class="post"><h1>Eight tips</h1><ul>${items}</ul><ul>${items.replace(/Point/g, 'Bonus')}</ul></div>${comments(12)}</main>`),
    );
    assert.match(markdown, /- Point 0[\s\S]*- Bonus 7/);
    assert.ok(!markdown.includes('Reader 0'), markdown);
  });

  it("3. drops sidebars, comments, teaser feeds and share lists inside the site's main wrapper", () => {
    const share =
      '<ul class="share-list"><li><a href="https://twitter.example/share">Share on Twitter</a></li><li><a href="https://facebook.example/share">Share on Facebook</a></li></ul>';
    const markdown = mainText(
      site(`<main id="main-content"><article><h1>The story</h1>${prose('Story', 6)}${share}</article>
      <aside><h3>Popular</h3><p>A sidebar blurb that reads like prose, with commas, words, and a full stop.</p></aside>
      ${teasers(4)}${comments(3)}</main>`),
    );
    assert.match(markdown, /Story paragraph 0[\s\S]*Story paragraph 5/);
    for (const gone of ['Share on', 'sidebar blurb', 'Another story', 'More from the site', 'Reader 0', 'comments'])
      assert.ok(!markdown.includes(gone), `${gone} in:\n${markdown}`);
  });

  it('4. widens to the whole article: its heading, a second text block and short paragraphs, not its byline', () => {
    const markdown = mainText(
      site(`<div class="entry"><h1>Whole article</h1><p class="byline">By A. Writer</p>
      <div class="intro">${prose('Intro', 1)}</div><div class="body">${prose('Body', 6)}</div><p>Short closing line.</p></div>${teasers(3)}`),
    );
    for (const kept of ['# Whole article', 'Intro paragraph 0', 'Body paragraph 5', 'Short closing line.'])
      assert.ok(markdown.includes(kept), `${kept} missing in:\n${markdown}`);
    assert.ok(!markdown.includes('Another story'), markdown);
    assert.ok(!markdown.includes('By A. Writer'), markdown);
  });

  it('5. drops content hidden by inline styles, the hidden attribute and aria-hidden', () => {
    const html = site(`<article>${prose('Seen', 4)}<p style="display: none">Invisible paragraph, hidden by display none, never shown.</p>
      <div style="color: red; visibility:hidden">Invisible block hidden by visibility.</div><p hidden>Invisible by attribute.</p>
      <div aria-hidden="true"><p>Invisible to assistive technology, a duplicated block.</p></div></article>`);
    const markdown = mainText(html);
    assert.match(markdown, /Seen paragraph 3/);
    assert.ok(!markdown.includes('Invisible'), markdown);
    // The whole page, on request, is the page as written.
    const $ = load(html);
    cleanHtml($.root()[0]!, 'https://example.com/', { onlyMainContent: false, blockAds: true });
    assert.match(markdownOf($), /Invisible by attribute/);
  });

  it("5. drops PHP's error lines printed into the page, keeps one quoted in code and a warning of the article's own", () => {
    const error = (kind: string, n: number) =>
      `<br />\n<b>${kind}</b>:  Creating default object from empty value in <b>/www/htdocs/site/wp-includes/classes.php</b> on line <b>${n}</b><br />\n`;
    const html = `<html><body>${error('Warning', 407)}${error('Strict Standards', 12)}
      <article><h1>Bees</h1>${prose('Bees', 3)}
        <p><b>Warning</b>: do not open the hive in the rain, the bees dislike it, and so will you.</p>
        <pre>PHP Warning: x in /var/www/index.php on line 5
<b>Deprecated</b>: preg_replace(): The /e modifier is deprecated in <b>/var/www/f.php</b> on line <b>82</b><br /></pre></article>
      <ul class="cat">${error('Deprecated', 82)}<li><a href="/c/1">Category</a></li></ul></body></html>`;
    const markdown = mainText(html);
    assert.match(markdown, /Bees paragraph 2/);
    assert.match(markdown, /do not open the hive/);
    assert.match(markdown, /The \/e modifier is deprecated/, 'quoted in <pre>, the line stays');
    assert.doesNotMatch(markdown, /Creating default object|Strict Standards|classes\.php/);
    // The whole page, on request, is the page as the server sent it.
    const $ = load(html);
    cleanHtml($.root()[0]!, 'https://example.com/', { onlyMainContent: false, blockAds: true });
    assert.match(markdownOf($), /Creating default object/);
  });

  it('5. keeps a page whose body a script reveals (the hidden block holds most of the text)', () => {
    assert.match(mainText(`<body><div id="app" style="display:none">${prose('Revealed', 5)}</div></body>`), /Revealed paragraph 4/);
  });

  it('6. writes markdown without leaked tags: headings in links, dl, sup, br, details, layout tables', () => {
    const html = `<body><article>${prose('Text', 3)}
      <a href="/next"><h2>Linked heading</h2></a>
      <dl><dt>Term</dt><dd>Its definition, <b>bold</b> in part.</dd></dl>
      <p>E = mc<sup>2</sup>, H<sub>2</sub>O, <u>underlined</u>, <mark>marked</mark>, <ins>inserted</ins>.</p>
      <h3>Broken<br>heading</h3>
      <details><summary>More</summary><p>Details text.</p></details>
      <address>1 Main Street</address>
      <table><tr><td><table><tr><th>Name</th><th>Count</th></tr><tr><td>a<br>b</td><td><ul><li>x</li><li>y</li></ul></td></tr></table></td><td><p>Layout cell text.</p></td></tr></table>
      <p><img src="/i.png" alt="&lt;span style=&quot;x&quot;&gt;Caption&lt;/span&gt;"></p>
      </article></body>`;
    const $ = load(html);
    cleanHtml($.root()[0]!, 'https://example.com/', { onlyMainContent: false, blockAds: true });
    const markdown = markdownOf($);
    assert.doesNotMatch(markdown.replace(/```[\s\S]*?```/g, ''), /<\/?[a-z][a-z0-9]*[\s>/]/i, markdown);
    assert.match(markdown, /## \[Linked heading\]\(https:\/\/example\.com\/next\)/);
    assert.match(markdown, /\*\*Term\*\*\s+Its definition, \*\*bold\*\* in part\./);
    assert.match(markdown, /E = mc2, H2O, underlined, marked, inserted\./);
    assert.match(markdown, /### Broken heading/);
    assert.match(markdown, /\| a; b \| x; y \|/);
    assert.match(markdown, /Layout cell text\./);
    assert.match(markdown, /!\[Caption\]/);
  });

  it('6. writes a formula once, as TeX when the page has it', () => {
    const formula = (tex: string) =>
      `<span class="mwe-math-element"><span class="mwe-math-mathml-inline" style="display: none;"><math xmlns="http://www.w3.org/1998/Math/MathML" alttext="{\\displaystyle ${tex}}"><semantics><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow><annotation encoding="application/x-tex">{\\displaystyle ${tex}}</annotation></semantics></math></span><img src="/math.svg" class="mwe-math-fallback-image-inline" aria-hidden="true" alt="{\\displaystyle ${tex}}"></span>`;
    const markdown = mainText(`<body><article>${prose('Maths', 3)}<p>The square ${formula('x^{2}')} grows, as does ${formula('y^{3}')}.</p>
      <p>Plain MathML: <math><mi>a</mi><mo>+</mo><mi>b</mi></math>.</p></article></body>`);
    assert.equal(markdown.match(/x\^\{2\}/g)?.length, 1, markdown);
    assert.match(markdown, /The square \$x\^\{2\}\$ grows, as does \$y\^\{3\}\$\./);
    assert.match(markdown, /Plain MathML: a\+b\./);
    assert.ok(!markdown.includes('math.svg'), markdown);
  });
});

describe('markdown conversion of broken HTML', () => {
  it('turns table parts outside a table into blocks instead of stray pipes', () => {
    const $ = load('<body><div><tr><td>a cell</td><td>b</td></tr><p>para</p></div></body>');
    cleanHtml($.root()[0]!, 'https://example.com/', { onlyMainContent: false, blockAds: true });
    const markdown = markdownOf($);
    assert.ok(!markdown.includes('|'), markdown);
    assert.match(markdown, /a cell[\s\S]*b[\s\S]*para/);
  });

  it("writes text in Unicode's composed form without soft hyphens, however the page spelled it", () => {
    // "Café" with a combining acute accent, the Bengali letter YYA precomposed (U+09DF), whose
    // composed form is YA with a nukta, and words with hyphenation hints, raw and as entities.
    const $ = load('<body><p>Cafe\u0301 crème, \u09DF, Wein\u00adge\u00adschich&shy;te</p></body>');
    cleanHtml($.root()[0]!, 'https://example.com/', { onlyMainContent: false, blockAds: true });
    const markdown = markdownOf($);
    assert.equal(markdown, 'Caf\u00e9 crème, \u09AF\u09BC, Weingeschichte');
  });

  it('writes a link inside a word or a sentence without a space the page does not show', () => {
    const $ = load(`<body><p>中文<a href="/a">链接</a>中文。</p><p>Read <a href="/b">here</a>, or (<a href="/c">there</a>); un<a href="/d">link</a>ed.</p>
      <ul><li><a href="/e">Item</a></li></ul><p>空<a href="/f"></a>白</p><p>An<a name="x"> anchor</a> and <a href="/g"><img src="/i.png" alt="a picture"></a>.</p></body>`);
    cleanHtml($.root()[0]!, 'https://example.com/', { onlyMainContent: false, blockAds: true });
    const markdown = markdownOf($);
    assert.match(markdown, /^中文\[链接\]\(https:\/\/example\.com\/a\)中文。$/m);
    assert.match(
      markdown,
      /^Read \[here\]\(https:\/\/example\.com\/b\), or \(\[there\]\(https:\/\/example\.com\/c\)\); un\[link\]\(https:\/\/example\.com\/d\)ed\.$/m,
    );
    assert.match(markdown, /^- \[Item\]\(https:\/\/example\.com\/e\)$/m);
    assert.match(markdown, /^空白$/m);
    assert.match(
      markdown,
      /^An anchor and \[!\[a picture\]\(https:\/\/example\.com\/i\.png\)\]\(https:\/\/example\.com\/g\)\.$/m,
      'a named anchor is text, and its own space stays',
    );
    assert.ok(!markdown.includes('\ufdd0'), 'no mark is left');
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

  it('adds nothing of its own to the start or the text of a page, ASCII or not', () => {
    assert.equal(htmlToMarkdown('Plain text first, <b>bold</b> after', 'https://example.com/'), 'Plain text first, **bold** after');
    assert.equal(htmlToMarkdown('<h1>Café</h1><p>naïve — fine</p>', 'https://example.com/'), '# Café\n\nnaïve — fine');
    assert.equal(htmlToMarkdown('', 'https://example.com/'), '');
  });

  it('fences code with the language from lang-x or from <pre>', () => {
    const $ = load('<body><pre class="lang-python"><code>print(1)</code></pre><pre class="language-rust"><code>fn main() {}</code></pre></body>');
    cleanHtml($.root()[0]!, 'https://example.com/', { onlyMainContent: false, blockAds: true });
    const markdown = markdownOf($);
    assert.match(markdown, /```python\nprint\(1\)\n```/);
    assert.match(markdown, /```rust\nfn main\(\) \{\}\n```/);
  });

  it('uses the real source of lazy-loaded images', () => {
    const $ = load('<body><p>x</p><img alt="Lazy" src="data:image/gif;base64,R0lGOD" data-src="/real.png"></body>');
    cleanHtml($.root()[0]!, 'https://example.com/', { onlyMainContent: false, blockAds: true });
    assert.match(markdownOf($), /!\[Lazy\]\(https:\/\/example\.com\/real\.png\)/);
  });
});

describe('main content whose only prose is captions', () => {
  it('keeps the captions and does not fail on the short line before them', () => {
    const caption = (n: number) =>
      `<figure><img src="/p${n}.jpg" alt=""><figcaption>A long caption number ${n} that runs on as prose does, with enough words in it to read as a paragraph of the article, and then some more words, to be sure.</figcaption></figure>`;
    const markdown = mainText(`<body><article><p>Short line</p>${caption(1)}${caption(2)}</article></body>`);
    assert.match(markdown, /A long caption number 1/);
    assert.match(markdown, /A long caption number 2/);
  });
});
