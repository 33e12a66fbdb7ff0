// The seven versions of each page: v0 with every volatile element the later steps alter
// already in (with its first value), then six steps of one change each, about two noise steps
// for every edit. Kinds go round-robin over the pages of a half (the kind used least so far
// that fits the page), so that every kind gets about the same count.
import { serialize } from './dom.mjs';
import { EDITS } from './edits.mjs';
import { NOISE } from './noise.mjs';
import { preparePage, sentencesOf, wordsOf } from './page.mjs';
import { random } from './random.mjs';
import { norm, textOf } from './dom.mjs';
import { checkStep, readerView, showsArticle } from './check.mjs';

export const STEPS = 6;
export const EDITS_PER_PAGE = 2;
/** Noise kinds that rewrite the page's own markup: they go into v0 before the inserted elements, so they leave those alone. */
const GLOBAL = new Set([
  'hashed-classes',
  'attribute-order',
  'tracking-params',
  'random-ids',
  'cache-busting',
  'image-cdn-size',
  'lazy-placeholder',
  'script-nonce',
]);

/** The page ready for the kinds: parsed, with its words, sentences and a PRNG. */
function context(page, seed) {
  const prepared = preparePage(page);
  const texts = prepared.blocks.map((b) => norm(textOf(b)));
  const spaced = !/^(zh|ja|th|ko)/.test(prepared.lang) && !/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]{6}/u.test(texts.join(' '));
  return {
    ...prepared,
    expected: page.expected,
    rng: random(`${seed}:${page.id}`),
    words: wordsOf(texts, prepared.lang),
    sentences: sentencesOf(texts, prepared.lang),
    wordSegmenter: new Intl.Segmenter(prepared.lang, { granularity: 'word' }),
    spaced,
    state: {},
  };
}

/** Kinds ordered for the next pick: least used first, ties broken by a turn that moves each page. */
function byCount(kinds, counts, turn) {
  return kinds
    .map((kind, i) => ({ kind, key: counts[kind.name] ?? 0, tie: (i - turn + kinds.length * 100) % kinds.length }))
    .sort((a, b) => a.key - b.key || a.tie - b.tie)
    .map((x) => x.kind);
}

/**
 * Build the versions of the pages of one half. Returns the pages that could be used (each with
 * `versions`, seven UTF-8 buffers, and `steps`), the ones skipped with why, and the problems
 * the self-check found.
 */
export function buildHalf(pages, { seed, check = true }) {
  const noiseCounts = {};
  const editCounts = {};
  const built = [];
  const skipped = [];
  const problems = [];
  let turn = 0;
  for (const page of pages) {
    const ctx = context(page, seed);
    if (ctx.blocks.length < 2 || ctx.editableNodes.length < 1) {
      skipped.push({ id: page.id, why: `${ctx.blocks.length} article blocks, ${ctx.editableNodes.length} editable text nodes found` });
      continue;
    }
    turn++;
    const blockTexts = ctx.blocks.map((b) => norm(textOf(b)));
    // Which steps are edits: two of the six, anywhere.
    const editSteps = new Set(ctx.rng.shuffle([1, 2, 3, 4, 5, 6]).slice(0, EDITS_PER_PAGE));
    const noiseKinds = [];
    const groups = new Set();
    for (const kind of byCount(NOISE, noiseCounts, turn)) {
      if (noiseKinds.length === STEPS - EDITS_PER_PAGE) break;
      if ((kind.group && groups.has(kind.group)) || !kind.applicable(ctx)) continue;
      noiseKinds.push(kind);
      if (kind.group) groups.add(kind.group);
    }
    for (const kind of noiseKinds) noiseCounts[kind.name] = (noiseCounts[kind.name] ?? 0) + 1;
    const order = ctx.rng.shuffle(noiseKinds);
    const inserted = {};
    for (const kind of [...order.filter((k) => GLOBAL.has(k.name)), ...order.filter((k) => !GLOBAL.has(k.name))]) inserted[kind.name] = kind.insert(ctx);
    const versions = [serialize(ctx.doc)];
    const steps = [];
    let noiseAt = 0;
    for (let step = 1; step <= STEPS; step++) {
      if (!editSteps.has(step)) {
        const kind = order[noiseAt++];
        steps.push({ step, type: 'noise', kind: kind.name, visible: kind.visible, v0: inserted[kind.name], description: kind.change(ctx) });
      } else {
        const used = new Set(steps.filter((s) => s.type === 'edit').map((s) => s.kind));
        const planned = byCount(EDITS, editCounts, turn + step);
        let applied = null;
        for (const kind of [...planned.filter((k) => !used.has(k.name)), ...planned.filter((k) => used.has(k.name))]) {
          const description = kind.apply(ctx);
          if (description !== null) {
            applied = { step, type: 'edit', kind: kind.name, planned: planned[0].name, description };
            break;
          }
        }
        if (!applied) {
          problems.push({ id: page.id, step, problem: 'no edit kind could be applied' });
          applied = { step, type: 'edit', kind: 'none', description: 'nothing applied' };
        }
        if (applied.kind !== 'none') editCounts[applied.kind] = (editCounts[applied.kind] ?? 0) + 1;
        steps.push(applied);
      }
      versions.push(serialize(ctx.doc));
    }
    if (check) {
      const views = versions.map(readerView);
      // htmlparser2's tree, written out, can read differently in a browser's parser (a script
      // holding "<!--" and "<script"): such a page is not used.
      if (!showsArticle(views[0], blockTexts)) {
        skipped.push({ id: page.id, why: 'v0 read back with parse5 does not show the article blocks' });
        continue;
      }
      for (const s of steps) {
        for (const problem of checkStep(s, views[s.step - 1], views[s.step], versions[s.step - 1], versions[s.step]))
          problems.push({ id: page.id, step: s.step, kind: s.kind, problem });
      }
    }
    built.push({
      id: page.id,
      set: page.set,
      name: page.name,
      lang: ctx.lang,
      headline: Boolean(ctx.headline),
      blocks: ctx.blocks.length,
      steps,
      versions: versions.map((v) => Buffer.from(v, 'utf8')),
    });
  }
  return { pages: built, skipped, problems, noiseCounts, editCounts };
}
