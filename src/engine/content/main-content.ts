/**
 * Finding the main content of a page, deterministically, in one place:
 *
 * 1. Paragraphs: every block whose own inline text (text not inside a nested block) is long
 *    enough: <p>, but also list items, cells, and divs used as paragraphs. Link-heavy ones
 *    are navigation and do not count.
 * 2. Scores: each paragraph gives points (length, commas) to its container and, less and less,
 *    to the containers above; a container's score is cut by its link density (links in its
 *    flagged blocks aside) and by class or id words of page chrome, comments and clutter, or a
 *    close button of a popup (its own or an ancestor's).
 * 3. The best container is the core (one paragraph of prose, or one short line in a block named
 *    as the post). It widens to an ancestor that holds half again as much
 *    prose (an article split over sections) or that adds little besides (its heading, byline,
 *    a second short block; without links or prose, up to as much again: ingredients, a data
 *    table), up to an article or main, but not past a table cell with others beside it (a
 *    layout's side column); siblings that are prose or the heading just before it come along.
 * 4. Inside what is kept, chrome, forms, comments, clutter, teaser feeds (and, after the first
 *    paragraph, a lone teaser card), small boxes around a button link and link lists go, but
 *    never the core or a block that holds it: a wrapper named like a share bar can still be the
 *    article; a list of related stories goes however much prose its excerpts hold. So do the
 *    article's own asides, told by markup: "Read also" links, credits, author boxes, dates,
 *    tags, ratings (also a <span> standing as a line of its own), and <div> lines that are
 *    labels or links, not sentences.
 * 5. Before the first paragraph of prose, date lines go, captions of lead pictures outside the
 *    core, and what stands above the title when the title comes first; between the paragraphs,
 *    such captions and short lines standing alone; after the last, leftover links (also links
 *    back to the top or the list written loose beside it), labels,
 *    paragraphs boxed apart from it or linking only to social networks and app stores, and
 *    orphaned headings go; throughout, the credit closing a caption ("(Photo: Name)"), a
 *    picture's alt text or a short line. Text in lists and tables stays, but not in tables that
 *    lay the page out (the one holding the core, or a table of one column).
 */
import type { AnyNode, Element, Text } from 'domhandler';
import { isTag, removeElement } from 'domutils';
import { removeAll } from './dom-edit.js';

