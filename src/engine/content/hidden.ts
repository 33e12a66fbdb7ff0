/**
 * Content a reader never sees: the `hidden` attribute, `aria-hidden="true"`, and inline styles
 * with `display: none` or `visibility: hidden`. Stylesheets are not evaluated (no browser).
 */
import type { AnyNode, Element } from 'domhandler';
import { hasChildren, isTag, removeElement } from 'domutils';

const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;

export function isHidden(element: Element): boolean {
  const { attribs } = element;
  if (attribs.hidden !== undefined || attribs['aria-hidden'] === 'true') return true;
  return attribs.style !== undefined && HIDDEN_STYLE.test(attribs.style);
}

function textLength(node: AnyNode): number {
  if (node.type === 'text') return (node as { data: string }).data.trim().length;
  return hasChildren(node) ? node.children.reduce((sum, child) => sum + textLength(child), 0) : 0;
}

function containsMaths(element: Element): boolean {
  return element.children.some((child) => isTag(child) && (child.name === 'math' || containsMaths(child)));
}

/**
 * Removes hidden elements under `root`. Two exceptions: a hidden block holding most of the
 * page's text is shown by a script (a page revealed once loaded), and hidden MathML is the
 * source of the formula that markdown writes as TeX.
 */
export function removeHidden(root: AnyNode[]): void {
  const hidden: Element[] = [];
  const visit = (nodes: AnyNode[]) => {
    for (const node of nodes) {
      if (isTag(node)) {
        if (isHidden(node) && node.name !== 'html' && node.name !== 'body') hidden.push(node);
        else visit(node.children);
      } else if (hasChildren(node)) visit(node.children);
    }
  };
  visit(root);
  if (hidden.length === 0) return;
  const total = root.reduce((sum, node) => sum + textLength(node), 0);
  for (const element of hidden) {
    if (containsMaths(element)) continue;
    if (textLength(element) > total / 2) continue;
    removeElement(element);
  }
}
