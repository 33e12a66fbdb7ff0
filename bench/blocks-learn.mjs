#!/usr/bin/env node
// A first look at a learned scorer of blocks (main content by learning), judged only on pages
// it was not trained on. Each page of both corpora is decoded and parsed as webwatch does, cut
// into blocks (the innermost elements that hold text: paragraphs, list items, headings, cells,
// captions, divs of bare text), then cleaned by webwatch's rules (onlyMainContent), which marks
// the blocks they keep. Each block is described by features that need no word list of any
// language: its length,
// its link density, its punctuation and sentence shape, the digits and capitals in it, its tag,
// the tags around it, the tokens of its and its ancestors' class and id (hashed), its place
// among the blocks, how often its text repeats on the page, and its neighbours (their length,
// links and prose; the nearest prose; inside or outside the run of prose). Labels: on trafilatura's set,
// a block that holds a `with` segment (or lies inside one) is kept, one that holds a `without`
// segment dropped; on Readability's, a block whose text the expected article holds is kept.
//
// The scorer is gradient-boosted trees of depth 2 (--learner trees, the default) or a logistic
// regression (--learner linear; fixed seed, plain gradient descent), trained on every
// labelled block of one half of each set (pages split by a hash of their name) and used on the
// other where the rules are least sure: it drops the short blocks (under --unsure-chars, 80)
// that the rules kept and it scores below a threshold chosen on the training half (the best
// trafilatura F1 that keeps Readability's 10th percentile); then the halves swap. The
// page text scored is the kept blocks' text, joined, for the rules alone and with the scorer,
// so both figures are measured the same way (they differ from trafilatura-eval.mjs's, which
// scores the markdown).
//
// --diagnose also says where the rules' false positives sit (the length and tag of the kept
// block that holds each `without` segment found) and where their misses sit (--diagnose 2 lists some).
// --unsure ends has the scorer judge the kept blocks outside the run of prose instead, of any length.
// --unsure holes has it bring back dropped blocks that lie between kept ones or next to them;
// --unsure all has it decide every block, with the rules' choice as one more feature (stacking).
// --words 1 adds the block's own words, hashed, as features (a list learned, not written).
// --structure 1 adds structural repetition (how many blocks share the block's and its parent's
// tags and classes); --guard F lets the scorer take out at most that share of a page's kept text.
// --inner 1 chooses the threshold on out-of-fold scores of the training half; --ceiling 1 also
// reads the held-out F1 at every threshold on the held-out half itself, as a ceiling.
// Usage: npm run build && node bench/blocks-learn.mjs [--limit N] [--learner trees|linear]
//   [--unsure short|ends|holes|all|widened] [--unsure-chars N] [--words 1] [--structure 1] [--guard F] [--inner 1] [--ceiling 1] [--diagnose 1|2]
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { arg, halfOf, patchedBuild, root, wordF1 } from './corpus-bench.mjs';
import { trainLinear, trainTrees } from './learners.mjs';

if (!existsSync(join(root, 'dist/src/engine/content/clean.js'))) {
  console.error('dist/ is missing: run npm run build first');
  process.exit(2);
}
// Where the rules placed each block (inside the core they chose, in what widening added to it, or
// neither) is a feature too, and the engine says it to no caller: the built tree is copied to a
// temporary directory and its main-content module patched there to leave the two on globalThis,
// so the shipped code is what runs, with two assignments added.
const placements = ['const core = chooseCore(root, title, measures, scores);', 'const extent = widen(core, root, measures);'];
const dist = patchedBuild(
  'blocks-learn',
  'engine/content/main-content.js',
  placements.map((anchor) => [anchor, `${anchor} globalThis.__webwatchPlaced?.('${anchor.split(' ')[1]}', ${anchor.split(' ')[1]});`]),
);
const { parseHtml } = await import(dist('engine/content/parse-html.js'));
const { cleanHtml } = await import(dist('engine/content/clean.js'));
const { decodeBody } = await import(dist('engine/fetch/decode.js'));
const { parseDocument } = await import('htmlparser2');
const domutils = await import('domutils');

