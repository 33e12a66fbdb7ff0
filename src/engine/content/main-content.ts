/**
 * Finding the main content of a page, deterministically, as a pipeline of steps, each a module
 * of main-content/ that says what it decides:
 *
 * 1. measure.ts: the paragraphs, and every element's measures, taken once;
 * 2. score.ts: points from each paragraph to the containers above it;
 * 3. core.ts: the best container, when it scores as an article: the core;
 * 4. widen.ts: the core widened to the whole article, and the siblings kept with it;
 * 5. sweep.ts: chrome, clutter, comments, link lists and the article's asides (asides.ts)
 *    removed inside what is kept;
 * 6. trim-ends.ts: what is left before, between and after the paragraphs of prose.
 *
 * Without a core, the whole page is kept, swept the same way except for link lists.
 */
import type { Element } from 'domhandler';
import { chooseCore } from './main-content/core.js';
import { measurePage } from './main-content/measure.js';
import { scoreContainers } from './main-content/score.js';
import { sweepContent, sweepPage } from './main-content/sweep.js';
import { trimEnds } from './main-content/trim-ends.js';
import { widen } from './main-content/widen.js';

export interface MainContent {
  /** The elements to keep, in document order; cleaned inside. */
  keep: Element[];
  /** The best-scoring block, when the page had one. */
  core?: Element;
}

/**
 * Chooses the main content under `root` (the body) and removes chrome, comments, clutter and
 * link lists inside it. Without a clear core (no prose), the whole root is kept, cleaned the
 * same way except for link lists, which may be all the page has. `title` is the document's
 * <title>, which tells the page's own story among several.
 */
export function findMainContent(root: Element, title = ''): MainContent {
  const measures = measurePage(root);
  const scores = scoreContainers(root, measures);
  const core = chooseCore(root, title, measures, scores);
  if (!core) {
    sweepPage(root, measures);
    return { keep: [root] };
  }
  const extent = widen(core, root, measures);
  const swept = sweepContent(extent, measures);
  return trimEnds(swept, measures);
}
