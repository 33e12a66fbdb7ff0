/**
 * Step 6 of the main-content finder, the ends: around the article's paragraphs of prose, what
 * the markup alone did not tell goes, judged by where it stands. Before the first paragraph of
 * prose, date lines go, captions of lead pictures outside the core, and what stands above the
 * title when the title comes first; between the paragraphs, such captions and short lines
 * standing alone; after the last, leftover links (also links back to the top or the list
 * written loose beside it), labels, paragraphs boxed apart from it or linking only to social
 * networks and app stores, and orphaned headings go; throughout, the credit closing a caption
 * ("(Photo: Name)"), a picture's alt text or a short line. Text in lists and tables stays, but
 * not in tables that lay the page out (the one holding the core, or a table of one column).
 * The measures are those of step 1, taken before anything was removed.
 */
import type { AnyNode, Element, Text } from 'domhandler';
import { isTag, removeElement } from 'domutils';
import { removeAll } from '../dom-edit.js';
import { CREDIT_MAX_TEXT, LABEL_MAX_TEXT, LISTED, SENTENCE_END } from './asides.js';
import { CREDIT_PAREN, CREDIT_TAIL, isCaption, removeOuterCaption, stripAltCredits, stripCredit } from './captions.js';
import { headsLooseText, pointsToSocial, removeTrailingLinks, sameBox } from './leftovers.js';
import { type PageMeasures, isProse } from './measure.js';
import type { SweptContent } from './sweep.js';
import { BLOCK, FIGURE, HEADINGS, MEDIA, elementChildren, hasAncestor, holdsBlockText, holdsMedia, holdsTitle, parentElement, textOf, within } from './tree.js';

/** Longest line (characters) standing alone between the article's paragraphs that may go. */
const LONE_LINE_MAX_TEXT = 60;
/** A date or a time written in figures (31.05.2012, 2012-05-31, 15:40) or a year (1800-2099); not "2.0". */
const DATE_LIKE = /\b\d{1,4}[./-]\d{1,2}[./-]\d{2,4}\b|\b\d{1,2}:\d{2}\b|\b(?:1[89]|20)\d{2}\b/;
const TABLE_PARTS = new Set(['table', 'td', 'th']);

/** The kept content's blocks with text of their own, and where its prose starts and ends among them. */
interface ProseBlocks {
  keep: Element[];
  core: Element;
  measures: PageMeasures;
  /** Blocks with text of their own under the kept elements, parents before children. */
  blocks: Element[];
  /** The index of the first paragraph of prose that is not a caption (of the first caption when every one is). */
  first: number;
  /** The index of the last paragraph of prose. */
  last: number;
  /** Whether a table is of one column, remembered: a page may hold thousands of rows, each asking. */
  oneColumnTables: Map<Element, boolean>;
}

/** Trims the swept content around its prose; a content without a paragraph of prose is left as it is. */
export function trimEnds(content: SweptContent, measures: PageMeasures): SweptContent {
  const prose = proseBlocks(content, measures);
  if (!prose) return content;
  trimAboveTitle(prose);
  trimBeforeProse(prose);
  trimBetweenProse(prose);
  trimAfterProse(prose);
  trimCredits(prose);
  return content;
}

function proseBlocks({ keep, core }: SweptContent, measures: PageMeasures): ProseBlocks | undefined {
  const blocks: Element[] = [];
  for (const element of keep) textBlocks(element, measures, blocks);
  const oneColumnTables = new Map<Element, boolean>();
  let last = -1;
  blocks.forEach((element, index) => {
    if (isProse(element, measures)) last = index;
  });
  if (last < 0) return undefined;
  // A long caption under the lead picture is not where the article's prose begins; when every
  // paragraph of prose is a caption, the first of them is.
  const uncaptioned = blocks.findIndex((element) => isProse(element, measures) && !isCaption(element));
  const first = uncaptioned >= 0 ? uncaptioned : blocks.findIndex((element) => isProse(element, measures));
  return { keep, core, measures, blocks, first, last, oneColumnTables };
}

/** Blocks with text of their own under `element`, parents before children (document order). */
function textBlocks(element: Element, measures: PageMeasures, out: Element[]) {
  for (const child of element.children) {
    if (!isTag(child)) continue;
    const inline = measures.inline(child);
    if (inline && inline.length > 0 && BLOCK.has(child.name)) out.push(child);
    textBlocks(child, measures, out);
  }
}

/**
 * Above the title, when the title comes before the prose: a kicker, a "Back to the list" link,
 * a reading time, a credit. Captions stay; a block that holds the title loses only its own
 * text before it.
 */
function trimAboveTitle({ blocks, first, measures }: ProseBlocks) {
  const title = blocks.findIndex((element) => element.name === 'h1');
  if (!(title > 0 && title < first)) return;
  for (const element of blocks.slice(0, title)) {
    if (!holdsTitle(element)) {
      if (!isCaption(element)) removeElement(element);
      continue;
    }
    for (const child of [...element.children]) {
      if (isTag(child) && (child.name === 'h1' || holdsTitle(child))) break;
      if (child.type === 'text' || (isTag(child) && !BLOCK.has(child.name) && measures.textLength(child) > 0)) removeElement(child);
    }
  }
}