const corpora = join(root, '..', 'shared', 'corpus');
const limit = Number(arg('--limit', Infinity));
const normalized = (text) => text.replace(/\s+/g, ' ').trim();
/** --structure 1: features of structural repetition (blocks of the same tags and classes). */
const STRUCTURE = arg('--structure', undefined) !== undefined;
/** --guard F: the share of a page's kept characters the scorer may take out (no bound without it). */
const GUARD = Number(arg('--guard', 0));
/** --inner 1: the threshold chosen on out-of-fold scores of the training half (see the fold loop). */
const INNER = arg('--inner', undefined) !== undefined;
/** --ceiling 1: also the held-out F1 at each threshold, read on the held-out half (a ceiling, not a choice). */
const CEILING = arg('--ceiling', undefined) !== undefined;

// ---- Blocks and their features ----------------------------------------------------------------

const BLOCK_TAGS = new Set(['p', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'td', 'th', 'dt', 'dd', 'figcaption', 'caption', 'summary']);
const CONTAINER_TAGS = new Set(['div', 'section', 'article', 'main', 'aside', 'header', 'footer', 'nav', 'figure', 'form', 'span', 'table', 'ul', 'ol', 'dl']);
const TAG_FEATURES = ['p', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'td', 'th', 'dt', 'dd', 'figcaption', 'caption', 'div', 'other'];
const AROUND_FEATURES = ['aside', 'nav', 'footer', 'header', 'figure', 'section', 'article', 'form', 'ul', 'ol', 'table', 'blockquote', 'main'];
const HASH_BUCKETS = 256;
const WORD_BUCKETS = 256;

const hashOf = (token) => createHash('md5').update(token).digest().readUInt32LE(0) % HASH_BUCKETS;
const tokensOf = (element) =>
  `${element.attribs?.class ?? ''} ${element.attribs?.id ?? ''}`
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((token) => token.length >= 3 && token.length <= 24 && !/^\d+$/.test(token));

/** The innermost text-holding elements under `root`, in document order. */
function blocksOf(rootElement) {
  const blocks = [];
  const visit = (element) => {
    const children = element.children ?? [];
    const childBlocks = children.filter(
      (child) => child.type === 'tag' && (BLOCK_TAGS.has(child.name) || CONTAINER_TAGS.has(child.name) || child.children?.length),
    );
    const ownText = children
      .filter((child) => child.type === 'text')
      .map((child) => child.data)
      .join('');
    if (BLOCK_TAGS.has(element.name)) {
      blocks.push(element);
      return;
    }
    // A container with bare text of its own is a block too (a div of text, a span line).
    if (normalized(ownText).length >= 20 && element.name !== 'body') {
      blocks.push(element);
      return;
    }
    for (const child of childBlocks) visit(child);
  };
  visit(rootElement);
  return blocks;
}

