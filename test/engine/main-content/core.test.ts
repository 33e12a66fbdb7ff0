/**
 * Step 3 of the main-content finder: the best container is the core when it scores as an
 * article (a paragraph of prose, or a short line in a block named as the post); among stories
 * of one kind, the one the title names gives it; a list item or a row stands for its list or
 * table when that is not much bigger.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseCore } from '../../../src/engine/content/main-content/core.js';
import { measurePage } from '../../../src/engine/content/main-content/measure.js';
import { scoreContainers } from '../../../src/engine/content/main-content/score.js';
import { body, idOf, prose } from './page.js';

const coreOf = (html: string, title = '') => {
  const root = body(html);
  const measures = measurePage(root);
  return { core: chooseCore(root, title, measures, scoreContainers(root, measures)) };
};

/** A short line: a paragraph (25 characters or more) without commas, under 100 characters: one point. */
const SHORT = '<p>The club reopens on Friday at nine in the evening</p>';

describe('main content, step 3: the core', () => {
  it('takes one paragraph of prose as the core', () => {
    const { core } = coreOf(`<div id="c">${prose('Story', 1)}<hr></div><div>Other</div>`);
    assert.equal(idOf(core?.core), 'c');
    assert.equal(idOf(core?.story), undefined);
  });

  it('has no core when the best container scores less than a paragraph of prose', () => {
    assert.equal(coreOf(`<div id="c">${SHORT}<hr></div><div>Other</div>`).core, undefined);
    assert.equal(coreOf('<div><a href="/">Home</a></div>').core, undefined);
  });

  it('takes one short line as the core in a block named as the post, but not under a flag', () => {
    const { core } = coreOf(`<div id="c" class="post">${SHORT}<hr></div><div>Other</div>`);
    assert.equal(idOf(core?.core), 'c');
    assert.equal(
      coreOf(`<div class="sidebar"><div id="c" class="post">${SHORT}<hr></div></div><div>${'Other text of the page. '.repeat(4)}</div>`).core,
      undefined,
    );
  });

  it('takes a list for its item, unless the list is much bigger', () => {
    const item = `<li id="item">${prose('Item', 2)}</li>`;
    const small = coreOf(`<ul id="list">${item}<li>A second, shorter item of the list</li></ul><div>Other</div>`);
    assert.equal(idOf(small.core?.core), 'list');
    // Items too short to be paragraphs, which score nothing themselves.
    const others = Array.from({ length: 30 }, (_, i) => `<li>Short item number ${i + 10}</li>`).join('');
    const big = coreOf(`<ul id="list">${item}${others}</ul><div>Other</div>`);
    assert.equal(idOf(big.core?.core), 'item');
  });

  it('takes the core from the story the title names, among stories of one kind each with a title', () => {
    const story = (id: string, heading: string, topic: string, n: number) =>
      `<article id="${id}" class="story"><h1>${heading}</h1><div id="${id}-part">${prose(topic, n)}</div></article>`;
    const html = `<main>${story('first', 'Blessing of vehicles this Saturday', 'Blessing', 2)}${story('second', 'Prosecutors under pressure from parties', 'Prosecutors', 6)}</main>`;
    const titled = coreOf(html, 'Daily News | Blessing of vehicles this Saturday');
    assert.equal(idOf(titled.core?.core), 'first-part');
    assert.equal(idOf(titled.core?.story), 'first');
    // Titled after the longer story, after neither, or too shortly: the best container, as scored.
    for (const title of ['Prosecutors under pressure from parties', 'Something else, not on the page', 'Blessing']) {
      const { core } = coreOf(html, title);
      assert.equal(idOf(core?.core), 'second-part', title);
      assert.equal(idOf(core?.story), undefined, title);
    }
  });

  it('stays with the best container when its story has no title of its own', () => {
    const html = `<main><div class="col"><h1>Blessing of vehicles this Saturday</h1>${prose('Lead', 1)}</div><div class="col"><div id="column">${prose('Column', 6)}</div></div></main>`;
    const { core } = coreOf(html, 'Blessing of vehicles this Saturday');
    assert.equal(idOf(core?.core), 'column');
    assert.equal(idOf(core?.story), undefined);
  });
});
