/**
 * Step 5 of the main-content finder, the sweep: inside what is kept, chrome, forms, comments,
 * clutter, teaser feeds (and, after the first paragraph, a lone teaser card), small boxes
 * around a button link and link lists go, but never the core or a block that holds it: a
 * wrapper named like a share bar can still be the article; a list of related stories goes
 * however much prose its excerpts hold. So do the article's own asides (asides.ts), last, unless
 * they are all it has. A page without a core is swept whole the same way, but keeps its link
 * lists (they may be all it has), and keeps everything when the sweep would leave too little.
 */
import type { Element } from 'domhandler';
import { isTag } from 'domutils';
import { removeAll } from '../dom-edit.js';
import { LABEL_MAX_TEXT, isInlineBoilerplate } from './asides.js';
import { type PageMeasures, TAIL_PROSE, isProse } from './measure.js';
import { BUTTON_STEMS, CLUTTER_STEMS, RELATED_STEMS, matches } from './names.js';
import { BLOCK, HEADINGS, MEDIA, TEXT_BLOCKS, VISIBLE, elementChildren, holdsTitle, parentElement } from './tree.js';
import type { Extent } from './widen.js';

const FORM_CONTROLS = new Set(['button', 'select', 'input', 'textarea', 'option']);
/** Without a core, the sweep may take at most this much less than all of the page's text. */
const MIN_KEPT_SHARE = 0.2;
/** A container whose text is more than this share of links is a link list. */
const LIST_LINKS = 0.5;
const LINK_LIST_CONTAINERS = new Set(['div', 'section', 'ul', 'ol', 'dl', 'table', 'menu', 'header', 'form', 'details', 'center']);
/** Text per card below which headings linking elsewhere make a block a feed of teasers. */
const FEED_TEXT_PER_CARD = 400;
const CARD_TAGS = new Set(['div', 'section', 'article']);
/** Text (characters) under which a box with a button link is a promotion, not a section. */
const PROMO_MAX_TEXT = 400;

/** The main content once swept: what is kept, cleaned inside. */
export interface SweptContent {
  /** The elements kept, in document order. */
  keep: Element[];
  core: Element;
}

/** What the sweep carries down the tree. */
interface Sweep {
  measures: PageMeasures;
  core?: Element;
  /** Link lists go too (not when the page has no core: they may be all it has). */
  linkLists: boolean;
  ancestorsOfCore: Set<Element>;
  coreProse: number;
  /** Characters of text of the whole page, for a page without a core. */
  pageText: number;
  /** The article's own asides (credits, bylines, "Read also" links), removed last. */
  asides: Element[];
  /** Whether a paragraph of prose has been passed: a card before it may be the article's own title. */
  proseSeen?: boolean;
  /** The core's paragraphs are (all but one) in blocks named as comments: a forum's posts, a ticker's entries. */
  commentsAreContent?: boolean;
}

/** Sweeps the kept blocks of `extent`, then removes the article's asides unless they are all it has. */
export function sweepContent({ core, content, kept }: Extent, measures: PageMeasures): SweptContent {
  const ancestorsOfCore = new Set<Element>();
  for (let node = parentElement(core); node; node = parentElement(node)) ancestorsOfCore.add(node);
  const context: Sweep = {
    measures,
    core,
    linkLists: true,
    ancestorsOfCore,
    coreProse: measures.prose(core),
    pageText: 0,
    asides: [],
    commentsAreContent: commentsAreContent(core, measures),
  };
  const removed: Element[] = [];
  for (const element of kept) {
    // A sibling kept for its place (the line before the article) may itself be an aside.
    if (element !== content && isInlineBoilerplate(element, measures)) context.asides.push(element);
    else sweep(element, context, removed);
  }
  removeAll(removed);
  // The article's asides go unless they are all it has (a lone captioned picture).
  const text = (elements: Element[]) => elements.reduce((sum, element) => sum + measures.textLength(element), 0);
  if (text(kept) - text(removed) - text(context.asides) > 0) removeAll(context.asides);
  return { keep: kept.filter((element) => element.parent), core };
}

/**
 * Sweeps a page without a core, link lists aside. A page that would lose nearly all its text to
 * the sweep keeps it all (but form controls): some text is better than an empty page.
 */