function features(block, index, count, repeats, meanLength) {
  const text = normalized(domutils.textContent(block));
  const linkText = domutils
    .findAll((node) => node.name === 'a', block.children ?? [])
    .map((a) => normalized(domutils.textContent(a)))
    .join('').length;
  const length = text.length;
  const words = text ? text.split(' ').length : 0;
  const sentences = (text.match(/[.!?。！？](\s|$)/g) ?? []).length;
  const vector = new Float64Array(64 + HASH_BUCKETS);
  let at = 0;
  const put = (value) => {
    vector[at++] = value;
  };
  put(Math.log1p(length) / 8);
  put(Math.log1p(words) / 6);
  put(length ? linkText / length : 0);
  put(length ? (text.match(/[,;:]/g) ?? []).length / Math.max(1, words) : 0);
  put(Math.min(1, sentences / 5));
  put(words && sentences ? Math.min(1, words / sentences / 40) : 0);
  put(/[.!?。！？"”)]$/.test(text) ? 1 : 0);
  put(length ? (text.match(/\d/g) ?? []).length / length : 0);
  put(length ? (text.match(/\p{Lu}/gu) ?? []).length / length : 0);
  put(count > 1 ? index / (count - 1) : 0.5);
  put(index === 0 ? 1 : 0);
  put(index === count - 1 ? 1 : 0);
  put(Math.min(1, (repeats - 1) / 3));
  put(meanLength ? Math.min(4, length / meanLength) / 4 : 0);
  put(/^[|•·\-–—©®]/.test(text) ? 1 : 0);
  put(/(©|\(c\)|\d{4}\s*[-–]\s*\d{4})/i.test(text) ? 1 : 0);
  // The block's tag, and the tags around it (up to five levels up).
  const tag = TAG_FEATURES.includes(block.name) ? block.name : 'other';
  for (const name of TAG_FEATURES) put(name === tag ? 1 : 0);
  const around = new Set();
  let depth = 0;
  const tokens = [...tokensOf(block).map((token) => `self:${token}`)];
  for (let parent = block.parent; parent && parent.name !== 'body' && depth < 5; parent = parent.parent, depth++) {
    around.add(parent.name);
    tokens.push(...tokensOf(parent).map((token) => `up:${token}`));
  }
  for (const name of AROUND_FEATURES) put(around.has(name) ? 1 : 0);
  put(depth / 5);
  while (at < 64) put(0);
  for (const token of tokens) vector[64 + hashOf(token)] = 1;
  return { vector, text, tag: block.name, linkDensity: length ? linkText / length : 0 };
}

/** A page's kept blocks with their features, after webwatch's own cleaning. */
function pageBlocks(bytes, url) {
  const { text } = decodeBody(bytes, 'text/html', true);
  const { document } = parseHtml(text);
  // Script, style and the like first (the rules' own first pass would drop them anyway): the
  // blocks are then those of the page as read, the rules' survivors marked after cleaning.
  for (const node of domutils.findAll((each) => ['script', 'style', 'noscript', 'template', 'svg'].includes(each.name), document.children ?? []))
    domutils.removeElement(node);
  const body = domutils.findOne((node) => node.name === 'body', document.children ?? []) ?? document;
  const elements = blocksOf(body);
  const texts = elements.map((element) => normalized(domutils.textContent(element)));
  const seen = new Map();
  for (const each of texts) seen.set(each, (seen.get(each) ?? 0) + 1);
  const meanLength = texts.reduce((sum, each) => sum + each.length, 0) / Math.max(1, texts.length);
  const blocks = elements.map((element, index) => features(element, index, elements.length, seen.get(texts[index]) ?? 1, meanLength));
  addContext(blocks, elements);
  // Structural repetition: how many blocks share this block's ancestry signature (the tags and
  // classes of it and its two nearest ancestors), and how many share its parent's: teaser cards,
  // comment items and link lists repeat as structures, prose mostly as bare paragraphs.
  if (STRUCTURE) {
    const signature = (element, levels) => {
      const parts = [];
      for (let node = element, level = 0; node && level < levels; node = node.parent, level++) parts.push(`${node.name}.${node.attribs?.class ?? ''}`);
      return parts.join('<');
    };
    const counts = new Map();
    const keys = elements.map((element) => [signature(element, 3), signature(element.parent, 2)]);
    for (const [own, parent] of keys) {
      counts.set(own, (counts.get(own) ?? 0) + 1);
      counts.set(`p:${parent}`, (counts.get(`p:${parent}`) ?? 0) + 1);
    }
    blocks.forEach((block, index) => {
      const [own, parent] = keys[index];
      const vector = new Float64Array(block.vector.length + 3);
      vector.set(block.vector);
      vector[block.vector.length] = Math.min(1, Math.log1p(counts.get(own) - 1) / 4);
      vector[block.vector.length + 1] = Math.min(1, Math.log1p(counts.get(`p:${parent}`) - 1) / 4);
      vector[block.vector.length + 2] = /\S/.test(elements[index].attribs?.class ?? '') || /\S/.test(elements[index].parent?.attribs?.class ?? '') ? 1 : 0;
      block.vector = vector;
    });
  }
  // Marked while the rules run, before keeping their choice moves elements about.
  const under = (element, ancestor) => {
    for (let node = element; ancestor && node; node = node.parent) if (node === ancestor) return true;
    return false;
  };
  const placed = { core: new Set(), extent: new Set() };
  globalThis.__webwatchPlaced = (name, found) => {
    // The core: { core, story }; the extent: { core, content, kept } (the widened block and its siblings).
    const roots = name === 'core' ? [found?.core] : (found?.kept ?? []);
    for (const each of elements) if (roots.some((root) => under(each, root))) placed[name].add(each);
  };
  cleanHtml(document, url, { onlyMainContent: true, blockAds: true });
  globalThis.__webwatchPlaced = undefined;
  const attached = (element) => {
    let node = element;
    while (node.parent) node = node.parent;
    return node === document;
  };
  elements.forEach((element, index) => {
    const block = blocks[index];
    block.kept = attached(element);
    block.inCore = placed.core.has(element);
    block.widened = !block.inCore && placed.extent.has(element);
    const vector = new Float64Array(block.vector.length + 2);
    vector.set(block.vector);
    vector[block.vector.length] = block.inCore ? 1 : 0;
    vector[block.vector.length + 1] = block.widened ? 1 : 0;
    block.vector = vector;
  });
  return blocks.filter((block) => block.text);
}

/** Prose: a long block that ends as a sentence does, with few links. */
const isProse = (block) => block.text.length >= 150 && block.linkDensity < 0.2 && /[.!?。！？"”)]$/.test(block.text);

/**
 * What a block is among its neighbours: the blocks before and after it, the nearest prose, and
 * whether it lies within the run of prose (between the first and the last prose block) or outside.
 */
function addContext(blocks, elements) {
  const prose = blocks.map(isProse);
  const first = prose.indexOf(true);
  const last = prose.lastIndexOf(true);
  const proseAt = prose.flatMap((is, index) => (is ? [index] : []));
  blocks.forEach((block, index) => {
    const context = new Float64Array(CONTEXT_FEATURES);
    let at = 0;
    const put = (value) => {
      context[at++] = value;
    };
    for (const neighbour of [blocks[index - 1], blocks[index + 1], blocks[index - 2], blocks[index + 2]]) {
      put(neighbour ? Math.log1p(neighbour.text.length) / 8 : 0);
      put(neighbour ? neighbour.linkDensity : 0);
      put(neighbour && isProse(neighbour) ? 1 : 0);
    }
    const nearest = proseAt.length ? Math.min(...proseAt.map((at) => Math.abs(at - index))) : blocks.length;
    put(Math.min(1, nearest / 5));
    put(first >= 0 && index > first && index < last ? 1 : 0);
    put(first >= 0 && index < first ? 1 : 0);
    put(last >= 0 && index > last ? 1 : 0);
    block.outsideProse = first >= 0 && (index < first || index > last);
    put(proseAt.length === 0 ? 1 : 0);
    // The parent's other text: how much of it is prose.
    const parent = elements[index].parent;
    const siblings = blocks.filter((_, other) => elements[other].parent === parent);
    const siblingText = siblings.reduce((sum, each) => sum + each.text.length, 0);
    put(siblingText ? siblings.filter(isProse).reduce((sum, each) => sum + each.text.length, 0) / siblingText : 0);
    put(Math.min(1, siblings.length / 20));
    const vector = new Float64Array(block.vector.length + CONTEXT_FEATURES);
    vector.set(block.vector);
    vector.set(context, block.vector.length);
    block.vector = vector;
  });
}
const CONTEXT_FEATURES = 24;

// ---- The two sets, labelled ---------------------------------------------------------------------

/** The split of a training half in two, for choosing the threshold on pages the model did not see (--inner). */
const innerHalf = (name) => halfOf(name, 1);

function trafilaturaPages() {
  const dir = join(corpora, 'trafilatura-eval');
  const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));
  return Object.entries(expected)
    .slice(0, limit)
    .flatMap(([file, entry]) => {
      const path = join(dir, 'pages', file);
      if (!existsSync(path)) return [];
      const blocks = pageBlocks(gunzipSync(readFileSync(path)), entry.url ?? 'https://example.com/');
      const withSegments = (entry.with ?? []).map(normalized).filter(Boolean);
      const withoutSegments = (entry.without ?? []).map(normalized).filter(Boolean);
      for (const block of blocks) {
        const keep = withSegments.some((segment) => block.text.includes(segment) || (block.text.length >= 15 && segment.includes(block.text)));
        const drop = withoutSegments.some((segment) => block.text.includes(segment) || (block.text.length >= 10 && segment.includes(block.text)));
        block.label = keep && !drop ? 1 : drop && !keep ? 0 : undefined;
      }
      return [{ name: file, half: halfOf(file), blocks, withSegments, withoutSegments }];
    });
}

function readabilityPages() {
  const dir = join(corpora, 'pages');
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, 'expected.html')))
    .slice(0, limit)
    .map((name) => {
      const blocks = pageBlocks(readFileSync(join(dir, name, 'source.html')), 'https://example.com/');
      const expected = normalized(domutils.textContent(parseDocument(readFileSync(join(dir, name, 'expected.html'), 'utf8'))));
      for (const block of blocks) block.label = block.text.length < 15 ? undefined : expected.includes(block.text) ? 1 : 0;
      return { name, half: halfOf(name), blocks, expected };
    });
}