/**
 * Before the first paragraph of prose: lines with a date or a time in them that are not
 * sentences, the date, the byline with its date, also written loose between a container's
 * blocks. Captions, headings and, inside the core, other lines with figures (a price, an
 * address, "5 tips for your loan") stay.
 */
function trimBeforeProse(prose: ProseBlocks) {
  const { blocks, first, core, measures } = prose;
  for (const element of blocks.slice(0, first)) {
    if (removeOuterCaption(element, core, measures)) continue;
    if (HEADINGS.has(element.name) || listedBeside(element, prose) || isCaption(element)) continue;
    const inline = measures.inline(element)!;
    if (inline.length !== measures.textLength(element)) {
      removeDateRuns(element, measures);
      continue;
    }
    if (inline.length >= LABEL_MAX_TEXT) continue;
    const text = textOf(element);
    if (DATE_LIKE.test(text) && !SENTENCE_END.test(text)) removeElement(element);
    // Outside the core, any such line that is not a sentence or an introduction: "Asked 8 years
    // ago", an agency credit, an advertising note. A line holding a picture stays.
    else if (!within(element, core) && !SENTENCE_END.test(text) && !/:\s*$/.test(text) && !hasAncestor(element, FIGURE) && !holdsMedia(element))
      removeElement(element);
  }
}

/**
 * Between the first and the last prose: captions outside the core, and a short line that is
 * not a sentence, standing alone between blocks of other containers ("Show sources", "Download
 * as PDF", a credit under a picture). An introduction ending with a colon and a numbered step
 * ("1. Choose a pot") stay. Headings stay, except one outside the core followed at once by
 * another heading.
 */
function trimBetweenProse(prose: ProseBlocks) {
  const { blocks, first, last, core, measures } = prose;
  for (let index = first + 1; index < last; index++) {
    const element = blocks[index]!;
    // A heading outside the core followed at once by another heading heads nothing of its own:
    // the title of a box of teasers ("More on this" above the teasers' titles).
    if (HEADINGS.has(element.name)) {
      if (HEADINGS.has(blocks[index + 1]!.name) && !within(element, core) && !/:\s*$/.test(textOf(element))) removeElement(element);
      continue;
    }
    // A caption outside the core, as before the prose: a gallery's or a teaser's legend.
    if (removeOuterCaption(element, core, measures)) continue;
    if (listedBeside(element, prose) || isCaption(element) || hasAncestor(element, FIGURE) || hasAncestor(element, HEADINGS)) continue;
    const inline = measures.inline(element)!;
    if (inline.length >= LONE_LINE_MAX_TEXT || inline.length !== measures.textLength(element)) continue;
    if (blocks[index - 1]!.parent === element.parent || blocks[index + 1]!.parent === element.parent) continue;
    const text = textOf(element).trim();
    if (!SENTENCE_END.test(text) && !/:\s*$/.test(text) && !/^\d+[.)]\s/.test(text)) removeElement(element);
  }
}

/**
 * After the last paragraph of prose come the article's leftovers: "Read more" links, labels
 * such as "More on this:" or "Share", paragraphs in another block than that last one (appeals
 * and notes in boxes of their own), and headings of boxes already removed. They go; text in
 * lists and tables, and sentences beside the last paragraph, stay.
 */
function trimAfterProse(prose: ProseBlocks) {
  const { blocks, last, keep } = prose;
  const lastProse = blocks[last]!;
  // The block holding the last prose; a quotation ending the article is inside it, not a box.
  let proseBox = lastProse.parent;
  while (proseBox && isTag(proseBox) && proseBox.name === 'blockquote') proseBox = proseBox.parent;
  const tail = blocks.slice(last + 1).filter((element) => {
    for (let node: AnyNode | null = lastProse.parent; node; node = node.parent) if (node === element) return false;
    return true;
  });
  removeLinksBackUp(lastProse, keep);
  // Backwards: a heading goes when nothing it heads is left.
  let textAfter = false;
  for (let index = tail.length - 1; index >= 0; index--) {
    const element = tail[index]!;
    const heading = HEADINGS.has(element.name);
    if (isLeftover(element, heading, textAfter, proseBox, prose)) removeElement(element);
    else if (!heading) textAfter = true;
  }
}

/**
 * Links back up the page or the site written loose after the last prose, in the blocks that
 * hold it ("Back to top", "Back to the list"): the blocks themselves stay, with the prose.
 */
function removeLinksBackUp(lastProse: Element, keep: Element[]) {
  for (
    let child: Element = lastProse, holder = parentElement(lastProse);
    holder && keep.some((element) => within(holder!, element));
    child = holder, holder = parentElement(holder)
  ) {
    removeTrailingLinks(holder, child);
    if (keep.includes(holder)) break;
  }
}

