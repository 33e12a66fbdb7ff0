#!/usr/bin/env node
// How much a better choice of the core could gain, at most, on trafilatura's evaluation set: a
// ceiling for a learned chooser of the core (main content by learning). For each page, webwatch's
// rules run as they ship, then once more for each of the --top (6) best-scoring containers forced
// as the best candidate (the rest of the pipeline unchanged: the title's story, widening,
// sweeping, trimming). The oracle keeps, per page, the candidate that scores best against the
// page's own `with` and `without` segments (fewer false positives break ties). The gap between
// the rules and the oracle is what any chooser of the core could add; a learned one, judged on
// pages it did not see, would add part of it. The page text scored is the cleaned document's
// text, segments matched as trafilatura's evaluation does.
//
// The forcing needs a seam the engine does not have (and should not, for a bench): the built
// tree is copied to a temporary directory and its main-content module patched there, so the
// shipped code is what runs, with two lines added (the second reports the rules' own core).
// --learn also trains a chooser of the core on one half of trafilatura's and Readability's pages
// and judges it on the other (features of each forced candidate: rank, score, size, links, tag,
// where it lies against the rules' core, what forcing it kept), both ways; --learner linear|trees.
// Usage: npm run build && node bench/core-ceiling.mjs [--top N] [--limit N] [--learn 1] [--learner linear|trees]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseDocument } from 'htmlparser2';
import { arg, halfOf, patchedBuild, root, wordF1 } from './corpus-bench.mjs';
import { trainLinear, trainTrees } from './learners.mjs';

const corpus = join(root, '..', 'shared', 'corpus', 'trafilatura-eval');
if (!existsSync(join(root, 'dist/src/engine/content/main-content.js'))) {
  console.error('dist/ is missing: run npm run build first');
  process.exit(2);
}
if (!existsSync(join(corpus, 'expected.json'))) {
  console.error(`no trafilatura evaluation set at ${corpus}`);
  process.exit(2);
}
const top = Number(arg('--top', 6));
const limit = Number(arg('--limit', Infinity));
/** --learn: a learned chooser of the core, trained on one half of both sets and judged on the other. */
const learn = arg('--learn', undefined) !== undefined;

// The patched copy: the containers' scores pass through a hook that may name another best, and
// the rules' own core is reported.
const chosen = 'const core = chooseCore(root, title, measures, scores);';
const dist = patchedBuild('core-ceiling', 'engine/content/main-content.js', [
  [
    'const scores = scoreContainers(root, measures);',
    'let scores = scoreContainers(root, measures);\n    scores = globalThis.__webwatchCoreHook?.(scores) ?? scores;',
  ],
  [chosen, `${chosen} globalThis.__webwatchCoreChosen?.(core?.core);`],
]);
const { parseHtml } = await import(dist('engine/content/parse-html.js'));
const { cleanHtml } = await import(dist('engine/content/clean.js'));
const { decodeBody } = await import(dist('engine/fetch/decode.js'));
const domutils = await import('domutils');

const expected = JSON.parse(readFileSync(join(corpus, 'expected.json'), 'utf8'));
const normalized = (text) => text.replace(/\s+/g, ' ').trim();

/**
 * The cleaned text of a page with the `pick`-th best container forced as the best (none: the
 * rules' own), how many containers scored, and, with --learn, what a learner of the choice
 * reads: the ranked containers and where they lie against the rules' core (the rules' own run
 * only), and the share of the kept text inside links.
 */
function cleanedText(bytes, url, pick) {
  const { text } = decodeBody(bytes, 'text/html', true);
  const { document } = parseHtml(text);
  let containers = 0;
  let ranked = [];
  const describe = learn && pick === undefined;
  // Measured before cleaning moves them: each ranked container's text, link text and depth.
  const measureOf = (element) => {
    const all = normalized(domutils.textContent(element)).length;
    const links = domutils.findAll((node) => node.name === 'a', element.children ?? []).reduce((sum, a) => sum + normalized(domutils.textContent(a)).length, 0);
    let depth = 0;
    for (let node = element.parent; node; node = node.parent) depth++;
    return { all, links, depth, tag: element.name };
  };
  globalThis.__webwatchCoreHook = (scores) => {
    ranked = [...scores.scores]
      .sort((a, b) => b[1] - a[1])
      .map(([element, score], index) => ({ element, score, ...(describe && index < top && measureOf(element)) }));
    containers = ranked.length;
    if (pick === undefined || pick >= ranked.length) return undefined;
    return { ...scores, best: ranked[pick].element, bestScore: ranked[pick].score };
  };
  globalThis.__webwatchCoreChosen = (core) => {
    if (!describe) return;
    // Read now, while the tree is whole: where each ranked container lies against the chosen core.
    const holds = (outer, inner) => {
      for (let node = inner; node; node = node.parent) if (node === outer) return true;
      return false;
    };
    for (const each of ranked.slice(0, top))
      each.relation = !core ? 'none' : each.element === core ? 'same' : holds(each.element, core) ? 'holds' : holds(core, each.element) ? 'inside' : 'apart';
  };
  cleanHtml(document, url, { onlyMainContent: true, blockAds: true });
  const kept = normalized(domutils.textContent(document));
  const linkText = domutils
    .findAll((node) => node.name === 'a', document.children ?? [])
    .reduce((sum, a) => sum + normalized(domutils.textContent(a)).length, 0);
  return {
    text: kept,
    containers,
    linkShare: kept.length ? linkText / kept.length : 0,
    ranked: ranked.slice(0, top),
  };
}