// ---- Scores of pages ---------------------------------------------------------------------------

/**
 * The blocks a page keeps under `keepOf`. With --guard F, the scorer may take out at most that
 * share of the characters the rules kept on a page, the blocks it scores lowest first: a page
 * whose every short block looks alike to it is not emptied.
 */
function selected(page, keepOf) {
  if (!GUARD) return page.blocks.filter(keepOf);
  const ruled = page.blocks.filter((block) => block.kept);
  const budget = GUARD * ruled.reduce((sum, block) => sum + block.text.length, 0);
  const allowed = new Set();
  let used = 0;
  for (const block of ruled.filter((each) => !keepOf(each)).sort((a, b) => a.p - b.p)) {
    if (used + block.text.length > budget) break;
    used += block.text.length;
    allowed.add(block);
  }
  return page.blocks.filter((block) => keepOf(block) || (block.kept && !allowed.has(block)));
}

/** trafilatura's scoring over pages: TP, FP, FN of their segments in the joined kept text. */
function segmentScore(pages, keepOf) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const page of pages) {
    const text = normalized(
      selected(page, keepOf)
        .map((block) => block.text)
        .join(' '),
    );
    for (const segment of page.withSegments) text.includes(segment) ? tp++ : fn++;
    for (const segment of page.withoutSegments) if (text.includes(segment)) fp++;
  }
  const precision = tp / (tp + fp);
  const recall = tp / (tp + fn);
  return { precision, recall, f1: (2 * tp) / (2 * tp + fp + fn) };
}

