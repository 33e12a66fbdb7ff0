/**
 * Small pages for the tests of the main-content finder's steps: parsed as convertPage parses
 * them (htmlparser2), the <body> to hand to a step, elements by id, and text as it stands.
 */
import type { Element } from 'domhandler';
import { getElementById, textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';

/** The <body> of `html` (a whole page, or the body's content). */
export function body(html: string): Element {
  const document = parseDocument(html.includes('<body') ? html : `<html><body>${html}</body></html>`);
  const found = document.children
    .flatMap((node) => ('children' in node ? node.children : []))
    .find((node): node is Element => 'name' in node && node.name === 'body');
  if (!found) throw new Error('no <body>');
  return found;
}

/** The element with this id under `root`. */
export function byId(root: Element, id: string): Element {
  const found = getElementById(id, [root]);
  if (!found) throw new Error(`no #${id}`);
  return found;
}

/** Whitespace-normalised text of the elements. */
export const text = (...elements: Element[]) =>
  elements
    .map((element) => textContent(element))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();

/** The text of paragraph `i` about `topic`: over 100 characters, with four commas. */
export const sentences = (topic: string, i: number) =>
  `${topic} paragraph ${i}, with enough words, commas, and detail to read as prose rather than a caption, as a story goes.`;

/** `n` paragraphs of prose about `topic`. */
export const prose = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `<p>${sentences(topic, i)}</p>`).join('');

/** The id of an element (compared in assertions instead of the element, whose failure would print the whole tree). */
export const idOf = (element: Element | undefined) => (element ? (element.attribs.id ?? `<${element.name}>`) : undefined);
