/**
 * Captions and credits, for step 6 (the ends): what a caption is, the caption of a picture
 * outside the core that goes with the page's furniture, and the credit closing a caption, a
 * short line or a picture's alt text ("(Photo: Name)"), which goes while the caption stays.
 */
import type { Element, Text } from 'domhandler';
import { isTag, removeElement } from 'domutils';
import type { PageMeasures } from './measure.js';
import { nameWords } from './names.js';
import { VISIBLE, holdsMedia, parentElement, textOf, within } from './tree.js';

/** Longest caption (characters) of a picture outside the core that may go: longer ones are the lead itself. */
const LEAD_CAPTION_MAX_TEXT = 300;

/**
 * A credit closing a caption: "(Photo: Name)" or "(AGENCY/Name)" in parentheses, "Photo: Name"
 * or "Name/Agency" after its last sentence; from the start, a caption that is only a credit.
 */
export const CREDIT_TAIL =
  /\s*\([^()!?]{1,50}[:/][^()!?]{0,50}[^().!?]\)$|(?:(?<=[.!?])\s+|^\s*)\p{L}+\s?:\s*(?:(?!\.\s)[^!?()]){1,50}$|(?<=[.!?])\s+[^.!?:/]{1,40}\/[^.!?:]{1,40}$/u;
/** A credit closing a short line: "(Label: Name)". */
export const CREDIT_PAREN = /\s*\(\p{L}+\s?:[^()!?]{1,50}[^().!?]\)$/u;

/** A caption: a <figcaption>, or a block or span named one (`wp-caption-text`, `img-caption`), or inside one. */
export const isCaption = (element: Element) => {
  for (let node: Element | undefined = element; node; node = parentElement(node)) if (node.name === 'figcaption' || namedCaption(node)) return true;
  return false;
};

const namedCaption = (element: Element) => {
  const names = element.attribs.class;
  if (names === undefined || !names.toLowerCase().includes('caption')) return false;
  // `item no_caption` is an item that has none.
  const words = nameWords(names);
  return words.includes('caption') && !words.includes('no');
};

/**
 * A caption of a picture outside the core goes (and whether it went): the picture stays, its
 * legend goes with the page's furniture (a lead picture, a gallery, a teaser). Inside the core,
 * and when long enough to be the lead itself, it stays.
 */
export function removeOuterCaption(element: Element, core: Element, measures: PageMeasures): boolean {
  if (!isCaption(element) || within(element, core) || measures.textLength(element) >= LEAD_CAPTION_MAX_TEXT) return false;
  removeCaption(element);
  return true;
}

const plain = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

/** A caption goes, and with it the alt text of its figure's pictures where that repeats it. */
function removeCaption(caption: Element) {
  let figure = parentElement(caption);
  while (figure && figure.name !== 'figure') figure = parentElement(figure);
  if (figure) {
    const said = plain(textOf(caption));
    const clear = (node: Element) => {
      if (node.name === 'img' && node.attribs.alt) {
        const alt = plain(node.attribs.alt);
        if (alt.length > 0 && said.length > 0 && (said.includes(alt) || alt.includes(said))) node.attribs.alt = '';
      }
      for (const child of node.children) if (isTag(child)) clear(child);
    };
    clear(figure);
  }
  removeElement(caption);
}

/**
 * Cuts a credit matching `pattern` off the end of a block's text, and with `removeWhole` the block
 * when nothing else is left (its picture stays).
 */
export function stripCredit(element: Element, pattern: RegExp, removeWhole: boolean) {
  const nodes: Text[] = [];
  const collect = (node: Element) => {
    for (const child of node.children) {
      if (child.type === 'text') nodes.push(child as Text);
      else if (isTag(child)) collect(child);
    }
  };
  collect(element);
  const whole = nodes.map((node) => node.data).join('');
  const match = pattern.exec(whole.trimEnd());
  if (!match) return;
  if (!VISIBLE.test(whole.slice(0, match.index))) {
    // A line that is only "(Label: value)" may be the article's own ("(Season: Spring)"); with
    // a name and its agency or outlet after the label ("(Credit: Name / Outlet)") it is a credit.
    if (!removeWhole && !/:[^/]+\/[^/]+\)$/.test(match[0])) return;
    if (!holdsMedia(element)) {
      removeElement(element);
      return;
    }
  }
  let offset = 0;
  for (const node of nodes) {
    const start = offset;
    offset += node.data.length;
    if (offset <= match.index) continue;
    node.data = start >= match.index ? '' : node.data.slice(0, match.index - start);
    // Inline elements left empty (the credit's link or span) go too.
    for (let parent = parentElement(node); parent && parent !== element && !VISIBLE.test(textOf(parent)) && !holdsMedia(parent); ) {
      const up = parentElement(parent);
      removeElement(parent);
      parent = up;
    }
  }
}

/**
 * The credit closing a picture's alt text ("A ferry at dawn. (Photo: Name)"), under `node`: the
 * text stands for the picture, the credit does not. An alt text that is only a credit says
 * nothing of the picture: it goes whole.
 */
export function stripAltCredits(node: Element) {
  if (node.name === 'img' && node.attribs.alt) {
    const alt = node.attribs.alt.trim().replace(/\.$/, '');
    const match = CREDIT_TAIL.exec(alt);
    if (match) node.attribs.alt = alt.slice(0, match.index);
  }
  for (const child of node.children) if (isTag(child)) stripAltCredits(child);
}