/** Readability's pages: each page's F1 of words against the expected article; median and 10th percentile. */
function wordScore(pages, keepOf) {
  const f1s = pages.map((page) =>
    wordF1(
      selected(page, keepOf)
        .map((block) => block.text)
        .join(' '),
      page.expected,
    ),
  );
  const sorted = [...f1s].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], p10: sorted[Math.floor(sorted.length * 0.1)] };
}

// ---- Train on one half, judge on the other ------------------------------------------------------

const started = performance.now();
const sets = { trafilatura: trafilaturaPages(), readability: readabilityPages() };
const readMs = performance.now() - started;
const report = { machine: { cpus: cpus().length, node: process.version }, readMs: Math.round(readMs), folds: [] };
/** --unsure holes: the scorer may bring back dropped blocks between kept ones or next to them. */
const ADDING = arg('--unsure', 'short') === 'holes';
/** --unsure all: the scorer decides every block, the rules' choice one of its features (stacking). */
const STACKED = arg('--unsure', 'short') === 'all';
/** --words 1: hashed words of the block's own text as features too (a learned, not a written, list). */
if (arg('--words', undefined) !== undefined)
  for (const page of [...sets.trafilatura, ...sets.readability])
    for (const block of page.blocks) {
      const vector = new Float64Array(block.vector.length + WORD_BUCKETS);
      vector.set(block.vector);
      for (const word of block.text.toLowerCase().match(/\p{L}{3,20}/gu) ?? []) vector[block.vector.length + (hashOf(`w:${word}`) % WORD_BUCKETS)] = 1;
      block.vector = vector;
    }
if (STACKED)
  for (const page of [...sets.trafilatura, ...sets.readability])
    for (const block of page.blocks) {
      const vector = new Float64Array(block.vector.length + 1);
      vector.set(block.vector);
      vector[block.vector.length] = block.kept ? 1 : 0;
      block.vector = vector;
    }
const thresholds = STACKED
  ? [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]
  : ADDING
    ? [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 2]
    : [0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5];
for (const page of [...sets.trafilatura, ...sets.readability]) {
  const keptAt = page.blocks.flatMap((block, index) => (block.kept ? [index] : []));
  page.blocks.forEach((block, index) => {
    block.gap = !block.kept && keptAt.length > 0 && ((index > keptAt[0] && index < keptAt.at(-1)) || index === keptAt[0] - 1 || index === keptAt.at(-1) + 1);
  });
}
/** Where the rules are unsure: the scorer judges short blocks only (the prose the rules keep is left to them). */
const UNSURE_MAX_CHARS = Number(arg('--unsure-chars', 80));
/** --unsure ends: the blocks outside the run of prose (before its first block or after its last), any length. */
const UNSURE = arg('--unsure', 'short');
/** The blocks the scorer judges, by --unsure. */
const UNSURE_BLOCKS = {
  short: (block) => block.text.length < UNSURE_MAX_CHARS,
  ends: (block) => block.outsideProse,
  holes: (block) => block.gap,
  widened: (block) => !block.inCore,
  all: () => true,
};
const unsure = UNSURE_BLOCKS[UNSURE];
if (!unsure) {
  console.error(`--unsure must be one of ${Object.keys(UNSURE_BLOCKS).join(', ')}, got "${UNSURE}"`);
  process.exit(2);
}
const judged = (threshold) => (block) =>
  STACKED ? block.p >= threshold : ADDING ? block.kept || (block.gap && block.p >= threshold) : block.kept && (!unsure(block) || block.p >= threshold);
