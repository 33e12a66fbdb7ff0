/**
 * Step 6 of the main-content finder: around the paragraphs of prose, what stands before the
 * first, between them and after the last goes by where it stands (date lines, lines above the
 * title, lone short lines, leftover labels, links and headings), and credits go from captions
 * and alt texts; lists, sentences and introductions stay.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Element } from 'domhandler';
import { getElementsByTagName } from 'domutils';
import { measurePage } from '../../../src/engine/content/main-content/measure.js';
import { trimEnds } from '../../../src/engine/content/main-content/trim-ends.js';
import { body, byId, prose, text } from './page.js';

/** `html` trimmed with #keep kept and #core (or #keep) as the core; the text kept, and the root. */
function trimmed(html: string): { kept: string; root: Element } {
  const root = body(html);
  const measures = measurePage(root);
  const keep = byId(root, 'keep');
  const core = html.includes('id="core"') ? byId(root, 'core') : keep;
  const result = trimEnds({ keep: [keep], core }, measures);
  assert.deepEqual(result.keep, [keep]);
  return { kept: text(keep), root };
}

describe('main content, step 6: the ends', () => {
  it('removes date lines before the first prose, and outside the core any line that is not a sentence; headings and lines with figures in the core stay', () => {
    const { kept } = trimmed(`<div id="keep"><div><div>Asked 8 years ago</div></div><h2>A heading</h2>
      <div id="core"><div>31.05.2012 15:40</div><div>5 tips for your loan</div>${prose('Story', 3)}</div></div>`);
    assert.doesNotMatch(kept, /Asked 8 years ago|31\.05\.2012/);
    assert.match(kept, /A heading/);
    assert.match(kept, /5 tips for your loan/);
    assert.match(kept, /Story paragraph 2/);
  });

  it('removes a date written loose between the blocks before the prose', () => {
    const { kept } = trimmed(
      `<div id="keep"><div class="head"><h1>The title</h1>January 13, 2020 | <a href="/news">News</a><p>A sentence to open with.</p></div>${prose('Story', 2)}</div>`,
    );
    assert.doesNotMatch(kept, /January 13, 2020|News/);
    assert.match(kept, /A sentence to open with/);
  });

  it('removes what stands above the title when the title comes first: a kicker, the text before the title in its block', () => {
    const { kept } = trimmed(
      `<div id="keep"><p>Read this first, it is the kicker.</p><header>Back to the list<h1>The title</h1></header>${prose('Story', 2)}</div>`,
    );
    assert.doesNotMatch(kept, /kicker|Back to the list/);
    assert.match(kept, /^The titleStory paragraph 0/);
    // Without a title before the prose, the same sentence stays.
    assert.match(trimmed(`<div id="keep"><p>Read this first, it is the kicker.</p>${prose('Story', 2)}</div>`).kept, /kicker/);
  });

  it('removes a short line standing alone between the paragraphs, not a numbered step, an introduction or a list item', () => {
    const line = (words: string) => `<div class="box"><div>${words}</div></div>`;
    const { kept } = trimmed(
      `<div id="keep"><div>${prose('One', 2)}</div>${line('Show sources')}${line('1. Choose a pot')}${line('Ingredients:')}<ul><li>Flour</li></ul><div>${prose('Two', 2)}</div></div>`,
    );
    assert.doesNotMatch(kept, /Show sources/);
    assert.match(kept, /1\. Choose a pot/);
    assert.match(kept, /Ingredients:/);
    assert.match(kept, /Flour/);
  });

  it('removes a heading outside the core followed at once by another heading, between the paragraphs', () => {
    const { kept } = trimmed(
      `<div id="keep"><div id="core">${prose('One', 2)}</div><h3>More on this</h3><h4>The title of a teaser</h4>${prose('Two', 2)}</div>`,
    );
    assert.doesNotMatch(kept, /More on this/);
    assert.match(kept, /The title of a teaser/);
  });

  it('removes the leftovers after the last prose: a label, links to social networks, a link back up, a heading over nothing', () => {
    const { kept } = trimmed(`<div id="keep"><div class="text">${prose('Story', 3)}<p>Follow us on <a href="https://twitter.com/news">Twitter</a> today.</p>
      <p>A closing sentence of the story.</p> <a href="#top">Back to top</a></div><div>Share</div><h3>Comments</h3></div>`);
    assert.match(kept, /Story paragraph 2/);
    assert.match(kept, /A closing sentence of the story/);
    for (const gone of ['Back to top', 'Share', 'Twitter', 'Comments']) assert.doesNotMatch(kept, new RegExp(gone));
  });

  it('keeps a list after the last prose, and the heading over it', () => {
    const { kept } = trimmed(`<div id="keep">${prose('Story', 3)}<h3>What you need</h3><ul><li>Flour</li><li>Butter</li></ul></div>`);
    assert.match(kept, /What you needFlourButter/);
  });

  it('removes a paragraph after the last prose that is boxed apart from it', () => {
    const { kept } = trimmed(
      `<div id="keep"><div class="text">${prose('Story', 3)}</div><div class="box"><p>Support our work with a donation today.</p></div></div>`,
    );
    assert.doesNotMatch(kept, /Support our work/);
  });

  it("cuts the credit off a caption and a picture's alt text, and a short line that is only a credit with its agency", () => {
    const { kept, root } =
      trimmed(`<div id="keep">${prose('Story', 2)}<figure><img alt="A ferry at dawn. (Photo: Jane Doe)" src="a.jpg"><figcaption>A ferry at dawn. (Photo: Jane Doe)</figcaption></figure>
      <p>(Season: Spring)</p><p>(Credit: Jane Doe / Harbour Agency)</p>${prose('End', 1)}</div>`);
    assert.match(kept, /A ferry at dawn\./);
    assert.doesNotMatch(kept, /Jane Doe/);
    assert.match(kept, /\(Season: Spring\)/);
    assert.equal(getElementsByTagName('img', root)[0]!.attribs.alt, 'A ferry at dawn.');
  });

  it('leaves content without a paragraph of prose as it is', () => {
    const html = '<div id="keep"><div>Asked 8 years ago</div><h3>Comments</h3><div>Share</div></div>';
    assert.equal(trimmed(html).kept, 'Asked 8 years agoCommentsShare');
  });
});
