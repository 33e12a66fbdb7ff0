/**
 * What every step of the main-content finder asks of the parsed tree: which tags are blocks,
 * headings or media, the way up and down from an element, and its text as it stands now (the
 * measures of step 1 are taken once; these read the tree as the later steps have left it).
 */
import type { AnyNode, Element } from 'domhandler';
import { isTag } from 'domutils';

export const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);
export const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Blocks that are sentences or headings: judged by what they say, never as link lists. */
export const TEXT_BLOCKS = new Set([
  'p',
  'pre',
  'blockquote',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'td',
  'th',
  'li',
  'dt',
  'dd',
  'figcaption',
  'caption',
  'summary',
]);
export const MEDIA = new Set(['img', 'picture', 'figure', 'video', 'table', 'svg']);
export const FIGURE = new Set(['figure']);
/** Tags of a block that is the whole composition: an article, the page's main part. */
export const SEMANTIC_TAGS = new Set(['article', 'main']);

/** `\s` is the set of spaces that count as one: runs of two or more shrink to one character. */
export const VISIBLE = /\S/;
export const SPACE_RUNS = /\s{2,}/g;

export const elementChildren = (element: Element) => element.children.filter(isTag);
export const parentElement = (node: AnyNode): Element | undefined => (node.parent && isTag(node.parent) ? node.parent : undefined);

export function textOf(element: Element): string {
  let text = '';
  for (const child of element.children) {
    if (child.type === 'text') text += (child as { data: string }).data;
    else if (isTag(child)) text += textOf(child);
  }
  return text;
}

export function findLink(element: Element): Element | undefined {
  for (const child of element.children) {
    if (!isTag(child)) continue;
    if (child.name === 'a') return child;
    const inside = findLink(child);
    if (inside) return inside;
  }
  return undefined;
}

export function closestLink(element: Element): Element | undefined {
  for (let node = parentElement(element); node; node = parentElement(node)) if (node.name === 'a') return node;
  return undefined;
}

/** Whether `element` has links (<a href>) and every one of them passes `test` on its href. */
export function everyLink(element: Element, test: (href: string) => boolean): boolean {
  let links = 0;
  const walk = (node: Element): boolean => {
    for (const child of node.children) {
      if (!isTag(child)) continue;
      if (child.name === 'a' && child.attribs.href !== undefined) {
        if (!test(child.attribs.href)) return false;
        links++;
      }
      if (!walk(child)) return false;
    }
    return true;
  };
  return walk(element) && links > 0;
}

/** Whether a block with text is still under `element`. */
export function holdsBlockText(element: Element): boolean {
  return element.children.some((child) => isTag(child) && (BLOCK.has(child.name) ? VISIBLE.test(textOf(child)) : holdsBlockText(child)));
}

export function holdsMedia(element: Element): boolean {
  return element.children.some((child) => isTag(child) && (MEDIA.has(child.name) || holdsMedia(child)));
}

export function holdsTitle(element: Element): boolean {
  return element.children.some((child) => isTag(child) && (child.name === 'h1' || holdsTitle(child)));
}

export function within(element: Element, ancestor: Element): boolean {
  for (let node: Element | undefined = element; node; node = parentElement(node)) if (node === ancestor) return true;
  return false;
}

export function hasAncestor(element: Element, names: ReadonlySet<string>): boolean {
  for (let node = parentElement(element); node; node = parentElement(node)) if (names.has(node.name)) return true;
  return false;
}

/** Elements of one kind: the same tag and the same class names. */
export const sameKind = (a: Element, b: Element) => a.name === b.name && (a.attribs.class ?? '') === (b.attribs.class ?? '');

export function documentOrder(a: Element, b: Element): number {
  const parent = a.parent;
  if (!parent || parent !== b.parent) return 0;
  return parent.children.indexOf(a) - parent.children.indexOf(b);
}