const byRules = (block) => block.kept;

for (const test of [0, 1]) {
  const trainPages = [...sets.trafilatura, ...sets.readability].filter((page) => page.half !== test);
  const learner = (pages) => {
    const labelled = pages.flatMap((page) => page.blocks.filter((block) => block.label !== undefined));
    return { examples: labelled, score: arg('--learner', 'trees') === 'trees' ? trainTrees(labelled) : trainLinear(labelled) };
  };
  // The threshold is chosen on scores the model gave pages it was not trained on (--inner 1): the
  // training half is split in two again, a model trained on each part scores the other, and the
  // threshold that does best there is the one used. Without it, the threshold is chosen on the
  // training half's own scores, where a model is surer than it will be on new pages.
  if (INNER)
    for (const part of [0, 1]) {
      const { score } = learner(trainPages.filter((page) => innerHalf(page.name) !== part));
      for (const page of trainPages.filter((each) => innerHalf(each.name) === part)) for (const block of page.blocks) block.p = score(block.vector);
    }
  const { examples, score } = learner(trainPages);
  const trainTrafilatura = sets.trafilatura.filter((page) => page.half !== test);
  for (const page of [...sets.trafilatura, ...sets.readability])
    if (!INNER || page.half === test) for (const block of page.blocks) block.p = score(block.vector);
  const trainReadability = sets.readability.filter((page) => page.half !== test);
  // On the training half: the best trafilatura F1 that keeps Readability's p10 where the rules have it.
  const floor = wordScore(trainReadability, byRules).p10;
  const best = thresholds
    .map((threshold) => ({ threshold, f1: segmentScore(trainTrafilatura, judged(threshold)).f1, p10: wordScore(trainReadability, judged(threshold)).p10 }))
    .filter((choice) => choice.p10 >= floor - 0.005)
    .sort((a, b) => b.f1 - a.f1)[0] ?? { threshold: 0 };
  const heldTrafilatura = sets.trafilatura.filter((page) => page.half === test);
  const heldReadability = sets.readability.filter((page) => page.half === test);
  // How well the scores tell the held-out half's labelled short blocks apart (AUC), and how many there are.
  const heldShort = [...sets.trafilatura, ...sets.readability]
    .filter((page) => page.half === test)
    .flatMap((page) => page.blocks.filter((block) => (ADDING || block.kept) && block.label !== undefined && unsure(block)));
  // --ceiling 1: the held-out F1 at each threshold of a fine grid, read on the held-out half
  // itself. No honest method may choose this way; it says how much the best threshold could buy.
  const ceiling = CEILING
    ? [0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3].map((threshold) => ({
        threshold,
        f1: segmentScore(heldTrafilatura, judged(threshold)).f1,
        p10: wordScore(heldReadability, judged(threshold)).p10,
      }))
    : undefined;
  const positives = heldShort.filter((block) => block.label === 1);
  const negatives = heldShort.filter((block) => block.label === 0);
  let wins = 0;
  for (const positive of positives) for (const negative of negatives) wins += positive.p > negative.p ? 1 : positive.p === negative.p ? 0.5 : 0;
  report.folds.push({
    heldOutHalf: test,
    heldOutShortBlocks: { keep: positives.length, drop: negatives.length, auc: wins / Math.max(1, positives.length * negatives.length) },
    trainedOnBlocks: examples.length,
    threshold: best.threshold,
    ...(ceiling && { ceiling }),
    trafilatura: {
      pages: heldTrafilatura.length,
      rules: segmentScore(heldTrafilatura, byRules),
      withScorer: segmentScore(heldTrafilatura, judged(best.threshold)),
    },
    readability: {
      pages: heldReadability.length,
      rules: wordScore(heldReadability, byRules),
      withScorer: wordScore(heldReadability, judged(best.threshold)),
    },
  });
}

