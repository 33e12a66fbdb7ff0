/** The faster tokenizer builds the very tree htmlparser2's own does, on awkward HTML too. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import render from 'dom-serializer';
import type { AnyNode } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { MAX_DEPTH, MAX_ELEMENTS, parseHtml } from '../../src/engine/content/parse-html.js';
import type { Element } from 'domhandler';
import { convertPage } from '../../src/engine/scrape/convert.js';

/** The tree as data: types, names, attributes in order, text and comments, nesting. */
function shape(nodes: AnyNode[]): unknown[] {
  return nodes.map((node) => {
    if (node.type === 'text' || node.type === 'comment' || node.type === 'directive' || node.type === 'cdata') {
      return [node.type, 'data' in node ? node.data : undefined, 'children' in node ? shape(node.children) : undefined];
    }
    if ('attribs' in node) return [node.type, node.name, Object.entries(node.attribs), shape(node.children)];
    return [node.type, 'children' in node ? shape(node.children) : undefined];
  });
}

const same = (html: string) => {
  const expected = parseDocument(html);
  const { document: actual, truncated } = parseHtml(html);
  assert.equal(truncated, false);
  assert.deepEqual(shape(actual.children), shape(expected.children), html);
  assert.equal(render(actual), render(expected));
};

describe('parseHtml', () => {
  it('agrees with parseDocument on text, entities, attributes, comments and raw-text elements', () => {
    const cases = [
      '',
      'plain text only',
      'text & more &amp; &lt;b&gt; &#8217; &#x2014; &notanentity; &copy tail &',
      '<p class="a b" data-x=\'single "quoted"\' title="double \'quoted\' &amp; &quot;x&quot;" hidden disabled=plain>para</p>',
      '<div id="unterminated attribute',
      '<div title="ends at the end &amp',
      '<!-- a comment --><!----><!---><!-- with -- dashes --->after',
      '<!-- never closed',
      '<![CDATA[ data ]]> <!DOCTYPE html><?xml version="1.0"?>',
      '<script>if (a < b && c > d) { x = "</scr" + "ipt>"; }</script><style>a > b { color: red }</style>',
      '<script>never closed <b>bold</b>',
      '<title>A &amp; B <b>not a tag</b></title><textarea>x &lt; y</textarea><xmp><b>raw</b></xmp>',
      '<svg><title>icon</title><path d="M0 0"/></svg><math><mi>x</mi></math>',
      'a < b and c <3 d <> e </ f </> g <!x> h',
      '<p>one<p>two<li>three</li></ul></div></p>end',
      '<a href="https://example.com/?a=1&b=2&amp;c=3">link</a><img src=x.png alt="&quot;quoted&quot;"/>',
      '<div\n\tclass = "spaced"\n>ws</div><br/><br />',
      '\ufeffbom and ünïcödé — “quotes” 漢字 🙂 &nbsp;&#128578;',
      '<DIV CLASS="Upper" Data-X=1><P>Mixed</p></DiV><SCRIPT>x</SCRIPT><Svg><foreignObject><Title>t</Title></foreignObject></Svg>',
      '漢 <dİv İD="dotted capital" ſtyle="long s"><Ǆ>x</ǆ></dİv>',
    ];
    for (const html of cases) same(html);
  });

  it('agrees on random mixes of markup characters', () => {
    const pieces = [
      '<',
      '>',
      '&',
      '"',
      "'",
      '=',
      '/',
      '!',
      '-',
      ' ',
      '\n',
      'a',
      'p',
      'div',
      'DIV',
      'Li',
      'script',
      'title',
      'SVG',
      'amp;',
      '#39;',
      '<!--',
      '-->',
      '</',
      'x="',
      "Y='",
      'é',
      'İ',
      '漢',
    ];
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 2000; round++) {
      let html = '';
      for (let i = random(60); i >= 0; i--) html += pieces[random(pieces.length)];
      same(html);
    }
  });

  it('places elements past 512 levels beside the deepest, as Chromium does, so walks of the tree do not overflow', () => {
    const html = `${'<div>'.repeat(100_000)}deep text`;
    const { document, truncated } = parseHtml(html);
    assert.equal(truncated, false);
    let depth = 0;
    let node: Element | undefined = document.children[0] as Element;
    while (node) {
      depth++;
      node = node.children.find((child): child is Element => child.type === 'tag');
    }
    assert.equal(depth, MAX_DEPTH);
    // Nothing is lost: the elements beyond are there, empty, beside the deepest, and the text after them.
    assert.equal(render(document).split('<div>').length - 1, 100_000);
    assert.match(render(document), /deep text/);
    // A page within the limit is the stock tree.
    same(`${'<div>'.repeat(MAX_DEPTH - 1)}x`);
  });

  it('reads at most MAX_ELEMENTS elements of a page, and says so', () => {
    const { document, truncated } = parseHtml(`<p>first</p>${'<b>x</b>'.repeat(MAX_ELEMENTS + 10)}<p>never read</p>`);
    assert.equal(truncated, true);
    const rendered = render(document);
    assert.equal(rendered.split('<b>').length - 1 + 1, MAX_ELEMENTS);
    assert.match(rendered, /^<p>first<\/p>/);
    assert.doesNotMatch(rendered, /never read/);
  });

  it('a scrape of a page over the limit keeps what was read and warns, rather than ending the process', async () => {
    const body = Buffer.from(
      `<html><body><main><h1>Huge</h1><p>The start of a page with far too many elements.</p>${'<b>x</b>'.repeat(MAX_ELEMENTS + 1)}</main></body></html>`,
    );
    const content = await convertPage({ body, contentType: 'text/html', finalUrl: 'https://example.com/' }, { onlyMainContent: false }, ['markdown']);
    assert.match(content.markdown, /^# Huge\n\nThe start of a page/);
    assert.equal(content.warning, 'the page has more than 200,000 elements: only the first 200,000 were read');
  });

  it('converts 100,000 elements without a <body>, or left in an unclosed <head>, in one move rather than one at a time', { timeout: 60_000 }, async () => {
    // Moved node by node, each move searched the siblings: minutes for such a page. The bound is
    // many times what a slow machine needs.
    for (const page of [`${'<b>x</b> '.repeat(100_000)}<p>The end.</p>`, `<html><head><title>T</title>${'<b>x</b> '.repeat(100_000)}<p>The end.</p>`]) {
      const started = Date.now();
      const content = await convertPage({ body: Buffer.from(page), contentType: 'text/html', finalUrl: 'https://example.com/' }, { onlyMainContent: false }, [
        'markdown',
      ]);
      assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms`);
      assert.equal(content.markdown.split('**x**').length - 1, 100_000);
      assert.match(content.markdown, /The end\.$/);
    }
  });
});
