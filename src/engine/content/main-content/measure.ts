/**
 * Step 1 of the main-content finder, paragraphs: one walk over the page measures every element
 * once (its text and link text, a block's own inline text, the prose inside it, the headings in
 * it that link elsewhere) and finds the paragraphs: every block whose own inline text (text not
 * inside a nested block) is long enough: <p>, but also list items, cells, and divs used as
 * paragraphs. Link-heavy ones are navigation and do not count. What an element's tag, role,
 * class or id says it is (chrome, comments, clutter) is looked up here too, once per element.
 * Re-reading subtrees for every question made the finder quadratic: the later steps ask these
 * measures, taken before anything is removed.
 */
import type { Element } from 'domhandler';
import { isTag } from 'domutils';
import { CHROME_STEMS, CLUTTER_STEMS, COMMENT_STEMS, CONTENT_STEMS, PAYWALL_STEMS, cachedNameWords, matches, nameWords } from './names.js';
import { BLOCK, HEADINGS, SEMANTIC_TAGS, SPACE_RUNS, VISIBLE, closestLink, findLink, textOf } from './tree.js';

/** Inline text (characters) from which a block is a paragraph. */
export const MIN_TEXT = 25;
/** A paragraph whose text is more than this share of links is navigation. */
const PARAGRAPH_LINKS = 0.5;
/**
 * Link text (characters) from which a block's flag is looked up to leave its links out of the
 * density of the blocks around it: less hardly moves it, and most elements need no look-up.
 */
const LINK_BOX = 100;
/** A paragraph at least this long (characters, few links) marks where the article's prose may end. */
export const TAIL_PROSE = 100;
const CHROME_TAGS = new Set(['nav', 'aside', 'footer', 'dialog']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'dialog', 'alertdialog', 'menu', 'menubar']);

export type Flag = 'chrome' | 'comments' | 'clutter';

/** A block's own inline text: what it says itself, not its nested blocks. */
export interface InlineText {
  length: number;
  linkLength: number;
  commas: number;
}

/** What is measured of each element. */
export interface Stats {
  text: number;
  links: number;
  /** Characters of good paragraphs inside, flagged blocks below counting for nothing. */
  prose: number;
  /** Link text outside flagged blocks below. */
  unflaggedLinks: number;
  /** Headings inside that are links to other pages: the mark of teaser cards. */
  linkHeadings: number;
  /** A block's own inline text; undefined for inline elements. */
  inline: InlineText | undefined;
}

const NO_STATS: Stats = { text: 0, links: 0, unflaggedLinks: 0, prose: 0, linkHeadings: 0, inline: undefined };

/** The measures of the page under `root` (the body), taken in one walk. */
export function measurePage(root: Element): PageMeasures {
  return new PageMeasures(root);
}

/**
 * Everything the choice needs, each measured once per element: text and link-text lengths,
 * own inline text, flags and prose.
 */
export class PageMeasures {
  private readonly stats = new Map<Element, Stats>();
  private readonly flags = new Map<Element, Flag | undefined>();
  /** Blocks in document order (parents after their children), with their own inline text. */
  readonly blocks: Element[] = [];

  constructor(root: Element) {
    this.measure(root, { length: 0, linkLength: 0, commas: 0 }, false, true);
  }