export function sweepPage(root: Element, measures: PageMeasures): void {
  const pageText = measures.textLength(root);
  const removed: Element[] = [];
  sweep(root, { measures, linkLists: false, ancestorsOfCore: new Set(), coreProse: 0, pageText, asides: [] }, removed);
  const removedText = removed.reduce((sum, element) => sum + measures.textLength(element), 0);
  removeAll(removed.filter((element) => pageText - removedText >= MIN_KEPT_SHARE * pageText || FORM_CONTROLS.has(element.name)));
}

/**
 * Collects in `removed`, under `element`, what is not content: chrome, comments and clutter
 * blocks (unless they hold the core, or prose on the core's scale), link lists and form
 * controls; and in the context's asides the article's own. The core and the blocks around it
 * are never removed.
 */
function sweep(element: Element, context: Sweep, removed: Element[]) {
  const { measures, core, ancestorsOfCore } = context;
  for (const child of [...element.children]) {
    if (!isTag(child)) continue;
    if (child === core || ancestorsOfCore.has(child)) {
      sweep(child, context, removed);
      continue;
    }
    if (FORM_CONTROLS.has(child.name)) {
      removed.push(child);
      continue;
    }
    const flagged = goesFlagged(child, context);
    const list = goesAsList(child, context);
    if (flagged || list) {
      removed.push(child);
      // The heading of a list of links or teasers ("Related", "More on this") goes with it,
      // unless prose follows the list in its section.
      if (core !== undefined && list) {
        const heading = headingBefore(child, measures);
        if (heading && !removed.includes(heading) && !proseAfter(child, measures)) removed.push(heading);
      }
      continue;
    }
    // A teaser card among or after the paragraphs points to another story; before them, the same
    // markup can be the article's own linked title. A small box with a button link is a promotion.
    if (core !== undefined && (isInlineBoilerplate(child, measures) || (context.proseSeen && isCard(child, measures)) || isPromo(child, measures))) {
      context.asides.push(child);
      continue;
    }
    if (!context.proseSeen && measures.inline(child) && isProse(child, measures)) context.proseSeen = true;
    sweep(child, context, removed);
  }
}

/**
 * Whether a block goes for what it is named: chrome, comments (unless they are the page's
 * content) or clutter that is not substantial, or a header of links.
 */
function goesFlagged(child: Element, { measures, core, coreProse, pageText, commentsAreContent }: Sweep): boolean {
  const named = measures.flag(child);
  const flag = named === 'comments' && commentsAreContent ? undefined : named;
  // Without a core, nothing flagged that holds most of the page goes: a wrapper named like
  // chrome (`menu-open`, `has-sidebar`) around the whole page would leave nothing. With a
  // core, a flagged block with prose on the core's scale (and a paragraph's length at least:
  // a core of short lines makes no scale) stays, unless it lists other stories.
  const substantial =
    flag !== 'comments' &&
    !matches(measures.words(child), RELATED_STEMS) &&
    (core !== undefined ? measures.prose(child) >= Math.max(0.5 * coreProse, TAIL_PROSE) : measures.textLength(child) >= 0.5 * pageText);
  const headerOfLinks = (child.name === 'header' || measures.words(child).includes('header')) && measures.linkDensity(child) > LIST_LINKS;
  return (!!flag && !substantial) || headerOfLinks;
}

/** Whether a block goes as a list of links (only when the page has a core to keep) or a feed of teasers. */
function goesAsList(child: Element, { measures, core, linkLists }: Sweep): boolean {
  const linkList =
    linkLists && LINK_LIST_CONTAINERS.has(child.name) && !TEXT_BLOCKS.has(child.name) && measures.linkDensity(child) > LIST_LINKS && !holdsHeadedTable(child);
  return linkList || (core !== undefined && isFeed(child, measures));
}

/**
 * Whether the core's paragraphs, all but one at most, lie in blocks named as comments: then the
 * page is a discussion (a forum thread, a live ticker) and those blocks are its content.
 */
