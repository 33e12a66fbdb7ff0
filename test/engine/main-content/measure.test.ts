/**
 * Step 1 of the main-content finder: which blocks are paragraphs (own inline text, few links),
 * what is measured of each element (text, links, prose, teaser headings), and what an element's
 * tag, role and class words flag it as.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isProse, measurePage, namedContent } from '../../../src/engine/content/main-content/measure.js';
import { body, byId, prose, sentences } from './page.js';

const sentence = 'A line of text long enough to be a paragraph';

describe('main content, step 1: paragraphs and measures', () => {
  it('takes a block with enough inline text of its own as a paragraph, be it a <p>, a list item, a cell or a <div>', () => {
    const root = body(`<p id="p">${sentence}</p><ul><li id="li">${sentence}</li></ul><table><tr><td id="td">${sentence}</td></tr></table>
      <div id="div">${sentence}</div><div id="short">Too short to count</div><h2 id="h2">${sentence}</h2>`);
    const measures = measurePage(root);
    for (const id of ['p', 'li', 'td', 'div']) assert.equal(measures.isParagraph(byId(root, id)), true, id);
    assert.equal(measures.isParagraph(byId(root, 'short')), false, 'under 25 characters');
    assert.equal(measures.isParagraph(byId(root, 'h2')), false, 'a heading');
  });

  it("counts only a block's own inline text, not that of the blocks inside it", () => {
    const root = body(`<div id="outer">Short lead<p id="inner">${sentence}</p></div>`);
    const measures = measurePage(root);
    assert.deepEqual(measures.inline(byId(root, 'outer')), { length: 10, linkLength: 0, commas: 0 });
    assert.equal(measures.isParagraph(byId(root, 'outer')), false);
    assert.equal(measures.textLength(byId(root, 'outer')), 10 + sentence.length);
    assert.equal(measures.isParagraph(byId(root, 'inner')), true);
  });

  it('takes a block that is mostly links as navigation, not a paragraph', () => {
    const root = body(`<p id="links"><a href="/a">A link whose text is long enough to count</a> and more</p>
      <p id="prose">A paragraph with <a href="/a">a link</a> in it, mostly words of its own</p>`);
    const measures = measurePage(root);
    assert.equal(measures.isParagraph(byId(root, 'links')), false);
    assert.equal(measures.isParagraph(byId(root, 'prose')), true);
    assert.ok(measures.linkDensity(byId(root, 'links')) > 0.5);
  });

  it('reads a named anchor without href as text, not a link', () => {
    const root = body(`<p id="p"><a name="part-2">${sentence}</a></p>`);
    const measures = measurePage(root);
    assert.equal(measures.linkTextLength(byId(root, 'p')), 0);
    assert.equal(measures.isParagraph(byId(root, 'p')), true);
  });

  it('counts a run of spaces as one character, and Latin, full-width and ideographic commas', () => {
    const root = body('<p id="p">one,   two，three、four\n\n  five</p>');
    assert.deepEqual(measurePage(root).inline(byId(root, 'p')), { length: 'one, two，three、four five'.length, linkLength: 0, commas: 3 });
  });

  it('counts the prose inside a block, leaving out the prose of flagged blocks below it', () => {
    const root = body(`<div id="a">${prose('Kept', 2)}<div class="sidebar">${prose('Side', 1)}</div></div>`);
    const measures = measurePage(root);
    assert.equal(measures.prose(byId(root, 'a')), sentences('Kept', 0).length + sentences('Kept', 1).length);
  });

  it('leaves the links of a flagged block with 100 characters of link text out of the density around it', () => {
    const links = Array.from({ length: 6 }, (_, i) => `<a href="/s${i}">Share this story number ${i}</a>`).join(' ');
    const root = body(`<div id="a">${prose('Story', 1)}<div class="share-bar">${links}</div></div>`);
    const measures = measurePage(root);
    const a = byId(root, 'a');
    assert.ok(measures.linkDensity(a) > 0.5);
    assert.equal(measures.unflaggedLinkDensity(a), 0);
  });

  it('counts the headings that link to another page, the mark of teaser cards', () => {
    const root = body(`<div id="cards"><h3><a href="/one">The first story of the day</a></h3><p>Teaser.</p>
      <h3><a href="#top">Back to the top of the page</a></h3><h3>A heading without a link at all</h3></div>`);
    assert.equal(measurePage(root).of(byId(root, 'cards')).linkHeadings, 1);
  });

  it('flags page chrome, comments and clutter by tag, role and class words', () => {
    const root = body(`<nav id="nav">x</nav><div id="role" role="navigation">x</div><div id="menu" class="main-menu">x</div>
      <div id="comments" class="commentList">x</div><div id="share" class="sharedaddy">x</div><div id="ad" class="ad-box">x</div>
      <form id="form">x</form><div id="plain" class="story">x</div>`);
    const measures = measurePage(root);
    const flags = Object.fromEntries(['nav', 'role', 'menu', 'comments', 'share', 'ad', 'form', 'plain'].map((id) => [id, measures.flag(byId(root, id))]));
    assert.deepEqual(flags, {
      nav: 'chrome',
      role: 'chrome',
      menu: 'chrome',
      comments: 'comments',
      share: 'clutter',
      ad: 'clutter',
      form: 'chrome',
      plain: undefined,
    });
  });

  it("does not flag words that only start like a flag, generated hashes, an article behind a paywall, or a heading's anchor id", () => {
    const root = body(`<div id="commentary" class="commentary">x</div><div id="hash" class="css-1ad3f0 e1ad">x</div>
      <div id="paywalled" class="article isPaywall">x</div><div id="paywall" class="paywall">x</div>
      <h2 id="nav_the_last_step">The last step</h2>`);
    const measures = measurePage(root);
    assert.equal(measures.flag(byId(root, 'commentary')), undefined);
    assert.equal(measures.flag(byId(root, 'hash')), undefined);
    assert.equal(measures.flag(byId(root, 'paywalled')), undefined);
    assert.equal(measures.flag(byId(root, 'paywall')), 'clutter');
    assert.equal(measures.flag(byId(root, 'nav_the_last_step')), undefined);
  });

  it('flags a block with a close button of its own as lying over the page', () => {
    const root = body(`<div id="notice"><button class="btn-close">Close</button><p>${sentence}</p></div><div id="article"><p>${sentence}</p></div>`);
    const measures = measurePage(root);
    assert.equal(measures.flag(byId(root, 'notice')), 'clutter');
    assert.equal(measures.flag(byId(root, 'article')), undefined);
  });

  it('tells a block named as the content, and a paragraph of prose from a short one or a list item', () => {
    const root = body(`<div id="entry" class="entry-content"><p id="long">${'Words and more words, '.repeat(6)}</p><p id="short">${sentence}</p></div>
      <article id="article"></article><div id="micro" itemprop="articleBody"></div><div id="other" class="widget"></div><ul><li id="li">${'Words and more words, '.repeat(6)}</li></ul>`);
    const measures = measurePage(root);
    for (const id of ['entry', 'article', 'micro']) assert.equal(namedContent(byId(root, id), measures), true, id);
    assert.equal(namedContent(byId(root, 'other'), measures), false);
    assert.equal(isProse(byId(root, 'long'), measures), true);
    assert.equal(isProse(byId(root, 'short'), measures), false, 'under 100 characters');
    assert.equal(isProse(byId(root, 'li'), measures), false, 'a list item');
  });
});
