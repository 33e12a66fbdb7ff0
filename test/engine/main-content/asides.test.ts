/**
 * The article's own asides, which the sweep (step 5) sets apart: told by markup (the share of
 * links, class words, the shape of a <div> line), whatever the article around them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isInlineBoilerplate } from '../../../src/engine/content/main-content/asides.js';
import { measurePage } from '../../../src/engine/content/main-content/measure.js';
import { body, byId, prose } from './page.js';

/** Whether each element named by id in `html` is an aside. */
const asides = (html: string, ids: string[]) => {
  const root = body(`<article>${prose('Story', 2)}${html}</article>`);
  const measures = measurePage(root);
  return Object.fromEntries(ids.map((id) => [id, isInlineBoilerplate(byId(root, id), measures)]));
};

describe("main content: the article's asides", () => {
  it('takes a paragraph that is mostly a link for one pointing elsewhere, not one of contact links', () => {
    assert.deepEqual(
      asides(
        `<p id="also">Read also: <a href="/other">Ferry fares rise again for the third year in a row</a></p>
      <p id="mail"><a href="mailto:desk@example.com">desk@example.com</a> <a href="tel:+15551234">+1 555 1234</a></p>
      <p id="prose">The harbour master, quoted in <a href="/interview">an interview</a>, said the quay had been rebuilt over two winters.</p>`,
        ['also', 'mail', 'prose'],
      ),
      { also: true, mail: false, prose: false },
    );
  });

  it("takes a credit inside a figure for one, but not the figure's caption, even named for its credit", () => {
    assert.deepEqual(
      asides(
        `<figure><img src="a.jpg"><figcaption id="caption" class="credit">A ferry at dawn <span id="credit" class="photo-credit">Photo: Jane Doe</span></figcaption></figure>`,
        ['caption', 'credit'],
      ),
      { caption: false, credit: true },
    );
  });

  it('takes an inline element named for what it is about as an aside when it stands as a line of its own', () => {
    assert.deepEqual(
      asides(
        `<div><p>A paragraph above.</p><span id="alone" class="rating">No ratings yet</span><p>A paragraph below.</p></div>
      <div><p>Text</p>Rated <span id="inline" class="rating">four stars</span> by readers<p>More</p></div>`,
        ['alone', 'inline'],
      ),
      { alone: true, inline: false },
    );
  });

  it("takes a block named as the post's metadata, the author's box or the tags for one, unless it holds the title", () => {
    assert.deepEqual(
      asides(
        `<div id="author" class="author-box">Jane Doe writes about harbours.</div><div id="tags" class="tags">Ferries, Harbours</div>
      <header id="header" class="post-meta"><h1>The title</h1><span>May 2024</span></header>`,
        ['author', 'tags', 'header'],
      ),
      { author: true, tags: true, header: false },
    );
  });

  it('takes a <div> line that is a label or partly links for one, not a sentence, an introduction or a value in a list or grid', () => {
    const grid = `<div>${Array.from({ length: 4 }, (_, i) => `<div><div${i === 0 ? ' id="cell"' : ''}>Weight</div><div>${i} kg</div></div>`).join('')}</div>`;
    assert.deepEqual(
      asides(
        `<div id="label">Most read</div><div id="linked">Previous article: <a href="/prev">The harbour</a></div>
      <div id="sentence">The quay was rebuilt.</div><div id="intro">Ingredients:</div><ul><li><div id="listed">Flour</div></li></ul>${grid}`,
        ['label', 'linked', 'sentence', 'intro', 'listed', 'cell'],
      ),
      { label: true, linked: true, sentence: false, intro: false, listed: false, cell: false },
    );
  });

  it('takes a short block with a copyright sign for a credit, not a long one', () => {
    assert.deepEqual(
      asides(
        `<div id="short"><p>© 2024 Example News</p><p>All rights reserved.</p></div><div id="long"><p>© ${'Words of a long block. '.repeat(12)}</p></div>`,
        ['short', 'long'],
      ),
      { short: true, long: false },
    );
  });
});
