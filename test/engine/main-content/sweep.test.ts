/**
 * Step 5 of the main-content finder: inside what is kept, chrome, forms, comments, clutter,
 * link lists, teaser feeds and cards, promotion boxes and the article's asides go, never the
 * core or what holds it; a page without a core is swept whole, keeping its link lists and, when
 * the sweep would leave too little, all its text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseCore } from '../../../src/engine/content/main-content/core.js';
import { measurePage } from '../../../src/engine/content/main-content/measure.js';
import { scoreContainers } from '../../../src/engine/content/main-content/score.js';
import { sweepContent, sweepPage } from '../../../src/engine/content/main-content/sweep.js';
import { widen } from '../../../src/engine/content/main-content/widen.js';
import { body, prose, text } from './page.js';

/** The text kept by the sweep of `html`'s main content. */
const swept = (html: string) => {
  const root = body(html);
  const measures = measurePage(root);
  const core = chooseCore(root, '', measures, scoreContainers(root, measures));
  assert.ok(core, 'the page has a core');
  const { keep } = sweepContent(widen(core, root, measures), measures);
  return text(...keep);
};

/** The text left of a page without a core, once swept. */
const sweptPage = (html: string) => {
  const root = body(html);
  const measures = measurePage(root);
  assert.equal(chooseCore(root, '', measures, scoreContainers(root, measures)), undefined, 'the page has no core');
  sweepPage(root, measures);
  return text(root);
};

const links = (label: string, n: number) => `<ul>${Array.from({ length: n }, (_, i) => `<li><a href="/s${i}">${label} ${i}</a></li>`).join('')}</ul>`;

describe('main content, step 5: the sweep', () => {
  it('removes chrome, form controls, comments and clutter inside the content', () => {
    const kept = swept(`<article>${prose('Story', 3)}<aside>An aside of the site</aside><form><input name="q"><button>Search the site</button></form>
      <div class="comments"><p>A reader's comment, long enough, with commas, to be a paragraph of its own.</p></div>
      <div class="newsletter"><p>Sign up for our newsletter.</p></div>${prose('End', 1)}</article>`);
    assert.match(kept, /Story paragraph 2/);
    assert.match(kept, /End paragraph 0/);
    for (const gone of ['An aside', 'Search the site', 'comment', 'newsletter']) assert.doesNotMatch(kept, new RegExp(gone));
  });

  it('never removes a block holding the core, however it is named', () => {
    const kept = swept(
      `<div id="outer"><div class="related-wrapper"><div id="c">${prose('Story', 3)}</div></div><h2>A heading</h2></div>${links('Elsewhere', 8)}`,
    );
    assert.match(kept, /Story paragraph 2/);
  });

  it("keeps a flagged block with prose on the core's scale, but never a list of related stories", () => {
    const kept = swept(
      `<article>${prose('Story', 3)}<div class="promo-box">${prose('Boxed', 2)}</div><div class="related-posts">${prose('Related', 2)}</div></article>`,
    );
    assert.match(kept, /Boxed paragraph 1/);
    assert.doesNotMatch(kept, /Related paragraph/);
  });

  it('removes a list of links with the heading over it, which stays when prose follows the list', () => {
    const list = `<h3>More on this</h3>${links('Another story of the day, number', 5)}`;
    assert.doesNotMatch(swept(`<article>${prose('Story', 3)}${list}</article>`), /More on this|Another story/);
    const followed = swept(`<article>${prose('Story', 3)}<section>${list}${prose('After', 2)}</section></article>`);
    assert.match(followed, /More on this/);
    assert.doesNotMatch(followed, /Another story/);
  });

  it('removes a feed of teasers, and a lone teaser card after the first prose but not before it', () => {
    const card = (slug: string, title: string) =>
      `<div class="card"><h3><a href="/${slug}">${title}</a></h3><p>A teaser line under the title of the card.</p></div>`;
    const kept = swept(`<article>${card('this', 'The title of this story')}${prose('Story', 3)}${card('other', 'A card for another story')}
      <div>${card('a', 'First teaser of the feed')}${card('b', 'Second teaser of the feed')}</div>${prose('End', 1)}</article>`);
    assert.match(kept, /The title of this story/);
    assert.doesNotMatch(kept, /another story|teaser of the feed/);
  });

  it("removes a small box around a button link that says something, and the article's asides", () => {
    const kept =
      swept(`<article>${prose('Story', 3)}<div class="box"><p>Print this recipe, or keep it for later, with a free account.</p><a class="button" href="/print">Print</a></div>
      <p>Read also: <a href="/other">Ferry fares rise again for the third year in a row</a></p><div class="byline">By Jane Doe, harbour reporter</div></article>`);
    assert.match(kept, /Story paragraph 2/);
    assert.doesNotMatch(kept, /Print this recipe|Ferry fares|Jane Doe/);
  });

  it("keeps the article's asides when they are all it has", () => {
    const byline = '<div class="byline">Written by Jane Doe, on the harbour</div>';
    assert.match(swept(`<div class="post">${byline}<hr></div>`), /Jane Doe/);
    assert.doesNotMatch(swept(`<div class="post">${byline}${prose('Story', 1)}</div>`), /Jane Doe/);
  });

  it("keeps blocks named as comments when they hold the core's paragraphs: a forum thread", () => {
    const comment = (n: number) => `<div class="comment">${prose(`Post ${n}`, 1)}</div>`;
    const kept = swept(`<div id="thread">${comment(1)}${comment(2)}${comment(3)}</div>${links('Elsewhere', 8)}`);
    assert.match(kept, /Post 1 paragraph 0/);
    assert.match(kept, /Post 3 paragraph 0/);
  });

  it('sweeps a page without a core, keeping its link lists', () => {
    const left = sweptPage(`<div class="menu"><a href="/">Home</a> <a href="/news">News</a></div>${links('Document', 4)}<p>A short line</p><input name="q">`);
    assert.doesNotMatch(left, /Home/);
    assert.match(left, /Document 3/);
    assert.match(left, /A short line/);
  });

  it('keeps a page without a core whole, but its form controls, when the sweep would leave too little', () => {
    const root = body(
      `<div class="sidebar">${'Sidebar words. '.repeat(6)}</div><nav>${'Navigation words. '.repeat(5)}</nav><p>Short</p><button id="go">Go on</button>`,
    );
    const measures = measurePage(root);
    sweepPage(root, measures);
    assert.match(text(root), /Sidebar words/);
    assert.match(text(root), /Navigation words/);
    assert.doesNotMatch(text(root), /Go on/);
  });
});