const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'center', 'dd', 'details', 'dialog', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr',
  'html', 'li', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th',
  'thead', 'tr', 'ul',
]);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Blocks that are sentences or headings: judged by what they say, never as link lists. */
const TEXT_BLOCKS = new Set(['p', 'pre', 'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'td', 'th', 'li', 'dt', 'dd', 'figcaption', 'caption', 'summary']);
const CHROME_TAGS = new Set(['nav', 'aside', 'footer', 'dialog']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'dialog', 'alertdialog', 'menu', 'menubar']);
const FORM_CONTROLS = new Set(['button', 'select', 'input', 'textarea', 'option']);
/** A flagged block holding this share of the page's text is a layout wrapper to the scores. */
const WRAPPER_SHARE = 0.6;
/** Without a core, the sweep may take at most this much less than all of the page's text. */
const MIN_KEPT_SHARE = 0.2;

/**
 * Class and id words. Names are split on spaces, dashes, underscores, digits and camelCase;
 * a word matches a stem exactly, or, for a stem marked `*` (long enough to be unambiguous),
 * starts with it (`relatedposts`, `sharedaddy`, `commentlist`).
 */
const CHROME_STEMS = stems('sidebar menu menus navbar nav navigation masthead toolbar footer banner breadcrumb* pagination* pager skip');
const COMMENT_STEMS = stems('comment* disqus* respond responses');
const CLUTTER_STEMS = stems(
  'cookie* consent* gdpr share* social* newsletter* subscribe* subscription* related* recommend* promo* advert* ad ads sponsor* popup* modal overlay signup paywall* outbrain* taboola* trending* popular* shariff* appstore* flyout*',
);
/**
 * Clutter that lies over the page (dialogs, consent boxes): never a layout's wrapper. A
 * paywall's name is not here: `content-behind-paywall` holds the article.
 */
const OVERLAY_STEMS = stems('cookie* consent* gdpr popup* modal overlay');
const PAYWALL_STEMS = stems('paywall*');
/** Lists of other stories: however much prose their excerpts hold, never the article's own. */
const RELATED_STEMS = stems('related* recommend*');
/**
 * Small blocks inside the article that are about it, not of it: photo credits, the author's
 * box and byline, dates and other post metadata, tags, ratings, disclaimers, disclosures,
 * affiliate notes, appendices with a suggested citation, notices, a reviewer's note, contact
 * boxes and appeals.
 * Captions themselves stay (a reader sees them under the picture); their credit line goes.
 */
const CREDIT_STEMS = stems('credit* copyright* attribution');
const ABOUT_STEMS = stems(
  'credit* copyright* author* autor* bio biography byline* saboxplugin* meta metadata postmeta* postmetadata metaline utility dateline date timestamp posted* published* updated tags taglist taglinks categories rating* ratings disclaimer disclosure* affiliate* appendix citation* notice reviewed contact* donation* donate* cta',
);
/** Longest block (characters) that class words alone may remove from inside the content. */
const ABOUT_MAX_TEXT = 800;
/** A block shorter than this holding © or (c) is a credit or a copyright line. */
const CREDIT_MAX_TEXT = 200;
const COPYRIGHT = /©|\(c\)\s/i;
/** A paragraph with more than this share of link text points elsewhere ("Read also: ..."). */
const LINK_PARAGRAPH = 0.7;
/** A <div> line shorter than this (characters), not a sentence, is a label. */
const LABEL_MAX_TEXT = 80;
/** Rows of two cells or more from which <div> lines are a grid of values, not labels. */
const GRID_ROWS = 4;
/** Longest caption (characters) of a picture outside the core that may go: longer ones are the lead itself. */
const LEAD_CAPTION_MAX_TEXT = 300;
/** Longest line (characters) standing alone between the article's paragraphs that may go. */
const LONE_LINE_MAX_TEXT = 60;
/** A <div> line with more than this share of link text points elsewhere. */
const LINK_LINE = 0.2;
/** A paragraph at least this long (characters, few links) marks where the article's prose may end. */
const TAIL_PROSE = 100;
/** Blocks after the last prose that say what follows: lists and tables are content, never labels. */
const LISTED = new Set(['li', 'td', 'th', 'pre', 'dd', 'dt', 'blockquote', 'table', 'code', 'address']);
const SENTENCE_END = /[.!?。！？"”»)]\s*$/;
const CONTENT_STEMS = stems('article* body content entry hentry main post text blog story prose');
/** Words that start like a flagged stem but name content. */
const NOT_FLAGGED = new Set(['commentary', 'shared', 'promoted']);

interface Stems {
  exact: Set<string>;
  prefixes: string[];
}

function stems(list: string): Stems {
  const words = list.split(/\s+/);
  return { exact: new Set(words.filter((w) => !w.endsWith('*'))), prefixes: words.filter((w) => w.endsWith('*')).map((w) => w.slice(0, -1)) };
}

/** Pages of one site repeat their class names: split once per process (bounded). */
const wordsOfNames = new Map<string, string[]>();

/** A generated name such as `e1ad` or `5ad3f0`: hexadecimal, with digits among the letters. */
const HASH = /^(?=[a-f]*\d)(?=\d*[a-f])[\da-f]{4,}$/i;
/**
 * A generated class name's hash (CSS modules, styled-components: `css-znm2ad`,
 * `button__lz3ad`): a digit followed by a letter in a token of four or more. Split at its
 * digits it would read as words (`ad`), which a rebuild of the site changes at random.
 */
const GENERATED = /^(?=[a-z\d]*\d[a-z])[a-z\d]{4,}$/i;

function nameWords(names: string): string[] {
  const unhashed = /\d/.test(names) ? names.split(/[\s_-]+/).filter((token) => !/\d/.test(token) || (!HASH.test(token) && !GENERATED.test(token))).join(' ') : names;
  return unhashed
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
}

function matches(words: string[], set: Stems): boolean {
  return words.some((word) => !NOT_FLAGGED.has(word) && (set.exact.has(word) || set.prefixes.some((prefix) => word.startsWith(prefix))));
}

const SEMANTIC_TAGS = new Set(['article', 'main']);

/** Whether a block's tag, name or microdata says it is the content. */
function namedContent(element: Element, measures: PageMeasures): boolean {
  return matches(measures.words(element), CONTENT_STEMS) || SEMANTIC_TAGS.has(element.name) || element.attribs.itemprop === 'articleBody';
}

const MIN_TEXT = 25;
/** A paragraph whose text is more than this share of links is navigation. */
const PARAGRAPH_LINKS = 0.5;
/**
 * Link text (characters) from which a block's flag is looked up to leave its links out of the
 * density of the blocks around it: less hardly moves it, and most elements need no look-up.
 */
const LINK_BOX = 100;
/** A container whose text is more than this share of links is a link list. */
const LIST_LINKS = 0.5;
/** The least score of a core: one paragraph of prose (100 characters or more) is an article. */
const MIN_SCORE = 2;
/** ...or one short paragraph in a block named as the content (`post`, `entry-content`, <article>): a post of a few lines. */
const MIN_NAMED_SCORE = 1;
/** Text per card below which headings linking elsewhere make a block a feed of teasers. */
const FEED_TEXT_PER_CARD = 400;
const FLAGGED_FACTOR = 0.35;
const CONTENT_FACTOR = 1.25;
/** Wrappers adding no prose that widening looks past for the block holding an article's other parts. */
const PASS_THROUGH = 3;
/** Widening takes a parent adding what is not prose when under this share of its text is links... */
const PARTS_LINKS = 0.05;
/** ...and its prose is at most this share more than the content's. */
const PARTS_PROSE = 0.1;
/** Levels above the content searched for units repeated beside the one holding it. */
const REPEAT_LEVELS = 8;
/** Ancestors that receive a paragraph's points, nearest first, and the divisor of each. */
const LEVEL_DIVISORS = [1, 2, 6, 9, 12];

type Flag = 'chrome' | 'comments' | 'clutter';

/** Commas (Latin, full-width, ideographic) of the text last given to scanText. */
let scannedCommas = 0;

/** `\s` is the set of spaces that count as one: runs of two or more shrink to one character. */
const VISIBLE = /\S/;
const SPACE_RUNS = /\s{2,}/g;

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

const elementChildren = (element: Element) => element.children.filter(isTag);
const parentElement = (node: AnyNode): Element | undefined => (node.parent && isTag(node.parent) ? node.parent : undefined);

/** A block's own inline text: what it says itself, not its nested blocks. */
interface InlineText {
  length: number;
  linkLength: number;
  commas: number;
}

/**
 * Everything the choice needs, each measured once per element: text and link-text lengths,
 * own inline text, flags and prose. Re-reading subtrees for every question made it quadratic.
 */
/** What is measured of each element. */
interface Stats {
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

class PageMeasures {
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
        if (inside.unflaggedLinks > 0 && !(inside.unflaggedLinks >= LINK_BOX && mayBeFlagged(child as Element) && this.flag(child as Element))) stats.unflaggedLinks += inside.unflaggedLinks;
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
    const names = `${className} ${id}`;
    let words = wordsOfNames.get(names);
    if (!words) {
      words = nameWords(names);
      if (wordsOfNames.size >= 5000) wordsOfNames.clear();
      wordsOfNames.set(names, words);
    }
    return words;
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
    if (!flag && element.name !== 'body' && element.children.some((child) => isTag(child) && (child.attribs.class ?? '').includes('lose') && this.words(child).includes('close'))) flag = 'clutter';
    this.flags.set(element, flag);
    return flag;
  }
}

/**
 * Whether a flag is worth looking up: a block with a name, a role or a tag of chrome. Most of a
 * page's elements (links, spans, list items without a class) are not.
 */
function mayBeFlagged(element: Element): boolean {
  const { attribs } = element;
  return BLOCK.has(element.name) && (attribs.class !== undefined || attribs.id !== undefined || attribs.role !== undefined || CHROME_TAGS.has(element.name) || element.name === 'form');
}

/** Whether two words or more of `name` are words of the element's text. */
function spellsText(name: string, element: Element): boolean {
  const said = new Set(textOf(element).toLowerCase().split(/[^\p{L}\d]+/u));
  return nameWords(name).filter((word) => said.has(word)).length >= 2;
}

function findLink(element: Element): Element | undefined {
  for (const child of element.children) {
    if (!isTag(child)) continue;
    if (child.name === 'a') return child;
    const inside = findLink(child);
    if (inside) return inside;
  }
  return undefined;
}

function closestLink(element: Element): Element | undefined {
  for (let node = parentElement(element); node; node = parentElement(node)) if (node.name === 'a') return node;
  return undefined;
}

function paragraphPoints(inline: InlineText): number {
  return 1 + inline.commas + Math.min(Math.floor(inline.length / 100), 3);
}

/** A paragraph wrapped in blocks that hold nothing else counts from the outermost wrapper. */
function paragraphUnit(element: Element, root: Element): Element {
  let unit = element;
  for (let level = 0; level < 3; level++) {
    const parent = parentElement(unit);
    if (!parent || parent === root) break;
    const onlyChild = parent.children.every((child) => child === unit || (child.type === 'text' && !(child as { data: string }).data.trim()) || child.type === 'comment');
    if (!onlyChild) break;
    unit = parent;
  }
  return unit;
}

/**
 * Rows and list items make sense inside their table or list, unless that is much bigger than
 * the part (a layout). A cell that scores is a container of its own.
 */
function wholeStructure(element: Element, measures: PageMeasures): Element {
  const structure: Record<string, string[]> = { tr: ['table'], tbody: ['table'], thead: ['table'], tfoot: ['table'], li: ['ul', 'ol', 'menu'], dt: ['dl'], dd: ['dl'] };
  const wanted = structure[element.name];
  if (!wanted) return element;
  for (let node = parentElement(element); node; node = parentElement(node)) {
    if (wanted.includes(node.name)) return measures.textLength(node) <= 3 * measures.textLength(element) ? node : element;
  }
  return element;
}

export interface MainContent {
  /** The elements to keep, in document order; cleaned inside. */
  keep: Element[];
  /** The best-scoring block, when the page had one. */
  core?: Element;
}

/**
 * Chooses the main content under `root` (the body) and removes chrome, comments, clutter and
 * link lists inside it. Without a clear core (no prose), the whole root is kept, cleaned the
 * same way except for link lists, which may be all the page has.
 */
export function findMainContent(root: Element, title = ''): MainContent {
  const measures = new PageMeasures(root);

  // Scores: points from each paragraph to the containers above it.
  const raw = new Map<Element, number>();
  for (const element of measures.blocks) {
    if (element === root || !measures.isParagraph(element)) continue;
    const inline = measures.inline(element)!;
    const points = paragraphPoints(inline);
    // A cell with prose of its own is the container (layout tables); a <p> is held by its parent.
    let container = element.name === 'td' || element.name === 'th' ? element : parentElement(paragraphUnit(element, root));
    for (const divisor of LEVEL_DIVISORS) {
      if (!container) break;
      raw.set(container, (raw.get(container) ?? 0) + points / divisor);
      if (container === root) break;
      container = parentElement(container);
    }
  }
  const flaggedWithin = new Map<Element, boolean>();
  const rootText = measures.textLength(root);
  const underFlag = (element: Element): boolean => {
    if (element === root) return false;
    let result = flaggedWithin.get(element);
    if (result === undefined) {
      const parent = parentElement(element);
      // A name of chrome on a block holding most of the page is the layout's, not a sidebar's
      // (`sidebar_content` around the article and its sidebar). What lies over a page is never
      // its layout: a consent dialog listing every tracker can hold most of a page's text.
      const wrapper = measures.flag(element) !== 'comments' && !matches(measures.words(element), OVERLAY_STEMS) && measures.textLength(element) >= WRAPPER_SHARE * rootText;
      result = (!!measures.flag(element) && !wrapper) || (!!parent && underFlag(parent));
      flaggedWithin.set(element, result);
    }
    return result;
  };
  let core: Element | undefined;
  let coreScore = 0;
  const scores = new Map<Element, number>();
  for (const [element, points] of raw) {
    if (element === root) continue;
    let score = points * (1 - measures.unflaggedLinkDensity(element));
    if (underFlag(element)) score *= FLAGGED_FACTOR;
    else if (namedContent(element, measures)) score *= CONTENT_FACTOR;
    scores.set(element, score);
    if (score > coreScore) {
      core = element;
      coreScore = score;
    }
  }
  // The story the title names, when the core is in another one like it: widening stays inside it.
  let story: Element | undefined;
  if (core) [core, coreScore, story] = titledTwin(core, root, title, scores) ?? [core, coreScore, undefined];
  if (!core || coreScore < (namedContent(core, measures) && !underFlag(core) ? MIN_NAMED_SCORE : MIN_SCORE)) {
    const pageText = measures.textLength(root);
    const removed: Element[] = [];
    sweep(root, { measures, linkLists: false, ancestorsOfCore: new Set(), coreProse: 0, pageText, asides: [] }, removed);
    // A page without a core that would lose nearly all its text to the sweep keeps it all
    // (but form controls): some text is better than an empty page.
    const removedText = removed.reduce((sum, element) => sum + measures.textLength(element), 0);
    removeAll(removed.filter((element) => pageText - removedText >= MIN_KEPT_SHARE * pageText || FORM_CONTROLS.has(element.name)));
    return { keep: [root] };
  }
  core = wholeStructure(core, measures);

  const ancestorsOfCore = new Set<Element>();
  for (let node = parentElement(core); node; node = parentElement(node)) ancestorsOfCore.add(node);
  const proseOf = (element: Element, pathChild: Element | undefined) =>
    // A flagged block on the way to the core is part of it, not clutter beside it.
    (measures.prose(element)) + (pathChild && measures.flag(pathChild) ? measures.prose(pathChild) : 0);

  let content = core;
  let contentProse = proseOf(core, undefined);
  let passedThrough = 0;
  const aboveStory = story && parentElement(story);
  for (let parent = parentElement(content); parent && parent !== root && parent.name !== 'body' && parent.name !== 'html' && parent !== aboveStory; parent = parentElement(parent)) {
    const parentProse = proseOf(parent, content);
    const extra = measures.textLength(parent) - measures.textLength(content);
    const spread = parentProse >= 1.5 * contentProse;
    // An <article> or <main> is the whole composition: past it, only more prose widens.
    const whole = SEMANTIC_TAGS.has(content.name) || content.attribs.role === 'main';
    // A parent nearly without links that adds no prose adds the article's other parts (a
    // recipe's ingredients, a product's data, a caption): up to as much again, like an <article>.
    const addsParts = measures.linkDensity(parent) < PARTS_LINKS && parentProse - contentProse <= PARTS_PROSE * contentProse;
    // Past a cell with others beside it in its row, what is added is a layout's column (a sidebar), not a part.
    const column = content.name === 'td' && !!content.parent && elementChildren(content.parent as Element).some((cell) => cell !== content && measures.textLength(cell) > 0);
    const addsLittle = !whole && !column && extra <= (SEMANTIC_TAGS.has(parent.name) || addsParts ? 1 : 0.3) * measures.textLength(content);
    if (spread || addsLittle) {
      content = parent;
      contentProse = Math.max(contentProse, parentProse);
      passedThrough = 0;
      continue;
    }
    // A wrapper adding no prose may sit between the article's parts and the block that holds
    // them all (a story told in sections, each an <article> in a wrapper): look past a few.
    if (parentProse > contentProse || ++passedThrough > PASS_THROUGH) break;
  }

  // Posts of a thread, modules of a syllabus: the unit holding the core repeats beside it.
  for (let unit = content, level = 0; level < REPEAT_LEVELS && !story; level++) {
    const parent = parentElement(unit);
    if (!parent || parent === root || parent.name === 'body' || parent.name === 'html') break;
    const twins = elementChildren(parent).filter((sibling) => sibling !== unit && sameKind(sibling, unit) && !measures.flag(sibling)
      && measures.prose(sibling) >= 0.25 * measures.prose(unit) && measures.linkDensity(sibling) < 0.25);
    if (twins.length >= 2) {
      content = parent;
      contentProse = Math.max(contentProse, proseOf(parent, unit));
      break;
    }
    unit = parent;
  }

  const kept = [content, ...keptSiblings(content, root, measures, contentProse, story)].sort(documentOrder);
  const context: Sweep = { measures, core, linkLists: true, ancestorsOfCore, coreProse: proseOf(core, undefined), pageText: 0, asides: [], commentsAreContent: commentsAreContent(core, measures) };
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
  const keep = kept.filter((element) => element.parent);
  trimEnds(keep, measures, core);
  return { keep, core };
}

/**
 * Boilerplate inside the kept content, told by its markup: a paragraph that is mostly a link, a block named for what it is about rather than what it says (credit, author,
 * date, tags...), a <div> line that is a label or links, or a short one carrying a copyright
 * sign. The title never goes with it.
 */
function isInlineBoilerplate(element: Element, measures: PageMeasures): boolean {
  // An e-mail address or a phone number to write or call is contact information, not a link elsewhere.
  if (element.name === 'p' && measures.linkDensity(element) > LINK_PARAGRAPH && !linksOnlyToContact(element)) return true;
  // A caption is content even when named for its credit; the credit inside it is not, be it
  // a block or a span.
  if (element.name !== 'figcaption' && hasAncestor(element, FIGURE) && matches(measures.words(element), CREDIT_STEMS) && measures.textLength(element) < CREDIT_MAX_TEXT) return true;
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

/** Neighbours looked at on each side of an inline element that may stand as a line. */
const NEIGHBOURS_SEEN = 12;

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

/** Whether `element` has links (<a href>) and every one of them passes `test` on its href. */
function everyLink(element: Element, test: (href: string) => boolean): boolean {
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

/**
 * The heading just before `element` (whitespace and empty elements skipped), or a block holding
 * only such a heading: a short one, never the title.
 */
function headingBefore(element: Element, measures: PageMeasures): Element | undefined {
  let previous = element.prev;
  while (previous && (isTag(previous) ? measures.textLength(previous) === 0 && !MEDIA.has(previous.name) : previous.type !== 'text' || !VISIBLE.test((previous as { data: string }).data))) previous = previous.prev;
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

const MEDIA = new Set(['img', 'picture', 'figure', 'video', 'table', 'svg']);

/** Whether the next sibling with text after `element` holds prose. */
function proseAfter(element: Element, measures: PageMeasures): boolean {
  let next = element.next;
  while (next && (!isTag(next) || measures.textLength(next) === 0)) next = next.next;
  return !!next && isTag(next) && measures.prose(next) > 0;
}

/** Hosts of social networks and app stores, and their subdomains (www., m., ...). */
const SOCIAL_HOSTS = new Set([
  'twitter.com', 'x.com', 'facebook.com', 'fb.me', 'instagram.com', 't.me', 'telegram.me', 'youtube.com', 'youtu.be',
  'whatsapp.com', 'wa.me', 'linkedin.com', 'tiktok.com', 'pinterest.com', 'plus.google.com', 'apps.apple.com', 'itunes.apple.com', 'play.google.com',
]);

/** Links that share the page through a messenger app, or by an e-mail with no addressee. */
const SHARE_SCHEME = /^(?:whatsapp|fb-messenger|tg|viber):|^mailto:\s*\?/i;

function isSocialLink(href: string): boolean {
  if (SHARE_SCHEME.test(href.trim())) return true;
  const host = /^(?:https?:)?\/\/([^/?#:]+)/i.exec(href.trim())?.[1]?.toLowerCase();
  // A host name has at most 253 characters: longer is not one (and would cost a join per label).
  if (!host || host.length > 253) return false;
  const labels = host.split('.');
  for (let start = 0; start < labels.length - 1; start++) if (SOCIAL_HOSTS.has(labels.slice(start).join('.'))) return true;
  return false;
}

/** A block whose links all lead to social networks or app stores: "Follow us on ...", "Get our app". */
const pointsToSocial = (element: Element) => everyLink(element, isSocialLink);

/**
 * Whether text written loose, not in a block, follows `element` in its parent: prose set with
 * <br>s, at least a paragraph's worth of it besides links.
 */
function headsLooseText(element: Element): boolean {
  let said = '';
  for (let next = element.next; next && said.length < MIN_TEXT; next = next.next) {
    if (next.type === 'text') said += (next as Text).data;
    else if (isTag(next)) {
      if (BLOCK.has(next.name)) break;
      if (next.name !== 'a') said += textOf(next);
    }
    said = said.replace(SPACE_RUNS, ' ').trimStart();
  }
  return said.length >= MIN_TEXT;
}

/** A table whose columns have header cells (<th>): data, however many of its cells are links. */
function headedTable(element: Element): boolean {
  if (element.name !== 'table') return false;
  const rows = elementChildren(element).flatMap((child) => (child.name === 'tr' ? [child] : elementChildren(child).filter((row) => row.name === 'tr')));
  return rows.length > 0 && elementChildren(rows[0]!).filter((cell) => cell.name === 'th').length >= 2;
}

/** A block holding such a table is not a list of links either: the sweep goes on inside it. */
const holdsHeadedTable = (element: Element): boolean => headedTable(element) || elementChildren(element).some(holdsHeadedTable);

/** Whether a block with text is still under `element`. */
function holdsBlockText(element: Element): boolean {
  return element.children.some((child) => isTag(child) && (BLOCK.has(child.name) ? VISIBLE.test(textOf(child)) : holdsBlockText(child)));
}

function holdsMedia(element: Element): boolean {
  return element.children.some((child) => isTag(child) && (MEDIA.has(child.name) || holdsMedia(child)));
}

function within(element: Element, ancestor: Element): boolean {
  for (let node: Element | undefined = element; node; node = parentElement(node)) if (node === ancestor) return true;
  return false;
}

function holdsTitle(element: Element): boolean {
  return element.children.some((child) => isTag(child) && (child.name === 'h1' || holdsTitle(child)));
}

function hasAncestor(element: Element, names: ReadonlySet<string>): boolean {
  for (let node = parentElement(element); node; node = parentElement(node)) if (names.has(node.name)) return true;
  return false;
}

const FIGURE = new Set(['figure']);

const isListed = (element: Element) => LISTED.has(element.name) || hasAncestor(element, LISTED);

/**
 * Like `isListed`, but a table that lays the page out is not a list: the cell holding the core
 * and its table, and a table of one column (title, text and details stacked in rows).
 */
function isListedBeside(element: Element, core: Element, measures: PageMeasures, oneColumnTables: Map<Element, boolean>): boolean {
  for (let node: Element | undefined = element; node; node = parentElement(node)) {
    if (!LISTED.has(node.name)) continue;
    if (!TABLE_PARTS.has(node.name)) return true;
    if (within(core, node)) continue;
    let table: Element | undefined = node;
    while (table && table.name !== 'table') table = parentElement(table);
    if (!table) return true;
    // Once per table: a page may hold thousands of rows, each asking.
    let single = oneColumnTables.get(table);
    if (single === undefined) oneColumnTables.set(table, (single = oneColumn(table, measures)));
    if (!single) return true;
  }
  return false;
}

const TABLE_PARTS = new Set(['table', 'td', 'th']);

/** Whether no row of a table (nested tables aside) has two cells with text. */
function oneColumn(table: Element, measures: PageMeasures): boolean {
  const rows = (node: Element): boolean => elementChildren(node).every((child) => {
    if (child.name === 'tr') return elementChildren(child).filter((cell) => (cell.name === 'td' || cell.name === 'th') && measures.textLength(cell) > 0).length <= 1;
    return child.name === 'table' || rows(child);
  });
  return rows(table);
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
 * Before the article's first paragraph of prose, date lines go, captions outside the core, and
 * above the title what is not a caption; between its paragraphs, captions outside the core and
 * lone short lines that are not sentences. After its last paragraph of prose come its leftovers:
 * "Read more" links, labels such as "More on this:" or "Share", paragraphs in another block than
 * that last one (appeals and notes in boxes of their own), and headings of boxes already
 * removed. They go; text in lists and tables, and sentences beside the last paragraph, stay.
 */
function trimEnds(keep: Element[], measures: PageMeasures, core: Element) {
  const blocks: Element[] = [];
  for (const element of keep) textBlocks(element, measures, blocks);
  const oneColumnTables = new Map<Element, boolean>();
  let last = -1;
  blocks.forEach((element, index) => {
    if (isProse(element, measures)) last = index;
  });
  if (last < 0) return;
  // A long caption under the lead picture is not where the article's prose begins.
  const first = blocks.findIndex((element) => isProse(element, measures) && !isCaption(element));
  // Above the title, when the title comes before the prose: a kicker, a "Back to the list" link,
  // a reading time, a credit. Captions stay; a block that holds the title loses only its own
  // text before it.
  const title = blocks.findIndex((element) => element.name === 'h1');
  if (title > 0 && title < first) {
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
  // Before the first paragraph of prose: lines with a date or a time in them that are not
  // sentences, the date, the byline with its date, also written loose between a container's
  // blocks. Captions, headings and, inside the core, other lines with figures (a price, an
  // address, "5 tips for your loan") stay.
  for (const element of blocks.slice(0, first)) {
    if (removeOuterCaption(element, core, measures)) continue;
    if (HEADINGS.has(element.name) || isListedBeside(element, core, measures, oneColumnTables) || isCaption(element)) continue;
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
    else if (!within(element, core) && !SENTENCE_END.test(text) && !/:\s*$/.test(text) && !hasAncestor(element, FIGURE) && !holdsMedia(element)) removeElement(element);
  }
  // Between the first and the last prose: captions outside the core, and a short line that is
  // not a sentence, standing alone between blocks of other containers ("Show sources", "Download
  // as PDF", a credit under a picture). An introduction ending with a colon and a numbered step
  // ("1. Choose a pot") stay. Headings stay, except one outside the core followed at once by
  // another heading.
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
    if (isListedBeside(element, core, measures, oneColumnTables) || isCaption(element) || hasAncestor(element, FIGURE) || hasAncestor(element, HEADINGS)) continue;
    const inline = measures.inline(element)!;
    if (inline.length >= LONE_LINE_MAX_TEXT || inline.length !== measures.textLength(element)) continue;
    if (blocks[index - 1]!.parent === element.parent || blocks[index + 1]!.parent === element.parent) continue;
    const text = textOf(element).trim();
    if (!SENTENCE_END.test(text) && !/:\s*$/.test(text) && !/^\d+[.)]\s/.test(text)) removeElement(element);
  }
  const lastProse = blocks[last]!;
  // The block holding the last prose; a quotation ending the article is inside it, not a box.
  let proseBox = lastProse.parent;
  while (proseBox && isTag(proseBox) && proseBox.name === 'blockquote') proseBox = proseBox.parent;
  const tail = blocks.slice(last + 1).filter((element) => {
    for (let node: AnyNode | null = lastProse.parent; node; node = node.parent) if (node === element) return false;
    return true;
  });
  // Links back up the page or the site written loose after the last prose, in the blocks that
  // hold it ("Back to top", "Back to the list"): the blocks themselves stay, with the prose.
  for (let child: Element = lastProse, holder = parentElement(lastProse); holder && keep.some((element) => within(holder!, element)); child = holder, holder = parentElement(holder)) {
    removeTrailingLinks(holder, child);
    if (keep.includes(holder)) break;
  }
  // Backwards: a heading goes when nothing it heads is left.
  let textAfter = false;
  for (let index = tail.length - 1; index >= 0; index--) {
    const element = tail[index]!;
    const heading = HEADINGS.has(element.name);
    let drop = heading && !textAfter && !headsLooseText(element);
    if (!heading && !isListedBeside(element, core, measures, oneColumnTables)) {
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
    if (!drop && element.name !== 'p' && !isListedBeside(element, core, measures, oneColumnTables) && !within(element, core) && !/:\s*$/.test(textOf(element)) && !holdsMedia(element)) drop = true;
    // A block whose own line goes may still hold blocks that stay (a label over a list of
    // values): it stays with them.
    if (drop && !heading && measures.inline(element)!.length < measures.textLength(element) && holdsBlockText(element)) drop = false;
    if (drop) removeElement(element);
    else if (!heading) textAfter = true;
  }
  // Throughout: credits closing a caption ("... (Photo: Name)", "... Photo: Name", "... Name/Agency"), or a
  // caption that is only one; and a short line closing with "(Label: Name)".
  for (const element of blocks) {
    if (!element.parent) continue;
    const caption = isCaption(element) || hasAncestor(element, FIGURE);
    if (caption || measures.textLength(element) < CREDIT_MAX_TEXT) stripCredit(element, caption ? CREDIT_TAIL : CREDIT_PAREN, caption);
  }
  // The same credit closing a picture's alt text ("A ferry at dawn. (Photo: Name)"): the text
  // stands for the picture, the credit does not.
  const alts = (node: Element) => {
    if (node.name === 'img' && node.attribs.alt) {
      const alt = node.attribs.alt.trim().replace(/\.$/, '');
      const match = CREDIT_TAIL.exec(alt);
      // An alt text that is only a credit says nothing of the picture: it goes whole.
      if (match) node.attribs.alt = alt.slice(0, match.index);
    }
    for (const child of node.children) if (isTag(child)) alts(child);
  };
  for (const element of keep) alts(element);
}

/**
 * After `from` inside `holder`: a run of inline nodes at the end whose every visible word is a
 * link's back up (see `linksBackUp`) goes.
 */
function removeTrailingLinks(holder: Element, from: Element) {
  const nodes = holder.children;
  const run: AnyNode[] = [];
  const start = nodes.indexOf(from);
  for (let index = nodes.length - 1; index > start; index--) {
    const node = nodes[index]!;
    if (isTag(node) && (BLOCK.has(node.name) || MEDIA.has(node.name))) break;
    run.push(node);
  }
  const text = (node: AnyNode): string => (node.type === 'text' ? (node as Text).data : isTag(node) ? textOf(node) : '');
  const visible = run.filter((node) => VISIBLE.test(text(node)));
  const link = (node: AnyNode) => (isTag(node) ? (node.name === 'a' ? node : findLink(node)) : undefined);
  if (visible.length > 0 && visible.every((node) => { const a = link(node); return !!a && linksBackUp(a) && textOf(a).trim() === text(node).trim(); })) removeAll(visible);
}

/**
 * A link back up: to the top of the page (`#`, `#top`) or to a section's front page on the same
 * site (`/press`), not to a page of its own or elsewhere ("Learn more" after a feature).
 */
function linksBackUp(link: Element): boolean {
  const href = (link.attribs.href ?? '').trim();
  return href === '' || /^#[\w-]*$/.test(href) || /^\/(?!\/)[^/?#]*\/?$/.test(href);
}

/**
 * A credit closing a caption: "(Photo: Name)" or "(AGENCY/Name)" in parentheses, "Photo: Name"
 * or "Name/Agency" after its last sentence; from the start, a caption that is only a credit.
 */
const CREDIT_TAIL = /\s*\([^()!?]{1,50}[:/][^()!?]{0,50}[^().!?]\)$|(?:(?<=[.!?])\s+|^\s*)\p{L}+\s?:\s*(?:(?!\.\s)[^!?()]){1,50}$|(?<=[.!?])\s+[^.!?:/]{1,40}\/[^.!?:]{1,40}$/u;
/** A credit closing a short line: "(Label: Name)". */
const CREDIT_PAREN = /\s*\(\p{L}+\s?:[^()!?]{1,50}[^().!?]\)$/u;

/**
 * Cuts a credit matching `pattern` off the end of a block's text, and with `removeWhole` the block
 * when nothing else is left (its picture stays).
 */
function stripCredit(element: Element, pattern: RegExp, removeWhole: boolean) {
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
 * A date line written loose between the blocks of a container (the title, then "January 13,
 * 2020 | categories: ... | View comments", then the text): each run of text and inline elements
 * between blocks that is short, has a date in it and is not a sentence goes.
 */
function removeDateRuns(element: Element, measures: PageMeasures) {
  let run: AnyNode[] = [];
  const flush = () => {
    const text = run.map((node) => (node.type === 'text' ? (node as Text).data : isTag(node) ? textOf(node) : '')).join('').replace(/\s+/g, ' ').trim();
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
/** A caption: a <figcaption>, or a block or span named one (`wp-caption-text`, `img-caption`), or inside one. */
const isCaption = (element: Element) => {
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
function removeOuterCaption(element: Element, core: Element, measures: PageMeasures): boolean {
  if (!isCaption(element) || within(element, core) || measures.textLength(element) >= LEAD_CAPTION_MAX_TEXT) return false;
  removeCaption(element);
  return true;
}
/** A date or a time written in figures (31.05.2012, 2012-05-31, 15:40) or a year (1800-2099); not "2.0". */
const DATE_LIKE = /\b\d{1,4}[./-]\d{1,2}[./-]\d{2,4}\b|\b\d{1,2}:\d{2}\b|\b(?:1[89]|20)\d{2}\b/;

/** A paragraph of the article's prose: long enough, few links, not a heading or a list item. */
function isProse(element: Element, measures: PageMeasures): boolean {
  const inline = measures.inline(element)!;
  return !HEADINGS.has(element.name) && element.name !== 'li' && inline.length >= TAIL_PROSE && inline.linkLength < 0.3 * inline.length;
}

function documentOrder(a: Element, b: Element): number {
  const parent = a.parent;
  if (!parent || parent !== b.parent) return 0;
  return parent.children.indexOf(a) - parent.children.indexOf(b);
}

/**
 * Stories one after another (a news site's endless scroll: each an <article> of one kind, each
 * with its <h1>): the page is the one whose heading its <title> names. When the core is in
 * another of them, the best block of the titled one is the core instead.
 */
function titledTwin(core: Element, root: Element, title: string, scores: ReadonlyMap<Element, number>): [Element, number, Element] | undefined {
  const heading = titleHeading(root, title);
  if (!heading) return undefined;
  // The heading's ancestors, once: which block holds it is then a look-up, however many siblings.
  const aboveHeading = new Set<Element>();
  for (let node: Element | undefined = heading; node; node = parentElement(node)) aboveHeading.add(node);
  if (aboveHeading.has(core)) return undefined;
  for (let unit = core, level = 0; level < REPEAT_LEVELS; level++) {
    const parent = parentElement(unit);
    if (!parent || parent === root) return undefined;
    const twin = elementChildren(parent).find((sibling) => sibling !== unit && aboveHeading.has(sibling) && sameKind(sibling, unit));
    // Only when the core's story has a title of its own: a column beside the titled header is
    // not another story.
    if (twin && !holdsTitle(unit)) return undefined;
    if (twin) {
      let best: [Element, number, Element] | undefined;
      const stack: Element[] = [twin];
      while (stack.length > 0) {
        const element = stack.pop()!;
        const score = scores.get(element);
        if (score !== undefined && (!best || score > best[1])) best = [element, score, twin];
        stack.push(...elementChildren(element));
      }
      return best && best[1] >= MIN_SCORE ? best : undefined;
    }
    unit = parent;
  }
  return undefined;
}

/** The first <h1> whose text the document's title holds (at least 15 characters of it). */
function titleHeading(root: Element, documentTitle: string): Element | undefined {
  const title = documentTitle.replace(/\s+/g, ' ').trim();
  if (title.length < 15) return undefined;
  const stack: Element[] = [root];
  while (stack.length > 0) {
    const element = stack.pop()!;
    if (element.name === 'h1') {
      const text = textOf(element).replace(/\s+/g, ' ').trim();
      if (text.length >= 15 && title.includes(text)) return element;
      continue;
    }
    const children = elementChildren(element);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return undefined;
}

/**
 * Whether a paragraph sits in a named wrapper of the same kind as `box`, under a parent of the
 * same kind too: an article that wraps each paragraph in a component of its own.
 */
function sameBox(paragraph: Element, box: AnyNode | null): boolean {
  const parent = parentElement(paragraph);
  const above = parent && parentElement(parent);
  const boxAbove = box && isTag(box) ? parentElement(box) : undefined;
  return !!above && !!boxAbove && !!parent.attribs.class && sameKind(parent, box as Element) && sameKind(above, boxAbove);
}

/** Elements of one kind: the same tag and the same class names. */
const sameKind = (a: Element, b: Element) => a.name === b.name && (a.attribs.class ?? '') === (b.attribs.class ?? '');

/** Siblings of the content that belong with it: prose blocks, and the heading or byline just before it. */
function keptSiblings(content: Element, root: Element, measures: PageMeasures, contentProse: number, story?: Element): Element[] {
  const parent = parentElement(content);
  if (!parent || content === root) return [];
  const siblings = elementChildren(parent);
  const at = siblings.indexOf(content);
  const kept: Element[] = [];
  siblings.forEach((sibling, index) => {
    if (index === at || measures.flag(sibling) || (story && sameKind(sibling, story))) return;
    const links = measures.linkDensity(sibling);
    const prose = measures.prose(sibling);
    if (prose >= 200 && links < 0.25) return void kept.push(sibling);
    // A short paragraph of plain sentences: no links, ending like a sentence.
    const inline = measures.inline(sibling);
    if (sibling.name === 'p' && inline && (inline.length >= 80 ? links < 0.25 : inline.length > 0 && links === 0 && /[.!?。！？"”»)]\s*$/.test(textOf(sibling)))) return void kept.push(sibling);
    if (prose > 0 && prose >= contentProse * 0.2 && links < 0.25) return void kept.push(sibling);
  });
  // The heading (and byline, date) right before the content.
  for (let index = at - 1, steps = 0; index >= 0 && steps < 3; index--, steps++) {
    const sibling = siblings[index]!;
    if (measures.flag(sibling) || measures.linkDensity(sibling) > 0.5) break;
    const heading = HEADINGS.has(sibling.name) || (sibling.name === 'header' || sibling.name === 'hgroup');
    if (!heading && measures.textLength(sibling) > 200) break;
    if (!kept.includes(sibling)) kept.push(sibling);
    if (heading) break;
  }
  return kept;
}

function textOf(element: Element): string {
  let text = '';
  for (const child of element.children) {
    if (child.type === 'text') text += (child as { data: string }).data;
    else if (isTag(child)) text += textOf(child);
  }
  return text;
}

const CARD_TAGS = new Set(['div', 'section', 'article']);
/** Class words of a link drawn as a button: a call to act ("Subscribe now", "Print the recipe"). */
const BUTTON_STEMS = stems('button* btn*');
/** Text (characters) under which a box with a button link is a promotion, not a section. */
const PROMO_MAX_TEXT = 400;

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

/**
 * A small box around a button link that says something in a paragraph: an appeal, an offer, a
 * print or subscribe box. A price and "Add to cart" say nothing of the kind: they stay. The
 * measures come first, so only such boxes are walked for their links.
 */
function isPromo(element: Element, measures: PageMeasures): boolean {
  return CARD_TAGS.has(element.name) && measures.textLength(element) < PROMO_MAX_TEXT && measures.prose(element) > 0 && holdsButtonLink(element, measures);
}
/** One teaser card: a box with a heading linking elsewhere and a line or two under it. */
function isCard(element: Element, measures: PageMeasures): boolean {
  return CARD_TAGS.has(element.name) && measures.of(element).linkHeadings === 1 && measures.textLength(element) < FEED_TEXT_PER_CARD;
}

/** Teaser cards: several headings linking elsewhere, each with little text of its own. */
function isFeed(element: Element, measures: PageMeasures): boolean {
  const headings = measures.of(element).linkHeadings;
  return headings >= 2 && measures.textLength(element) < headings * FEED_TEXT_PER_CARD;
}

const LINK_LIST_CONTAINERS = new Set(['div', 'section', 'ul', 'ol', 'dl', 'table', 'menu', 'header', 'form', 'details', 'center']);

/**
 * Removes, under `element`, what is not content: chrome, comments and clutter blocks (unless
 * they hold the core, or prose on the core's scale), link lists and form controls. The core
 * and the blocks around it are never removed.
 */
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

function sweep(element: Element, context: Sweep, removed: Element[]) {
  const { measures, core, linkLists, ancestorsOfCore, coreProse, pageText } = context;
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
    const named = measures.flag(child);
    const flag = named === 'comments' && context.commentsAreContent ? undefined : named;
    // Without a core, nothing flagged that holds most of the page goes: a wrapper named like
    // chrome (`menu-open`, `has-sidebar`) around the whole page would leave nothing. With a
    // core, a flagged block with prose on the core's scale (and a paragraph's length at least:
    // a core of short lines makes no scale) stays, unless it lists other stories.
    const substantial = flag !== 'comments' && !matches(measures.words(child), RELATED_STEMS) && (core !== undefined ? measures.prose(child) >= Math.max(0.5 * coreProse, TAIL_PROSE) : measures.textLength(child) >= 0.5 * pageText);
    const headerOfLinks = (child.name === 'header' || measures.words(child).includes('header')) && measures.linkDensity(child) > LIST_LINKS;
    const linkList = linkLists && LINK_LIST_CONTAINERS.has(child.name) && !TEXT_BLOCKS.has(child.name) && measures.linkDensity(child) > LIST_LINKS && !holdsHeadedTable(child);
    const feed = core !== undefined && isFeed(child, measures);
    if ((flag && !substantial) || headerOfLinks || linkList || feed) {
      removed.push(child);
      // The heading of a list of links or teasers ("Related", "More on this") goes with it,
      // unless prose follows the list in its section.
      if (core !== undefined && (linkList || feed)) {
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
