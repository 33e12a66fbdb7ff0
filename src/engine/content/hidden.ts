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

/** Characters of text under `node`, spacing trimmed per text node. */
export function textLength(node: AnyNode): number {
  if (node.type === 'text') return (node as { data: string }).data.trim().length;
  return hasChildren(node) ? node.children.reduce((sum, child) => sum + textLength(child), 0) : 0;
}

function containsMaths(element: Element): boolean {
  return element.children.some((child) => isTag(child) && (child.name === 'math' || containsMaths(child)));
}

/**
 * Removes the hidden elements found (outermost ones) of a page with `pageText` characters of
 * text. Two exceptions: a hidden block holding most of the page's text is shown by a script (a
 * page revealed once loaded), and hidden MathML is the source of the formula that markdown
 * writes as TeX.
 */
export function removeHidden(hidden: Element[], pageText: number): void {
  for (const element of hidden) {
    if (containsMaths(element)) continue;
    if (textLength(element) > pageText / 2) continue;
    removeElement(element);
  }
}