// Where the rules' false positives sit: the kept blocks holding a `without` segment, by length.
if (arg('--diagnose', undefined) !== undefined) {
  const lengths = { under80: 0, under200: 0, under500: 0, longer: 0 };
  const tags = new Map();
  let missed = 0;
  for (const page of sets.trafilatura) {
    const kept = page.blocks.filter(byRules);
    for (const segment of page.withoutSegments) {
      const holder = kept.find((block) => block.text.includes(segment));
      if (!holder) {
        if (normalized(kept.map((block) => block.text).join(' ')).includes(segment)) missed++;
        continue;
      }
      const n = holder.text.length;
      lengths[n < 80 ? 'under80' : n < 200 ? 'under200' : n < 500 ? 'under500' : 'longer']++;
      tags.set(holder.tag, (tags.get(holder.tag) ?? 0) + 1);
    }
  }
  // The kept, labelled blocks by where the rules placed them: in the core, widened to, or outside both.
  const placement = {};
  for (const page of [...sets.trafilatura, ...sets.readability])
    for (const block of page.blocks)
      if (block.kept && block.label !== undefined) {
        const where = block.inCore ? 'core' : block.widened ? 'widened' : 'elsewhere';
        placement[where] ??= { keep: 0, drop: 0 };
        placement[where][block.label ? 'keep' : 'drop']++;
      }
  console.error(JSON.stringify({ keptBlocksByPlacement: placement }));
  // Where the rules' misses sit: the dropped block holding each `with` segment not found, by its
  // place relative to the kept blocks (a hole between two kept blocks, next to the kept run, or
  // far from it) and by tag.
  const places = { hole: 0, nextTo: 0, near: 0, far: 0, noKept: 0, acrossBlocks: 0 };
  const missTags = new Map();
  const examples = [];
  for (const page of sets.trafilatura) {
    const keptAt = page.blocks.flatMap((block, index) => (block.kept ? [index] : []));
    const text = normalized(
      page.blocks
        .filter(byRules)
        .map((block) => block.text)
        .join(' '),
    );
    for (const segment of page.withSegments) {
      if (text.includes(segment)) continue;
      const at = page.blocks.findIndex((block) => block.text.includes(segment) || (block.text.length >= 15 && segment.includes(block.text)));
      if (at < 0) {
        places.acrossBlocks++;
        continue;
      }
      const holder = page.blocks[at];
      missTags.set(holder.tag, (missTags.get(holder.tag) ?? 0) + 1);
      if (!keptAt.length) places.noKept++;
      else if (at > keptAt[0] && at < keptAt.at(-1)) places.hole++;
      else {
        const distance = Math.min(...keptAt.map((index) => Math.abs(index - at)));
        places[distance <= 1 ? 'nextTo' : distance <= 5 ? 'near' : 'far']++;
      }
      if (examples.length < 40) examples.push({ page: page.name, tag: holder.tag, chars: holder.text.length, text: holder.text.slice(0, 80) });
    }
  }
  console.error(
    JSON.stringify({
      falsePositiveBlocks: lengths,
      acrossBlocks: missed,
      byTag: Object.fromEntries(tags),
      misses: places,
      missTags: Object.fromEntries(missTags),
    }),
  );
  if (arg('--diagnose', undefined) === '2') for (const each of examples) console.error(JSON.stringify(each));
}

const round = (value) => (typeof value === 'number' ? Math.round(value * 1000) / 1000 : value);
const rounded = JSON.parse(JSON.stringify(report, (_key, value) => round(value)));
// The default run writes blocks-learn.json; a variant, blocks-learn-<its options>.json.
const variant = [
  UNSURE !== 'short' && UNSURE,
  arg('--words', undefined) !== undefined && 'words',
  STRUCTURE && 'structure',
  GUARD && `guard${GUARD}`,
  INNER && 'inner',
  CEILING && 'ceiling',
  arg('--learner', 'trees') !== 'trees' && 'linear',
]
  .filter(Boolean)
  .map((part) => `-${part}`)
  .join('');
writeFileSync(join(root, `bench/results/blocks-learn${variant}.json`), `${JSON.stringify(rounded, null, 2)}\n`);
console.log(JSON.stringify(rounded, null, 2));
