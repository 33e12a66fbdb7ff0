/**
 * Step 4 of the main-content finder, widening: the core widens to an ancestor that holds half
 * again as much prose (an article split over sections) or that adds little besides (its
 * heading, byline, a second short block; without links or prose, up to as much again:
 * ingredients, a data table), up to an article or main, but not past a table cell with others
 * beside it (a layout's side column), nor out of the story the title names. Units repeated
 * beside the one holding it (the posts of a thread) come along with their parent; so do
 * siblings that are prose, and the heading just before it.
 */
import type { Element } from 'domhandler';
import { type Core, REPEAT_LEVELS } from './core.js';
import type { PageMeasures } from './measure.js';
import { HEADINGS, SEMANTIC_TAGS, documentOrder, elementChildren, parentElement, sameKind, textOf } from './tree.js';

/** Wrappers adding no prose that widening looks past for the block holding an article's other parts. */
const PASS_THROUGH = 3;
/** Widening takes a parent adding what is not prose when under this share of its text is links... */
const PARTS_LINKS = 0.05;
/** ...and its prose is at most this share more than the content's. */
const PARTS_PROSE = 0.1;

/** What the main content spans before it is cleaned. */
export interface Extent {
  /** The core it was widened from. */
  core: Element;
  /** The block the core widened to. */
  content: Element;
  /** `content` and the siblings kept with it, in document order. */
  kept: Element[];
}

/** The block widened to, and the prose it holds. */
interface Widened {
  content: Element;
  prose: number;
}

/** Widens the core under `root` to the whole article and the siblings that belong with it. */
export function widen({ core, story }: Core, root: Element, measures: PageMeasures): Extent {
  const article = withRepeatedUnits(toArticle(core, root, story, measures), root, story, measures);
  const kept = [article.content, ...keptSiblings(article, root, measures, story)].sort(documentOrder);
  return { core, content: article.content, kept };
}

/** A block's prose, with that of a flagged block on the way to the core, which is part of it, not clutter beside it. */
function proseOf(element: Element, pathChild: Element | undefined, measures: PageMeasures): number {
  return measures.prose(element) + (pathChild && measures.flag(pathChild) ? measures.prose(pathChild) : 0);
}

/** Up from the core, through the parents that add prose or little else. */
function toArticle(core: Element, root: Element, story: Element | undefined, measures: PageMeasures): Widened {
  let content = core;
  let contentProse = proseOf(core, undefined, measures);
  let passedThrough = 0;
  const aboveStory = story && parentElement(story);
  for (
    let parent = parentElement(content);
    parent && parent !== root && parent.name !== 'body' && parent.name !== 'html' && parent !== aboveStory;
    parent = parentElement(parent)
  ) {
    const parentProse = proseOf(parent, content, measures);
    const extra = measures.textLength(parent) - measures.textLength(content);
    const spread = parentProse >= 1.5 * contentProse;
    // An <article> or <main> is the whole composition: past it, only more prose widens.
    const whole = SEMANTIC_TAGS.has(content.name) || content.attribs.role === 'main';
    // A parent nearly without links that adds no prose adds the article's other parts (a
    // recipe's ingredients, a product's data, a caption): up to as much again, like an <article>.
    const addsParts = measures.linkDensity(parent) < PARTS_LINKS && parentProse - contentProse <= PARTS_PROSE * contentProse;
    // Past a cell with others beside it in its row, what is added is a layout's column (a sidebar), not a part.
    const column =
      content.name === 'td' && !!content.parent && elementChildren(content.parent as Element).some((cell) => cell !== content && measures.textLength(cell) > 0);
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
  return { content, prose: contentProse };
}

/** Posts of a thread, modules of a syllabus: the unit holding the content repeats beside it, and their parent is the content. */
function withRepeatedUnits(widened: Widened, root: Element, story: Element | undefined, measures: PageMeasures): Widened {
  for (let unit = widened.content, level = 0; level < REPEAT_LEVELS && !story; level++) {
    const parent = parentElement(unit);
    if (!parent || parent === root || parent.name === 'body' || parent.name === 'html') break;
    const twins = elementChildren(parent).filter(
      (sibling) =>
        sibling !== unit &&
        sameKind(sibling, unit) &&
        !measures.flag(sibling) &&
        measures.prose(sibling) >= 0.25 * measures.prose(unit) &&
        measures.linkDensity(sibling) < 0.25,
    );
    if (twins.length >= 2) return { content: parent, prose: Math.max(widened.prose, proseOf(parent, unit, measures)) };
    unit = parent;
  }
  return widened;
}

/** Siblings of the content that belong with it: prose blocks, and the heading or byline just before it. */
function keptSiblings({ content, prose: contentProse }: Widened, root: Element, measures: PageMeasures, story?: Element): Element[] {
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
    if (
      sibling.name === 'p' &&
      inline &&
      (inline.length >= 80 ? links < 0.25 : inline.length > 0 && links === 0 && /[.!?。！？"”»)]\s*$/.test(textOf(sibling)))
    )
      return void kept.push(sibling);
    if (prose > 0 && prose >= contentProse * 0.2 && links < 0.25) return void kept.push(sibling);
  });
  // The heading (and byline, date) right before the content.
  for (let index = at - 1, steps = 0; index >= 0 && steps < 3; index--, steps++) {
    const sibling = siblings[index]!;
    if (measures.flag(sibling) || measures.linkDensity(sibling) > 0.5) break;
    const heading = HEADINGS.has(sibling.name) || sibling.name === 'header' || sibling.name === 'hgroup';
    if (!heading && measures.textLength(sibling) > 200) break;
    if (!kept.includes(sibling)) kept.push(sibling);
    if (heading) break;
  }
  return kept;
}