  /** One walk, children before parents: lengths, each block's own inline text, prose, link headings. */
  private measure(element: Element, enclosing: InlineText, inLink: boolean, isRoot = false): Stats {
    const ownBlock = isRoot || BLOCK.has(element.name);
    const block = ownBlock && !isRoot ? { length: 0, linkLength: 0, commas: 0 } : enclosing;
    // A named anchor without href (<a name="part-2">) is a place to jump to, not a link; an <a>
    // without either may still be a link a script follows.
    const linked = inLink || (element.name === 'a' && (element.attribs.href !== undefined || element.attribs.name === undefined));
    const stats: Stats = { text: 0, links: 0, unflaggedLinks: 0, prose: 0, linkHeadings: 0, inline: ownBlock ? block : undefined };
    const children = element.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      const type = child.type;
      if (type === 'text') {
        const length = scanText((child as { data: string }).data);
        if (length === 0) continue;
        stats.text += length;
        block.length += length;
        block.commas += scannedCommas;
        if (linked) {
          stats.links += length;
          stats.unflaggedLinks += length;
          block.linkLength += length;
        }
      } else if (type === 'tag' || type === 'script' || type === 'style') {
        const inside = this.measure(child as Element, block, linked);
        stats.text += inside.text;
        stats.links += inside.links;
        if (inside.unflaggedLinks > 0 && !(inside.unflaggedLinks >= LINK_BOX && mayBeFlagged(child as Element) && this.flag(child as Element)))
          stats.unflaggedLinks += inside.unflaggedLinks;
        if (inside.prose > 0 && !this.flag(child as Element)) stats.prose += inside.prose;
        stats.linkHeadings += inside.linkHeadings;
      }
    }
    this.stats.set(element, stats);
    if (ownBlock) {
      this.blocks.push(element);
      if (this.isParagraph(element)) stats.prose += block.length;
      if (this.isLinkHeading(element)) stats.linkHeadings++;
    }
    return stats;
  }

  of(element: Element): Stats {
    return this.stats.get(element) ?? NO_STATS;
  }

  inline(element: Element): InlineText | undefined {
    return this.stats.get(element)?.inline;
  }

  prose(element: Element): number {
    return this.of(element).prose;
  }

  /** A block that reads as a paragraph: enough text of its own, mostly not links. */
  isParagraph(element: Element): boolean {
    const inline = this.inline(element);
    return !!inline && inline.length >= MIN_TEXT && inline.linkLength <= inline.length * PARAGRAPH_LINKS && !HEADINGS.has(element.name);
  }

  /** A heading that is (mostly) a link to another page, as in a card pointing to a story. */
  private isLinkHeading(element: Element): boolean {
    if (!HEADINGS.has(element.name)) return false;
    const inline = this.inline(element);
    if (!inline || inline.length === 0 || inline.linkLength < 0.6 * inline.length) return false;
    const href = closestLink(element)?.attribs.href ?? findLink(element)?.attribs.href ?? '';
    return href !== '' && !href.startsWith('#');
  }

  textLength(element: Element): number {
    return this.of(element).text;
  }

  linkTextLength(element: Element): number {
    return this.of(element).links;
  }

  /**
   * The share of an element's text in links outside its flagged blocks: a share bar's or a
   * related box's links do not make the article around them a list of links.
   */
  unflaggedLinkDensity(element: Element): number {
    const { text, unflaggedLinks } = this.of(element);
    return text === 0 ? 0 : Math.min(1, unflaggedLinks / text);
  }

  linkDensity(element: Element): number {
    const total = this.textLength(element);
    return total === 0 ? 0 : Math.min(1, this.linkTextLength(element) / total);
  }

  words(element: Element): string[] {
    const { class: className = '' } = element.attribs;
    let { id = '' } = element.attribs;
    // A heading's id spelled from its own words (`nav_the_last_step`) is an anchor, not a role.
    if (id !== '' && HEADINGS.has(element.name) && spellsText(id, element)) id = '';
    if (className === '' && id === '') return [];
    return cachedNameWords(`${className} ${id}`);
  }

  /** What the element's own tag, role, class or id says it is, if not content. */
  flag(element: Element): Flag | undefined {
    if (this.flags.has(element)) return this.flags.get(element);
    const { class: className = '', id = '', role = '' } = element.attribs;
    let flag: Flag | undefined;
    if (CHROME_TAGS.has(element.name) || CHROME_ROLES.has(role.trim().toLowerCase()) || element.name === 'form') flag = 'chrome';
    else if (className !== '' || id !== '') {
      const words = this.words(element);
      if (matches(words, COMMENT_STEMS)) flag = 'comments';
      else if (matches(words, CHROME_STEMS)) flag = 'chrome';
      // An article named for the paywall it is behind (`article isPaywall`) is the article.
      else if (matches(words, CLUTTER_STEMS) && !(matches(words, PAYWALL_STEMS) && matches(words, CONTENT_STEMS))) flag = 'clutter';
    }
    // A block with a close button of its own lies over the page: a popup, a notice, a dialog
    // named for nothing else.
    if (
      !flag &&
      element.name !== 'body' &&
      element.children.some((child) => isTag(child) && (child.attribs.class ?? '').includes('lose') && this.words(child).includes('close'))
    )
      flag = 'clutter';
    this.flags.set(element, flag);
    return flag;
  }
}

/** Whether a block's tag, name or microdata says it is the content. */
export function namedContent(element: Element, measures: PageMeasures): boolean {
  return matches(measures.words(element), CONTENT_STEMS) || SEMANTIC_TAGS.has(element.name) || element.attribs.itemprop === 'articleBody';
}

/** A paragraph of the article's prose: long enough, few links, not a heading or a list item. */
export function isProse(element: Element, measures: PageMeasures): boolean {
  const inline = measures.inline(element)!;
  return !HEADINGS.has(element.name) && element.name !== 'li' && inline.length >= TAIL_PROSE && inline.linkLength < 0.3 * inline.length;
}

/** Commas (Latin, full-width, ideographic) of the text last given to scanText. */
let scannedCommas = 0;

function count(text: string, character: string): number {
  let found = 0;
  for (let at = text.indexOf(character); at !== -1; at = text.indexOf(character, at + 1)) found++;
  return found;
}

/**
 * The length of `text` with each run of whitespace counted as one character (0 for whitespace
 * alone), without building the string; counts its commas on the way. Built-in searches, not a
 * loop over characters: parsed text is often a slice or a concatenation of the page's string,
 * which makes reading it character by character slow.
 */
function scanText(text: string): number {
  if (!VISIBLE.test(text)) return 0;
  let length = text.length;
  SPACE_RUNS.lastIndex = 0;
  for (let run = SPACE_RUNS.exec(text); run !== null; run = SPACE_RUNS.exec(text)) length -= run[0].length - 1;
  scannedCommas = count(text, ',') + count(text, '\uff0c') + count(text, '\u3001');
  return length;
}

/**
 * Whether a flag is worth looking up: a block with a name, a role or a tag of chrome. Most of a
 * page's elements (links, spans, list items without a class) are not.
 */
function mayBeFlagged(element: Element): boolean {
  const { attribs } = element;
  return (
    BLOCK.has(element.name) &&
    (attribs.class !== undefined || attribs.id !== undefined || attribs.role !== undefined || CHROME_TAGS.has(element.name) || element.name === 'form')
  );
}

/** Whether two words or more of `name` are words of the element's text. */
function spellsText(name: string, element: Element): boolean {
  const said = new Set(
    textOf(element)
      .toLowerCase()
      .split(/[^\p{L}\d]+/u),
  );
  return nameWords(name).filter((word) => said.has(word)).length >= 2;
}
