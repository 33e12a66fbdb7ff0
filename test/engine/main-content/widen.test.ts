/**
 * Step 4 of the main-content finder: how far the core widens (more prose, or little else: a
 * heading, a byline; not past an <article>, a layout's column or the titled story), the units
 * repeated beside it, and the siblings kept with it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseCore } from '../../../src/engine/content/main-content/core.js';
import { measurePage } from '../../../src/engine/content/main-content/measure.js';
import { scoreContainers } from '../../../src/engine/content/main-content/score.js';
import { widen } from '../../../src/engine/content/main-content/widen.js';
import { body, idOf, prose } from './page.js';

const extentOf = (html: string, title = '') => {
  const root = body(html);
  const measures = measurePage(root);
  const core = chooseCore(root, title, measures, scoreContainers(root, measures));
  assert.ok(core, 'the page has a core');
  const { core: from, content, kept } = widen(core, root, measures);
  return { core: idOf(from), content: idOf(content), kept: kept.map(idOf) };
};

const links = (n: number) => `<ul id="links">${Array.from({ length: n }, (_, i) => `<li><a href="/s${i}">Another story, number ${i}</a></li>`).join('')}</ul>`;

describe('main content, step 4: widening', () => {
  it('widens to a parent holding half again as much prose: an article split over sections', () => {
    const extent = extentOf(`<div id="whole"><section id="s1">${prose('One', 4)}</section><section id="s2">${prose('Two', 3)}</section></div>${links(6)}`);
    assert.equal(extent.core, 's1');
    assert.equal(extent.content, 'whole');
  });

  it('widens to a parent that adds little besides: the heading and the byline', () => {
    const extent = extentOf(
      `<div id="item"><h2>The title of the post</h2><div class="byline">By Jane Doe</div><div id="words">${prose('Text', 3)}</div></div>${links(6)}`,
    );
    assert.equal(extent.core, 'words');
    assert.equal(extent.content, 'item');
  });

  it('does not widen past a parent adding more than a little without as much prose again', () => {
    const extent = extentOf(`<div id="page"><div id="words">${prose('Words', 4)}</div>${prose('Other', 1)}${links(12)}</div><div>Footer</div>`);
    assert.equal(extent.content, 'words');
  });

  it('does not widen past an <article> for what is not more prose', () => {
    const extent = extentOf(`<div id="wrap"><article id="a"><h1>The title</h1>${prose('Story', 3)}</article><div>A short note under it</div></div>`);
    assert.equal(extent.core, 'a');
    assert.equal(extent.content, 'a');
  });

  it("does not widen past a table cell with another cell beside it: a layout's column", () => {
    const extent = extentOf(`<table id="layout"><tr id="row"><td id="cell">${prose('Story', 3)}</td><td id="side">Archive, Contact</td></tr></table>`);
    assert.equal(extent.content, 'cell');
  });

  it('stays inside the story the title names, and leaves its twins out of what is kept', () => {
    const story = (id: string, heading: string, topic: string, n: number) =>
      `<article id="${id}" class="story"><h1>${heading}</h1><div id="${id}-part">${prose(topic, n)}</div></article>`;
    const extent = extentOf(
      `<main id="page">${story('first', 'Blessing of vehicles this Saturday', 'Blessing', 2)}${story('second', 'Prosecutors under pressure from parties', 'Prosecutors', 6)}</main>`,
      'Blessing of vehicles this Saturday',
    );
    assert.equal(extent.content, 'first');
    assert.deepEqual(extent.kept, ['first']);
  });

  it('takes in the units repeated beside the one holding the core: the posts of a thread', () => {
    const reply = (id: string, n: number) => `<div class="reply" id="${id}">${prose(id, n)}</div>`;
    const extent = extentOf(
      `<div id="thread"><div class="reply" id="p1"><div id="b1">${prose('First', 8)}</div>${prose('Reply', 3)}</div>${reply('p2', 3)}${reply('p3', 3)}</div>${links(6)}`,
    );
    assert.equal(extent.core, 'b1');
    assert.equal(extent.content, 'thread');
  });

  it('keeps the siblings that are prose and the heading just before, in document order, but not flagged blocks or link lists', () => {
    const extent = extentOf(`<div id="col"><h2 id="h">The title of the story</h2><div id="c">${prose('Story', 4)}</div><div id="more">${prose('More', 1)}</div>
      <p id="note">A short closing sentence.</p><p id="bare">A line without an end</p><div class="sidebar" id="side">${prose('Side', 2)}</div>${links(12)}</div>`);
    assert.equal(extent.content, 'c');
    assert.deepEqual(extent.kept, ['h', 'c', 'more', 'note']);
  });
});
