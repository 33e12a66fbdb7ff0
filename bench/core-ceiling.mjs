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
// shipped code is what runs, with one line added.
// Usage: npm run build && node bench/core-ceiling.mjs [--top N] [--limit N]
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { arg, root } from './corpus-bench.mjs';

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

// The patched copy: the containers' scores pass through a hook that may name another best.
const copy = mkdtempSync(join(tmpdir(), 'webwatch-core-ceiling-'));
process.on('exit', () => rmSync(copy, { recursive: true, force: true }));
cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true });
symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
const finder = join(copy, 'dist/src/engine/content/main-content.js');
const anchor = 'const scores = scoreContainers(root, measures);';
const source = readFileSync(finder, 'utf8');
if (!source.includes(anchor)) {
  console.error(`main-content.js no longer has "${anchor}": the bench's seam needs updating`);
  process.exit(2);
}
writeFileSync(finder, source.replace(anchor, 'let scores = scoreContainers(root, measures);\n    scores = globalThis.__webwatchCoreHook?.(scores) ?? scores;'));

const dist = (path) => join(copy, 'dist/src', path);
const { parseHtml } = await import(dist('engine/content/parse-html.js'));
const { cleanHtml } = await import(dist('engine/content/clean.js'));
const { decodeBody } = await import(dist('engine/fetch/decode.js'));
const domutils = await import('domutils');

const expected = JSON.parse(readFileSync(join(corpus, 'expected.json'), 'utf8'));
const normalized = (text) => text.replace(/\s+/g, ' ').trim();

/** The cleaned text of a page with the `pick`-th best container forced as the best (none: the rules' own), and how many containers scored. */
function cleanedText(bytes, url, pick) {
  const { text } = decodeBody(bytes, 'text/html', true);
  const { document } = parseHtml(text);
  let containers = 0;
  globalThis.__webwatchCoreHook = (scores) => {
    const ranked = [...scores.scores].sort((a, b) => b[1] - a[1]);
    containers = ranked.length;
    if (pick === undefined || pick >= ranked.length) return undefined;
    return { ...scores, best: ranked[pick][0], bestScore: ranked[pick][1] };
  };
  cleanHtml(document, url, { onlyMainContent: true, blockAds: true });
  return { text: normalized(domutils.textContent(document)), containers };
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
for (const file of Object.keys(expected).sort().slice(0, limit)) {
  const page = expected[file];
  const raw = readFileSync(join(corpus, 'pages', file));
  const bytes = file.endsWith('.gz') ? gunzipSync(raw) : raw;
  const url = /^https?:/.test(page.url) ? page.url : 'https://example.com/';
  const own = cleanedText(bytes, url);
  const ruled = counts(own.text, page);
  let best = ruled;
  let bestPick = -1;
  for (let pick = 0; pick < Math.min(top, own.containers); pick++) {
    const forced = counts(cleanedText(bytes, url, pick).text, page);
    if (better(forced, best)) [best, bestPick] = [forced, pick];
  }
  rules.push(ruled);
  oracle.push(best);
  if (bestPick >= 0) gains.push({ file, candidate: bestPick + 1, rules: +f1(ruled).toFixed(2), oracle: +f1(best).toFixed(2) });
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
writeFileSync(join(root, 'bench/results/core-ceiling.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(
  `rules ${JSON.stringify(result.rules)}\noracle over the ${top} best containers ${JSON.stringify(result.oracle)}\npages another core wins: ${gains.length} of ${rules.length} (${result.seconds} s)`,
);
