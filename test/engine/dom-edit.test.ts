/**
 * Edits of many nodes at once (dom-edit.ts): the tree they leave is the one domutils' node-by-node
 * edits leave, every link between nodes included, however many siblings there are.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnyNode, Element } from 'domhandler';
import { removeElement } from 'domutils';
import { parseDocument } from 'htmlparser2';
import render from 'dom-serializer';
import { removeAll, setChildren } from '../../src/engine/content/dom-edit.js';

/** Every parent, prev and next link in the tree agrees with the children arrays. */
function assertLinked(parent: { children: AnyNode[] }) {
  parent.children.forEach((child, i) => {
    assert.equal(child.parent, parent);
    assert.equal(child.prev, parent.children[i - 1] ?? null);
    assert.equal(child.next, parent.children[i + 1] ?? null);
    if ('children' in child) assertLinked(child as Element);
  });
}

const page = (n: number) => `<div>${Array.from({ length: n }, (_, i) => `<p id="p${i}">${i} <b>bold</b></p><!-- c${i} -->`).join('')}</div>`;

describe('editing many nodes at once', () => {
  it('removes every node given, as removing them one by one does, and leaves the links between the rest whole', () => {
    const ours = parseDocument(page(200));
    const theirs = parseDocument(page(200));
    // Every third paragraph, every comment, and a node inside a paragraph that also goes.
    const pick = (document: ReturnType<typeof parseDocument>) => {
      const div = document.children[0] as Element;
      const gone = div.children.filter((node, i) => node.type === 'comment' || i % 6 === 0);
      return [...gone, (div.children[0] as Element).children[1] as Element];
    };
    const removed = pick(ours);
    removeAll(removed);
    for (const node of pick(theirs)) removeElement(node);
    assert.equal(render(ours), render(theirs));
    assertLinked(ours);
    for (const node of removed) assert.ok(node.parent === null && node.prev === null && node.next === null, 'a removed node keeps no link to the tree');
  });

  it('gives a parent new children, taken from elsewhere, each linked to it and to its neighbours', () => {
    const document = parseDocument('<main><p>a</p></main><aside><p>b</p><p>c</p></aside>');
    const [main, aside] = document.children as Element[];
    const moved = [...aside!.children];
    removeAll(moved);
    setChildren(main!, [...main!.children, ...moved]);
    assert.equal(render(document), '<main><p>a</p><p>b</p><p>c</p></main><aside></aside>');
    assertLinked(document);
  });

  it('removes 50,000 of 100,000 siblings in one pass', () => {
    const document = parseDocument(`<div>${'<i>x</i>'.repeat(100_000)}</div>`);
    const div = document.children[0] as Element;
    removeAll(div.children.filter((_, i) => i % 2 === 0));
    assert.equal(div.children.length, 50_000);
    assertLinked(document);
  });
});