/**
 * Whether a block after the last prose is a leftover: a heading with nothing left to head
 * (`textAfter` says whether text stays after it), a label, a line that is mostly links, a
 * paragraph boxed apart from `proseBox` or pointing to social networks, or, outside the core,
 * a line that is not a paragraph.
 */
function isLeftover(element: Element, heading: boolean, textAfter: boolean, proseBox: AnyNode | null, prose: ProseBlocks): boolean {
  const { core, measures } = prose;
  let drop = heading && !textAfter && !headsLooseText(element);
  if (!heading && !listedBeside(element, prose)) {
    const inline = measures.inline(element)!;
    const text = textOf(element);
    const label = (element.name !== 'p' || (/:\s*$/.test(text) && inline.length <= 40)) && inline.length < 100 && !SENTENCE_END.test(text);
    // A paragraph outside the block that holds the last prose is a box of its own
    // ("Subscribe to our newsletter", "Follow us on ..."), not the article's closing line,
    // unless it is a sentence in a component like the prose's (one per paragraph); so is one
    // whose every link leads to a social network or an app store.
    const boxed = element.name === 'p' && element.parent !== proseBox && !(SENTENCE_END.test(text) && sameBox(element, proseBox));
    drop = inline.linkLength > 0.3 * inline.length || label || boxed || pointsToSocial(element);
  }
  // Outside the core, a heading or a line that is not a paragraph belongs to a box added
  // after the article (a comment form, a contact box, a share prompt); one introducing what
  // follows with a colon, or holding a picture, stays.
  if (!drop && element.name !== 'p' && !listedBeside(element, prose) && !within(element, core) && !/:\s*$/.test(textOf(element)) && !holdsMedia(element))
    drop = true;
  // A block whose own line goes may still hold blocks that stay (a label over a list of
  // values): it stays with them.
  if (drop && !heading && measures.inline(element)!.length < measures.textLength(element) && holdsBlockText(element)) drop = false;
  return drop;
}

/**
 * Throughout: credits closing a caption ("... (Photo: Name)", "... Photo: Name", "... Name/Agency"),
 * or a caption that is only one; a short line closing with "(Label: Name)"; and the same credit
 * closing a picture's alt text.
 */
function trimCredits({ blocks, keep, measures }: ProseBlocks) {
  for (const element of blocks) {
    if (!element.parent) continue;
    const caption = isCaption(element) || hasAncestor(element, FIGURE);
    if (caption || measures.textLength(element) < CREDIT_MAX_TEXT) stripCredit(element, caption ? CREDIT_TAIL : CREDIT_PAREN, caption);
  }
  for (const element of keep) stripAltCredits(element);
}

/**
 * Whether `element` is in a list or a table (see LISTED), but a table that lays the page out is
 * not a list: the cell holding the core and its table, and a table of one column (title, text
 * and details stacked in rows).
 */
function listedBeside(element: Element, { core, measures, oneColumnTables }: ProseBlocks): boolean {
  for (let node: Element | undefined = element; node; node = parentElement(node)) {
    if (!LISTED.has(node.name)) continue;
    if (!TABLE_PARTS.has(node.name)) return true;
    if (within(core, node)) continue;
    let table: Element | undefined = node;
    while (table && table.name !== 'table') table = parentElement(table);
    if (!table) return true;
    let single = oneColumnTables.get(table);
    if (single === undefined) oneColumnTables.set(table, (single = oneColumn(table, measures)));
    if (!single) return true;
  }
  return false;
}

/** Whether no row of a table (nested tables aside) has two cells with text. */
function oneColumn(table: Element, measures: PageMeasures): boolean {
  const rows = (node: Element): boolean =>
    elementChildren(node).every((child) => {
      if (child.name === 'tr')
        return elementChildren(child).filter((cell) => (cell.name === 'td' || cell.name === 'th') && measures.textLength(cell) > 0).length <= 1;
      return child.name === 'table' || rows(child);
    });
  return rows(table);
}

/**
 * A date line written loose between the blocks of a container (the title, then "January 13,
 * 2020 | categories: ... | View comments", then the text): each run of text and inline elements
 * between blocks that is short, has a date in it and is not a sentence goes.
 */
function removeDateRuns(element: Element, measures: PageMeasures) {
  let run: AnyNode[] = [];
  const flush = () => {
    const text = run
      .map((node) => (node.type === 'text' ? (node as Text).data : isTag(node) ? textOf(node) : ''))
      .join('')
      .replace(/\s+/g, ' ')
      .trim();
    if (text.length > 0 && text.length < LABEL_MAX_TEXT && DATE_LIKE.test(text) && !SENTENCE_END.test(text)) removeAll(run);
    run = [];
  };
  for (const child of [...element.children]) {
    if (isTag(child) && (BLOCK.has(child.name) || MEDIA.has(child.name))) {
      flush();
      // What follows the prose is not before it.
      if (measures.prose(child) > 0) return;
    } else run.push(child);
  }
  flush();
}
