/**
 * Step 2 of the main-content finder: each paragraph's points (1, its commas, a point per 100
 * characters up to 3) go to its container and, divided, to four more above; links and class
 * words then weigh each container's score, and the best one is the candidate core.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { measurePage } from '../../../src/engine/content/main-content/measure.js';
import { scoreContainers } from '../../../src/engine/content/main-content/score.js';
import { body, byId, idOf, prose } from './page.js';

/** Points of one paragraph of `prose`: 1, four commas, one for its 113 characters. */
const POINTS = 6;

const scored = (html: string) => {
  const root = body(html);
  const measures = measurePage(root);
  return { root, measures, ...scoreContainers(root, measures) };
};

describe('main content, step 2: scores', () => {
  it("gives a paragraph's points to its container, and a half, a sixth, a ninth and a twelfth to the four above", () => {
    const { root, scores, best } = scored(
      `<div id="l6"><div id="l5"><div id="l4"><div id="l3"><div id="l2"><div id="c">${prose('Story', 2)}</div><hr></div><hr></div><hr></div><hr></div><hr></div><hr></div>`,
    );
    const score = (id: string) => scores.get(byId(root, id));
    assert.equal(score('c'), 2 * POINTS);
    assert.equal(score('l2'), POINTS);
    assert.equal(score('l3'), (2 * POINTS) / 6);
    assert.equal(score('l4'), (2 * POINTS) / 9);
    assert.equal(score('l5'), POINTS / 6);
    assert.equal(score('l6'), undefined, 'five levels only');
    assert.equal(idOf(best), 'c');
  });

  it('counts a paragraph wrapped alone from its outermost wrapper, and never scores the root', () => {
    const { root, scores } = scored(`<div id="a"><div id="w1"><div id="w2">${prose('Wrapped', 1)}</div></div>${prose('Beside', 1)}</div>`);
    assert.equal(scores.get(byId(root, 'a')), 2 * POINTS);
    assert.equal(scores.has(byId(root, 'w1')), false);
    assert.equal(scores.has(byId(root, 'w2')), false);
    assert.equal(scores.has(root), false);
  });

  it('takes a table cell with prose of its own as the container of its paragraph', () => {
    const { root, scores } = scored(`<table id="t"><tr id="row"><td id="cell">${'Words of the cell, and more words, '.repeat(4)}</td><td>x</td></tr></table>`);
    assert.ok(scores.get(byId(root, 'cell'))! > scores.get(byId(root, 'row'))!);
  });

  it("cuts a container's score by its share of link text", () => {
    const links = `<ul>${Array.from({ length: 5 }, (_, i) => `<li><a href="/s${i}">Another story of the day, number ${i}</a></li>`).join('')}</ul>`;
    const { root, measures, scores } = scored(`<div id="plain">${prose('Story', 2)}</div><div id="linked">${prose('Story', 2)}${links}</div>`);
    const linked = byId(root, 'linked');
    assert.ok(measures.unflaggedLinkDensity(linked) > 0.2);
    assert.equal(scores.get(linked), 2 * POINTS * (1 - measures.unflaggedLinkDensity(linked)));
    assert.equal(scores.get(byId(root, 'plain')), 2 * POINTS);
  });

  it('cuts the score of a block named as chrome, raises that of one named as the content, and picks the best', () => {
    const { root, scores, best, bestScore } = scored(`<div id="plain">${prose('Plain', 2)}</div><div id="side" class="sidebar">${prose('Side', 2)}</div>
      <div id="named" class="entry-content">${prose('Named', 2)}</div>`);
    assert.equal(scores.get(byId(root, 'plain')), 2 * POINTS);
    assert.equal(scores.get(byId(root, 'side')), 2 * POINTS * 0.35);
    assert.equal(scores.get(byId(root, 'named')), 2 * POINTS * 1.25);
    assert.equal(idOf(best), 'named');
    assert.equal(bestScore, 2 * POINTS * 1.25);
  });

  it('keeps the first of equal containers as the best', () => {
    const { best } = scored(`<div id="one">${prose('One', 2)}</div><div id="two">${prose('Two', 2)}</div>`);
    assert.equal(idOf(best), 'one');
  });

  it('takes a block named like chrome that holds most of the page as the layout, but never one that lies over it', () => {
    const page = (name: string) =>
      scored(
        `<div id="wrapper" class="${name}"><div id="c">${prose('Story', 3)}</div><div class="sidebar"><p>A few links</p></div></div><div><p>Footer</p></div>`,
      );
    const layout = page('sidebar_content');
    assert.equal(layout.underFlag(byId(layout.root, 'c')), false);
    assert.equal(layout.scores.get(byId(layout.root, 'c')), 3 * POINTS);
    const overlay = page('modal');
    assert.equal(overlay.underFlag(byId(overlay.root, 'c')), true);
    assert.equal(overlay.scores.get(byId(overlay.root, 'c')), 3 * POINTS * 0.35);
  });

  it('leaves a page without paragraphs without a best container', () => {
    const { best, bestScore, scores } = scored('<div><a href="/">Home</a> <a href="/news">News</a></div><div>Short line</div>');
    assert.equal(best, undefined);
    assert.equal(bestScore, 0);
    assert.equal(scores.size, 0);
  });
});
