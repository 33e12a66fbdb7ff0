/**
 * The article's own asides, which step 5 (the sweep) sets apart inside the kept content and
 * removes last: "Read also" links, credits, author boxes, dates, tags, ratings (also a <span>
 * standing as a line of its own), and <div> lines that are labels or links, not sentences. They
 * are told by markup (tag, class words, share of links, the shape of the line), not by where
 * they stand; the title never goes with them.
 */
import type { Element, Text } from 'domhandler';
import { isTag } from 'domutils';
import type { PageMeasures } from './measure.js';
import { ABOUT_STEMS, CREDIT_STEMS, matches } from './names.js';
import { BLOCK, FIGURE, HEADINGS, TEXT_BLOCKS, VISIBLE, elementChildren, everyLink, hasAncestor, holdsTitle, parentElement, textOf } from './tree.js';

/** Longest block (characters) that class words alone may remove from inside the content. */
const ABOUT_MAX_TEXT = 800;
/** A block shorter than this holding © or (c) is a credit or a copyright line. */
export const CREDIT_MAX_TEXT = 200;
const COPYRIGHT = /©|\(c\)\s/i;
/** A paragraph with more than this share of link text points elsewhere ("Read also: ..."). */
const LINK_PARAGRAPH = 0.7;
/** A <div> line shorter than this (characters), not a sentence, is a label. */
export const LABEL_MAX_TEXT = 80;
/** Rows of two cells or more from which <div> lines are a grid of values, not labels. */
const GRID_ROWS = 4;
/** A <div> line with more than this share of link text points elsewhere. */
const LINK_LINE = 0.2;
/** Blocks after the last prose that say what follows: lists and tables are content, never labels. */
export const LISTED = new Set(['li', 'td', 'th', 'pre', 'dd', 'dt', 'blockquote', 'table', 'code', 'address']);
export const SENTENCE_END = /[.!?。！？"”»)]\s*$/;
/** Neighbours looked at on each side of an inline element that may stand as a line. */
const NEIGHBOURS_SEEN = 12;

/**
 * Boilerplate inside the kept content, told by its markup: a paragraph that is mostly a link, a
 * block named for what it is about rather than what it says (credit, author, date, tags...), a
 * <div> line that is a label or links, or a short one carrying a copyright sign. The title
 * never goes with it.
 */
export function isInlineBoilerplate(element: Element, measures: PageMeasures): boolean {
  // An e-mail address or a phone number to write or call is contact information, not a link elsewhere.
  if (element.name === 'p' && measures.linkDensity(element) > LINK_PARAGRAPH && !linksOnlyToContact(element)) return true;
  // A caption is content even when named for its credit; the credit inside it is not, be it
  // a block or a span.
  if (
    element.name !== 'figcaption' &&
    hasAncestor(element, FIGURE) &&
    matches(measures.words(element), CREDIT_STEMS) &&
    measures.textLength(element) < CREDIT_MAX_TEXT
  )
    return true;
  // An inline element standing as a line of its own between blocks, named for what it is
  // about: a rating widget's <span> ("No ratings yet").
  const about = (node: Element) => matches(measures.words(node), ABOUT_STEMS);
  if (!BLOCK.has(element.name) && measures.textLength(element) < ABOUT_MAX_TEXT && about(element) && standsAlone(element, about)) return true;
  if (!BLOCK.has(element.name) || element.name === 'figcaption' || holdsTitle(element)) return false;
  const text = measures.textLength(element);
  if (isBoxLine(element, measures)) return true;
  if (text < ABOUT_MAX_TEXT && matches(measures.words(element), ABOUT_STEMS)) return true;
  return text < CREDIT_MAX_TEXT && COPYRIGHT.test(textOf(element));
}

export const isListed = (element: Element) => LISTED.has(element.name) || hasAncestor(element, LISTED);

/** Whether an element's nearest neighbours with text are blocks (or none), under a block that is not a line of text. */
function standsAlone(element: Element, alike: (neighbour: Element) => boolean): boolean {
  const parent = parentElement(element);
  if (!parent || !BLOCK.has(parent.name) || TEXT_BLOCKS.has(parent.name)) return false;
  const blockOrNone = (step: 'prev' | 'next') => {
    // A few neighbours at most: a row of many such elements is not a line of its own.
    let seen = 0;
    for (let node = element[step]; node; node = node[step], seen++) {
      if (seen === NEIGHBOURS_SEEN) return false;
      if (node.type === 'text' && !(node as Text).data.trim()) continue;
      if (node.type === 'comment') continue;
      if (isTag(node) && BLOCK.has(node.name)) return true;
      // A line break, an icon or an empty placeholder joins no text to it; a neighbour named
      // like it goes with it.
      if (isTag(node) && (!VISIBLE.test(textOf(node)) || alike(node))) continue;
      return false;
    }
    return true;
  };
  return blockOrNone('prev') && blockOrNone('next');
}

/** Whether every link under `element` is an e-mail address or a phone number (mailto:, tel:). */
const linksOnlyToContact = (element: Element) => everyLink(element, (href) => /^\s*(?:mailto|tel):/i.test(href));

/**
 * A <div> whose only text is a line of its own, no blocks inside: a label that is not a
 * sentence ("Most read", "3:59 PM", "Show picture"), or a line that is partly links
 * ("Previous article: <link>"). Prose paragraphs are <p>; such lines are a box's furniture,
 * unless they are the cells of a grid.
 */
function isBoxLine(element: Element, measures: PageMeasures): boolean {
  if (element.name !== 'div') return false;
  const inline = measures.inline(element);
  if (!inline || inline.length === 0 || inline.length !== measures.textLength(element)) return false;
  if (inline.linkLength > LINK_LINE * inline.length) return true;
  // A <div> inside a heading is the heading's own text.
  if (inline.length >= LABEL_MAX_TEXT || isListed(element) || inGrid(element) || hasAncestor(element, HEADINGS)) return false;
  const text = textOf(element);
  // A line ending with a colon introduces what follows (a speaker, "Ingredients:").
  return !SENTENCE_END.test(text) && !/:\s*$/.test(text);
}

/**
 * A cell of a grid drawn with <div>s, a product's data or a schedule: its row has two cells or
 * more, and so do three more rows beside it. Its lines are values, not labels.
 */
function inGrid(element: Element): boolean {
  const row = parentElement(element);
  const grid = row && parentElement(row);
  if (!grid || elementChildren(row).length < 2) return false;
  return elementChildren(grid).filter((other) => elementChildren(other).length >= 2).length >= GRID_ROWS;
}
