/**
 * Step 3 of the main-content finder, the core: the best-scoring container is the core when it
 * scores as one paragraph of prose at least, or as one short line in a block named as the post.
 * On a page of stories one after another, the core is taken from the story the page's <title>
 * names; a row or a list item stands for its table or list unless that is much bigger. Without
 * a core the page has no article, and is kept whole.
 */
import type { Element } from 'domhandler';
import { type PageMeasures, namedContent } from './measure.js';
import type { ContainerScores } from './score.js';
import { elementChildren, holdsTitle, parentElement, sameKind, textOf } from './tree.js';

/** The least score of a core: one paragraph of prose (100 characters or more) is an article. */
const MIN_SCORE = 2;
/** ...or one short paragraph in a block named as the content (`post`, `entry-content`, <article>): a post of a few lines. */
const MIN_NAMED_SCORE = 1;
/** Levels above the content searched for units repeated beside the one holding it. */
export const REPEAT_LEVELS = 8;

/** The block the article is built around. */
export interface Core {
  /** The best block: a container of paragraphs, or the table or list of a row or item. */
  core: Element;
  /** The story the page's title names, when the page holds several of one kind; widening stays inside it. */
  story: Element | undefined;
}

/** The core of the page under `root`, or undefined when no container scores as an article. */
export function chooseCore(root: Element, title: string, measures: PageMeasures, { scores, best, bestScore, underFlag }: ContainerScores): Core | undefined {
  let core = best;
  let coreScore = bestScore;
  // The story the title names, when the core is in another one like it: widening stays inside it.
  let story: Element | undefined;
  if (core) [core, coreScore, story] = titledTwin(core, root, title, scores) ?? [core, coreScore, undefined];
  if (!core || coreScore < (namedContent(core, measures) && !underFlag(core) ? MIN_NAMED_SCORE : MIN_SCORE)) return undefined;
  return { core: wholeStructure(core, measures), story };
}

/**
 * Rows and list items make sense inside their table or list, unless that is much bigger than
 * the part (a layout). A cell that scores is a container of its own.
 */
function wholeStructure(element: Element, measures: PageMeasures): Element {
  const structure: Record<string, string[]> = {
    tr: ['table'],
    tbody: ['table'],
    thead: ['table'],
    tfoot: ['table'],
    li: ['ul', 'ol', 'menu'],
    dt: ['dl'],
    dd: ['dl'],
  };
  const wanted = structure[element.name];
  if (!wanted) return element;
  for (let node = parentElement(element); node; node = parentElement(node)) {
    if (wanted.includes(node.name)) return measures.textLength(node) <= 3 * measures.textLength(element) ? node : element;
  }
  return element;
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
    if (twin) return bestInside(twin, scores);
    unit = parent;
  }
  return undefined;
}

/** The best-scoring block inside `story` (itself included), with its score and the story, when it scores as an article. */
function bestInside(story: Element, scores: ReadonlyMap<Element, number>): [Element, number, Element] | undefined {
  let best: [Element, number, Element] | undefined;
  const stack: Element[] = [story];
  while (stack.length > 0) {
    const element = stack.pop()!;
    const score = scores.get(element);
    if (score !== undefined && (!best || score > best[1])) best = [element, score, story];
    stack.push(...elementChildren(element));
  }
  return best && best[1] >= MIN_SCORE ? best : undefined;
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