const TAGS = ['article', 'main', 'section', 'div', 'td', 'ul', 'ol', 'table'];
const RELATIONS = ['same', 'holds', 'inside', 'apart', 'none'];
/**
 * What a learner reads of a forced candidate against the rules' own run: its rank and score
 * against the best's, its size, links, depth and tag, where it lies against the rules' core, and
 * what forcing it kept (its length against the rules', its links), with the rules' own output's.
 */
function candidateFeatures(own, run, pick) {
  const candidate = own.ranked[pick];
  const vector = [
    pick / 5,
    pick === 0 ? 1 : 0,
    own.ranked[0].score ? candidate.score / own.ranked[0].score : 0,
    Math.log1p(candidate.all) / 10,
    candidate.all ? candidate.links / candidate.all : 0,
    Math.min(1, candidate.depth / 30),
    ...TAGS.map((tag) => (candidate.tag === tag ? 1 : 0)),
    ...RELATIONS.map((relation) => (candidate.relation === relation ? 1 : 0)),
    Math.max(-3, Math.min(3, Math.log((run.text.length + 1) / (own.text.length + 1)))) / 3,
    Math.log1p(run.text.length) / 10,
    run.linkShare,
    Math.log1p(own.text.length) / 10,
    own.linkShare,
    Math.min(1, own.containers / 200),
  ];
  return Float64Array.from(vector);
}

const counts = (text, page) => {
  const found = (segment) => text.includes(normalized(segment));
  const tp = page.with.filter(found).length;
  const fp = page.without.filter(found).length;
  return { tp, fn: page.with.length - tp, fp, tn: page.without.length - fp };
};
const f1 = ({ tp, fn, fp }) => (tp ? (2 * tp) / (2 * tp + fn + fp) : 0);
const better = (a, b) => f1(a) > f1(b) + 1e-9 || (Math.abs(f1(a) - f1(b)) <= 1e-9 && a.fp < b.fp);
const summed = (rows) =>
  rows.reduce((sum, row) => ({ tp: sum.tp + row.tp, fn: sum.fn + row.fn, fp: sum.fp + row.fp, tn: sum.tn + row.tn }), { tp: 0, fn: 0, fp: 0, tn: 0 });
const figures = ({ tp, fn, fp }) => ({
  precision: +(tp / (tp + fp)).toFixed(3),
  recall: +(tp / (tp + fn)).toFixed(3),
  f1: +((2 * tp) / (2 * tp + fn + fp)).toFixed(3),
});

const started = Date.now();
const rules = [];
const oracle = [];
const gains = [];
/** With --learn: per page of both sets, the rules' result and each forced candidate's, with its features. */
const learning = [];
for (const file of Object.keys(expected).sort().slice(0, limit)) {
  const page = expected[file];
  const raw = readFileSync(join(corpus, 'pages', file));
  const bytes = file.endsWith('.gz') ? gunzipSync(raw) : raw;
  const url = /^https?:/.test(page.url) ? page.url : 'https://example.com/';
  const own = cleanedText(bytes, url);
  const ruled = counts(own.text, page);
  let best = ruled;
  let bestPick = -1;
  const candidates = [];
  for (let pick = 0; pick < Math.min(top, own.containers); pick++) {
    const run = cleanedText(bytes, url, pick);
    const forced = counts(run.text, page);
    if (better(forced, best)) [best, bestPick] = [forced, pick];
    if (learn) candidates.push({ vector: candidateFeatures(own, run, pick), result: forced, same: run.text === own.text });
  }
  rules.push(ruled);
  oracle.push(best);
  if (bestPick >= 0) gains.push({ file, candidate: bestPick + 1, rules: +f1(ruled).toFixed(2), oracle: +f1(best).toFixed(2) });
  if (learn) learning.push({ set: 'trafilatura', name: file, half: halfOf(file), rules: ruled, candidates });
}
if (learn) {
  const pagesDir = join(root, '..', 'shared', 'corpus', 'pages');
  for (const name of readdirSync(pagesDir)
    .filter((each) => existsSync(join(pagesDir, each, 'expected.html')))
    .slice(0, limit)) {
    const bytes = readFileSync(join(pagesDir, name, 'source.html'));
    const want = normalized(domutils.textContent(parseDocument(readFileSync(join(pagesDir, name, 'expected.html'), 'utf8'))));
    const own = cleanedText(bytes, 'https://example.com/');
    const candidates = [];
    for (let pick = 0; pick < Math.min(top, own.containers); pick++) {
      const run = cleanedText(bytes, 'https://example.com/', pick);
      candidates.push({ vector: candidateFeatures(own, run, pick), result: wordF1(run.text, want), same: run.text === own.text });
    }
    learning.push({ set: 'readability', name, half: halfOf(name), rules: wordF1(own.text, want), candidates });
  }
}

