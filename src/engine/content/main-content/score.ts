/**
 * Step 2 of the main-content finder, scores: each paragraph gives points (length, commas) to its
 * container and, less and less, to the containers above; a container's score is cut by its link
 * density (links in its flagged blocks aside) and by class or id words of page chrome, comments
 * and clutter, or a close button of a popup (its own or an ancestor's), and raised by words that
 * name it as the content. The best container is the candidate for the core.
 */
import type { Element } from 'domhandler';
import { OVERLAY_STEMS, matches } from './names.js';
import { type InlineText, type PageMeasures, namedContent } from './measure.js';
import { parentElement } from './tree.js';

/** A flagged block holding this share of the page's text is a layout wrapper to the scores. */
const WRAPPER_SHARE = 0.6;
/** Ancestors that receive a paragraph's points, nearest first, and the divisor of each. */
const LEVEL_DIVISORS = [1, 2, 6, 9, 12];
const FLAGGED_FACTOR = 0.35;
const CONTENT_FACTOR = 1.25;

/** The containers of the page's paragraphs, scored, and the best of them. */
export interface ContainerScores {
  /** Each container's score, in the order the containers were first given points. */
  scores: ReadonlyMap<Element, number>;
  /** The container with the highest score (the first of equals), if any paragraph has one. */
  best: Element | undefined;
  bestScore: number;
  /**
   * Whether an element is, or lies inside, a flagged block that is not the layout's wrapper
   * (a block named like chrome holding most of the page).
   */
  underFlag: (element: Element) => boolean;
}

/** Scores every container of a paragraph under `root`, the root itself aside. */
export function scoreContainers(root: Element, measures: PageMeasures): ContainerScores {
  const raw = paragraphPoints(root, measures);
  const underFlag = flaggedWithin(root, measures);
  let best: Element | undefined;
  let bestScore = 0;
  const scores = new Map<Element, number>();
  for (const [element, points] of raw) {
    if (element === root) continue;
    let score = points * (1 - measures.unflaggedLinkDensity(element));
    if (underFlag(element)) score *= FLAGGED_FACTOR;
    else if (namedContent(element, measures)) score *= CONTENT_FACTOR;
    scores.set(element, score);
    if (score > bestScore) {
      best = element;
      bestScore = score;
    }
  }
  return { scores, best, bestScore, underFlag };
}

/** Points from each paragraph to the containers above it, before links and names weigh in. */
function paragraphPoints(root: Element, measures: PageMeasures): Map<Element, number> {
  const raw = new Map<Element, number>();
  for (const element of measures.blocks) {
    if (element === root || !measures.isParagraph(element)) continue;
    const points = pointsOf(measures.inline(element)!);
    // A cell with prose of its own is the container (layout tables); a <p> is held by its parent.
    let container = element.name === 'td' || element.name === 'th' ? element : parentElement(paragraphUnit(element, root));
    for (const divisor of LEVEL_DIVISORS) {
      if (!container) break;
      raw.set(container, (raw.get(container) ?? 0) + points / divisor);
      if (container === root) break;
      container = parentElement(container);
    }
  }
  return raw;
}

function pointsOf(inline: InlineText): number {
  return 1 + inline.commas + Math.min(Math.floor(inline.length / 100), 3);
}

/** A paragraph wrapped in blocks that hold nothing else counts from the outermost wrapper. */
function paragraphUnit(element: Element, root: Element): Element {
  let unit = element;
  for (let level = 0; level < 3; level++) {
    const parent = parentElement(unit);
    if (!parent || parent === root) break;
    const onlyChild = parent.children.every(
      (child) => child === unit || (child.type === 'text' && !(child as { data: string }).data.trim()) || child.type === 'comment',
    );
    if (!onlyChild) break;
    unit = parent;
  }
  return unit;
}

/** `underFlag` of ContainerScores, remembered per element. */
function flaggedWithin(root: Element, measures: PageMeasures): (element: Element) => boolean {
  const flagged = new Map<Element, boolean>();
  const rootText = measures.textLength(root);
  const underFlag = (element: Element): boolean => {
    if (element === root) return false;
    let result = flagged.get(element);
    if (result === undefined) {
      const parent = parentElement(element);
      // A name of chrome on a block holding most of the page is the layout's, not a sidebar's
      // (`sidebar_content` around the article and its sidebar). What lies over a page is never
      // its layout: a consent dialog listing every tracker can hold most of a page's text.
      const wrapper =
        measures.flag(element) !== 'comments' && !matches(measures.words(element), OVERLAY_STEMS) && measures.textLength(element) >= WRAPPER_SHARE * rootText;
      result = (!!measures.flag(element) && !wrapper) || (!!parent && underFlag(parent));
      flagged.set(element, result);
    }
    return result;
  };
  return underFlag;
}