function commentsAreContent(core: Element, measures: PageMeasures): boolean {
  let all = 0;
  let inComments = 0;
  const walk = (element: Element, underComments: boolean) => {
    for (const child of element.children) {
      if (!isTag(child)) continue;
      const block = BLOCK.has(child.name);
      const under = underComments || (block && measures.flag(child) === 'comments');
      if (block && measures.isParagraph(child)) {
        all++;
        if (under) inComments++;
      }
      walk(child, under);
    }
  };
  walk(core, measures.flag(core) === 'comments');
  return inComments >= 2 && all - inComments <= 1;
}

/**
 * The heading just before `element` (whitespace and empty elements skipped), or a block holding
 * only such a heading: a short one, never the title.
 */
function headingBefore(element: Element, measures: PageMeasures): Element | undefined {
  let previous = element.prev;
  while (
    previous &&
    (isTag(previous)
      ? measures.textLength(previous) === 0 && !MEDIA.has(previous.name)
      : previous.type !== 'text' || !VISIBLE.test((previous as { data: string }).data))
  )
    previous = previous.prev;
  if (!previous || !isTag(previous)) return undefined;
  const text = measures.textLength(previous);
  if (text === 0 || text >= LABEL_MAX_TEXT || previous.name === 'h1' || holdsTitle(previous)) return undefined;
  for (let node = previous; !HEADINGS.has(node.name); ) {
    const withText = elementChildren(node).filter((child) => measures.textLength(child) > 0);
    if (withText.length !== 1 || measures.textLength(withText[0]!) !== text) return undefined;
    node = withText[0]!;
  }
  return previous;
}

/** Whether the next sibling with text after `element` holds prose. */
function proseAfter(element: Element, measures: PageMeasures): boolean {
  let next = element.next;
  while (next && (!isTag(next) || measures.textLength(next) === 0)) next = next.next;
  return !!next && isTag(next) && measures.prose(next) > 0;
}

/** A table whose columns have header cells (<th>): data, however many of its cells are links. */
function headedTable(element: Element): boolean {
  if (element.name !== 'table') return false;
  const rows = elementChildren(element).flatMap((child) => (child.name === 'tr' ? [child] : elementChildren(child).filter((row) => row.name === 'tr')));
  return rows.length > 0 && elementChildren(rows[0]!).filter((cell) => cell.name === 'th').length >= 2;
}

/** A block holding such a table is not a list of links either: the sweep goes on inside it. */
const holdsHeadedTable = (element: Element): boolean => headedTable(element) || elementChildren(element).some(holdsHeadedTable);

/** Teaser cards: several headings linking elsewhere, each with little text of its own. */
function isFeed(element: Element, measures: PageMeasures): boolean {
  const headings = measures.of(element).linkHeadings;
  return headings >= 2 && measures.textLength(element) < headings * FEED_TEXT_PER_CARD;
}

/** One teaser card: a box with a heading linking elsewhere and a line or two under it. */
function isCard(element: Element, measures: PageMeasures): boolean {
  return CARD_TAGS.has(element.name) && measures.of(element).linkHeadings === 1 && measures.textLength(element) < FEED_TEXT_PER_CARD;
}

/**
 * A small box around a button link that says something in a paragraph: an appeal, an offer, a
 * print or subscribe box. A price and "Add to cart" say nothing of the kind: they stay. The
 * measures come first, so only such boxes are walked for their links.
 */
function isPromo(element: Element, measures: PageMeasures): boolean {
  return CARD_TAGS.has(element.name) && measures.textLength(element) < PROMO_MAX_TEXT && measures.prose(element) > 0 && holdsButtonLink(element, measures);
}

/** A link drawn as a button with words of its own (not a share icon) somewhere under `element`. */
function holdsButtonLink(element: Element, measures: PageMeasures): boolean {
  for (const child of element.children) {
    if (!isTag(child)) continue;
    if (child.name === 'a' && measures.textLength(child) > 0) {
      const words = measures.words(child);
      if (matches(words, BUTTON_STEMS) && !matches(words, CLUTTER_STEMS)) return true;
    }
    // A bar of share buttons (`socialsharing-buttons`) is told by its own name.
    if (measures.flag(child) !== 'clutter' && holdsButtonLink(child, measures)) return true;
  }
  return false;
}