const result = {
  date: new Date().toISOString().slice(0, 10),
  machine: `${cpus().length} cores, ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`,
  pages: rules.length,
  candidates: top,
  rules: figures(summed(rules)),
  oracle: figures(summed(oracle)),
  pagesAnotherCoreWins: gains.length,
  seconds: Math.round((Date.now() - started) / 1000),
  pagesWon: gains,
};
// --learn writes its own results (core-learn.json); the oracle's stay those of a run without it.
if (!learn) writeFileSync(join(root, 'bench/results/core-ceiling.json'), `${JSON.stringify(result, null, 2)}\n`);
if (learn) evaluateLearning();

console.log(
  `rules ${JSON.stringify(result.rules)}\noracle over the ${top} best containers ${JSON.stringify(result.oracle)}\npages another core wins: ${gains.length} of ${rules.length} (${result.seconds} s)`,
);

/**
 * The learned chooser, held out: trained on one half's candidates (1 when forcing it beats the
 * rules' own choice on that page, 0 when it does worse, ties left out), then used on the other
 * half: a page takes its likeliest candidate when that scores at least a threshold chosen on the
 * training half (the best trafilatura F1 that keeps Readability's 10th percentile), else the
 * rules' core. Then the halves swap.
 */
function evaluateLearning() {
  const labelOf = (page, candidate) => {
    if (candidate.same) return undefined;
    if (page.set === 'trafilatura') return better(candidate.result, page.rules) ? 1 : better(page.rules, candidate.result) ? 0 : undefined;
    return candidate.result > page.rules + 0.005 ? 1 : candidate.result < page.rules - 0.005 ? 0 : undefined;
  };
  const choose = (page, threshold) => {
    let best;
    for (const candidate of page.candidates) if (!candidate.same && candidate.p >= threshold && (!best || candidate.p > best.p)) best = candidate;
    return best ? best.result : page.rules;
  };
  const scoreOf = (pages, threshold) => {
    const trafilatura = pages.filter((page) => page.set === 'trafilatura').map((page) => choose(page, threshold));
    const readability = pages
      .filter((page) => page.set === 'readability')
      .map((page) => choose(page, threshold))
      .sort((a, b) => a - b);
    return {
      trafilatura: figures(summed(trafilatura)),
      readability: {
        median: +(readability[Math.floor(readability.length / 2)] ?? 0).toFixed(3),
        p10: +(readability[Math.floor(readability.length * 0.1)] ?? 0).toFixed(3),
      },
    };
  };
  const thresholds = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 2];
  const learner = arg('--learner', 'linear');
  const folds = [];
  for (const test of [0, 1]) {
    const training = learning.filter((page) => page.half !== test);
    const heldOut = learning.filter((page) => page.half === test);
    const examples = training.flatMap((page) =>
      page.candidates.flatMap((candidate) => {
        const label = labelOf(page, candidate);
        return label === undefined ? [] : [{ vector: candidate.vector, label }];
      }),
    );
    const model = learner === 'trees' ? trainTrees(examples, { minLeaf: 5 }) : trainLinear(examples);
    for (const page of learning) for (const candidate of page.candidates) candidate.p = model(candidate.vector);
    const floor = scoreOf(training, 2).readability.p10;
    const chosen = thresholds
      .map((threshold) => ({ threshold, ...scoreOf(training, threshold) }))
      .filter((choice) => choice.readability.p10 >= floor - 0.005)
      .sort((a, b) => b.trafilatura.f1 - a.trafilatura.f1)[0] ?? { threshold: 2 };
    folds.push({
      heldOutHalf: test,
      trainedOn: { candidates: examples.length, better: examples.filter((example) => example.label === 1).length },
      threshold: chosen.threshold,
      rules: scoreOf(heldOut, 2),
      withChooser: scoreOf(heldOut, chosen.threshold),
    });
  }
  const report = { date: new Date().toISOString().slice(0, 10), machine: result.machine, candidates: top, learner, folds };
  writeFileSync(join(root, `bench/results/core-learn${learner === 'linear' ? '' : `-${learner}`}.json`), `${JSON.stringify(report, null, 2)}\n`);
  for (const fold of folds) console.log(JSON.stringify(fold));
}
