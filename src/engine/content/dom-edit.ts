/**
 * Edits of a parsed page that touch many nodes at once, in one pass over each parent's
 * children. domutils' removeElement and prepend search the parent's children for each node,
 * so a page of tens of thousands of siblings edited one node at a time takes seconds.
 */
import type { AnyNode, Document, Element } from 'domhandler';

/** Gives `parent` these children, in this order, linked to each other and to it. */
export function setChildren(parent: Element | Document, children: AnyNode[]) {
  children.forEach((child, i) => {
    child.parent = parent;
    child.prev = children[i - 1] ?? null;
    child.next = children[i + 1] ?? null;
  });
  parent.children = children as typeof parent.children;
}

/** Takes every node given out of the tree (those already out are left as they are). */
export function removeAll(nodes: Iterable<AnyNode>) {
  const byParent = new Map<Element | Document, Set<AnyNode>>();
  for (const node of nodes) {
    const parent = node.parent as Element | Document | null;
    if (!parent) continue;
    let gone = byParent.get(parent);
    if (!gone) byParent.set(parent, (gone = new Set()));
    gone.add(node);
  }
  for (const [parent, gone] of byParent) {
    setChildren(parent, parent.children.filter((child) => !gone.has(child)));
    for (const node of gone) {
      node.parent = null;
      node.prev = null;
      node.next = null;
    }
  }
}
