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

/** The nodes given, by their parent; nodes out of the tree are left out. */
function byParent(nodes: Iterable<AnyNode>): Map<Element | Document, Set<AnyNode>> {
  const groups = new Map<Element | Document, Set<AnyNode>>();
  for (const node of nodes) {
    const parent = node.parent as Element | Document | null;
    if (!parent) continue;
    let group = groups.get(parent);
    if (!group) groups.set(parent, (group = new Set()));
    group.add(node);
  }
  return groups;
}

/** Takes every node given out of the tree (those already out are left as they are). */
export function removeAll(nodes: Iterable<AnyNode>) {
  for (const [parent, gone] of byParent(nodes)) {
    setChildren(
      parent,
      parent.children.filter((child) => !gone.has(child)),
    );
    for (const node of gone) {
      node.parent = null;
      node.prev = null;
      node.next = null;
    }
  }
}

/** Puts a new node, made by `make`, before each node given. */
export function insertBeforeEach(nodes: Iterable<AnyNode>, make: () => AnyNode) {
  for (const [parent, marked] of byParent(nodes))
    setChildren(
      parent,
      parent.children.flatMap((child) => (marked.has(child) ? [make(), child] : [child])),
    );
}
