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
 * text. Exceptions: a hidden block holding most of the page's text is shown by a script (a
 * page revealed once loaded), and so are hidden siblings, three or more, that together hold
 * most of it (a slideshow or tabs showing one panel at a time); hidden MathML is the source of the
 * formula that markdown writes as TeX.
 */
const MIN_PANELS = 3;

export function removeHidden(hidden: Element[], pageText: number): void {
  const panels = new Map<unknown, Element[]>();
  for (const element of hidden) {
    const siblings = panels.get(element.parent) ?? [];
    siblings.push(element);
    panels.set(element.parent, siblings);
  }
  const shown = new Set<Element>();
  for (const siblings of panels.values()) {
    if (siblings.length < MIN_PANELS || siblings.reduce((sum, element) => sum + textLength(element), 0) <= pageText / 2) continue;
    for (const element of siblings) shown.add(element);
  }
  for (const element of hidden) {
    if (shown.has(element)) continue;
    if (containsMaths(element)) continue;
    if (textLength(element) > pageText / 2) continue;
    removeElement(element);
  }
}
