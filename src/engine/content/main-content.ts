/**
 * Finding the main content of a page, deterministically: paragraphs score the blocks that
 * hold them (longer text and more commas score more, link-heavy text less), the best block
 * wins, and a semantic container (article, main) around it is preferred when it adds little
 * besides. Siblings that score well too come along, so split articles stay whole.
 */
import type { CheerioAPI } from 'cheerio/slim';
import type { AnyNode, Element } from 'domhandler';
import { textContent } from 'domutils';
import { closest, selectIn } from './select.js';

const SCORED = 'p, pre, td, blockquote';
const SEMANTIC = 'article, main, [role=main], [itemprop=articleBody]';
const MIN_TEXT = 25;
const SIBLING_SHARE = 0.2;

const isSpace = (code: number) => code === 32 || (code >= 9 && code <= 13) || code === 160 || code === 0xfeff || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0x1680;

/** The length of `text` with each run of whitespace counted as one character, without building the string. */
function collapsedLength(text: string): number {
  let length = 0;
  let inSpace = false;
  for (let i = 0; i < text.length; i++) {
    const space = isSpace(text.charCodeAt(i));
    if (!space || !inSpace) length++;
    inSpace = space;
  }
  return length;
}

/**
 * Text and link-text lengths of every element, each computed once: the scoring asks for them
 * many times over nested elements, and re-reading subtrees made it quadratic.
 */
class Measures {
  private readonly text = new Map<AnyNode, number>();
  private readonly links = new Map<AnyNode, number>();

  textLength(node: AnyNode): number {
    let length = this.text.get(node);
    if (length === undefined) {
      if (node.type === 'text') length = collapsedLength((node as { data: string }).data);
      else length = ((node as Element).children ?? []).reduce((sum, child) => sum + this.textLength(child), 0);
      this.text.set(node, length);
    }
    return length;
  }

  linkTextLength(node: AnyNode): number {
    let length = this.links.get(node);
    if (length === undefined) {
      if (node.type !== 'tag') length = 0;
      else if ((node as Element).name === 'a') length = this.textLength(node);
      else length = (node as Element).children.reduce((sum, child) => sum + this.linkTextLength(child), 0);
      this.links.set(node, length);
    }
    return length;
  }

  linkDensity(node: AnyNode): number {
    const total = this.textLength(node);
    return total === 0 ? 0 : Math.min(1, this.linkTextLength(node) / total);
  }
}

/** Characters of real prose inside an element: paragraphs that are not mostly links. */
function proseLength(measures: Measures, element: Element): number {
  let total = 0;
  for (const block of selectIn(element, 'p, pre, blockquote')) {
    const length = measures.textLength(block);
    if (length >= MIN_TEXT && measures.linkDensity(block) < 0.5) total += length;
  }
  return total;
}

/** The element to keep as the main content, with its well-scoring siblings; undefined when unsure. */
export function findMainContent($: CheerioAPI): Element[] | undefined {
  const measures = new Measures();
  const scores = new Map<Element, number>();
  for (const element of selectIn($.root().toArray(), SCORED)) {
    const text = textContent(element).replace(/\s+/g, ' ').trim();
    if (text.length < MIN_TEXT) continue;
    const points = 1 + (text.match(/[,，、]/g)?.length ?? 0) + Math.min(Math.floor(text.length / 100), 3);
    const parent = element.parent as Element | null;
    if (parent?.type === 'tag') scores.set(parent, (scores.get(parent) ?? 0) + points);
    const grandparent = parent?.parent as Element | null;
    if (grandparent?.type === 'tag') scores.set(grandparent, (scores.get(grandparent) ?? 0) + points / 2);
  }
  let best: Element | undefined;
  let bestScore = 0;
  for (const [element, score] of scores) {
    const adjusted = score * (1 - measures.linkDensity(element));
    scores.set(element, adjusted);
    if (adjusted > bestScore) {
      best = element;
      bestScore = adjusted;
    }
  }
  if (!best || bestScore < 5) return undefined;
  // Table parts only make sense inside their table.
  if (['tr', 'tbody', 'thead', 'tfoot', 'td', 'th'].includes(best.name)) best = closest(best, 'table') ?? best;

  // Content split over several blocks: an ancestor holding clearly more prose is the content.
  for (let ancestor = best.parent as Element | null; ancestor?.type === 'tag' && ancestor.name !== 'body'; ancestor = ancestor.parent as Element | null) {
    if (proseLength(measures, ancestor) > 1.25 * proseLength(measures, best)) best = ancestor;
  }
  // A semantic container around the winner that is not much bigger keeps its title and byline.
  const semantic = closest(best, SEMANTIC);
  if (semantic && semantic !== best && measures.textLength(semantic) <= 1.5 * measures.textLength(best)) best = semantic;
  if (best.name === 'body' || best.name === 'html') return undefined;

  const kept: Element[] = [];
  const threshold = Math.max(5, bestScore * SIBLING_SHARE);
  for (const sibling of $(best).parent().children().toArray() as Element[]) {
    if (sibling === best || (scores.get(sibling) ?? 0) >= threshold) kept.push(sibling);
  }
  return kept;
}
