#!/usr/bin/env node
// Main-content extraction on trafilatura's evaluation set (../shared/corpus/trafilatura-eval):
// each gzipped page is served raw from 127.0.0.1 (no charset in the header, so the scraper finds
// the encoding itself) and scraped through the engine's `scrape`, the scrape the CLI and serve
// run, with the defaults (onlyMainContent, markdown). The markdown is reduced to its text and
// scored as trafilatura's evaluation does: whitespace normalised, a `with` segment contained is
// a true positive (missing: false negative), a `without` segment contained a false positive
// (missing: true negative); precision, recall and F1 over the whole set. Also: the 20 worst
// pages with their misses, a rough classification of the boilerplate that stays in, and the
// mean time to convert a page's bytes to markdown (convertPage: decode, parse, clean, main
// content, metadata, markdown), measured once per page beside the scrape.
// Usage: npm run build && node bench/trafilatura-eval.mjs [--limit N] [--corpus DIR]
// Exit 2 when dist/ or the set is missing; exit 1 when a page cannot be served or scraped.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { arg, root } from './corpus-bench.mjs';

const built = 'dist/src/engine/scrape/scrape.js';
if (!existsSync(join(root, built))) {
  console.error('dist/ is missing: run npm run build first');
  process.exit(2);
}
const corpus = arg('--corpus', join(root, '..', 'shared', 'corpus', 'trafilatura-eval'));
const expectedFile = join(corpus, 'expected.json');
if (!existsSync(expectedFile) || !existsSync(join(corpus, 'pages'))) {
  console.error(`no trafilatura evaluation set at ${corpus} (expected.json and pages/; give --corpus DIR)`);
  process.exit(2);
}
const limitArg = arg('--limit', undefined);
const limit = limitArg === undefined ? Infinity : Number(limitArg);
if (!(limit > 0)) {
  console.error(`--limit must be a positive number, got ${limitArg}`);
  process.exit(2);
}

const { scrape } = await import(join(root, built));
const { convertPage } = await import(join(root, 'dist/src/engine/scrape/convert.js'));

const expected = JSON.parse(readFileSync(expectedFile, 'utf8'));
const files = Object.keys(expected).sort().slice(0, limit);
for (const file of files) {
  if (!existsSync(join(corpus, 'pages', file))) {
    console.error(`page ${file} of expected.json is missing from ${join(corpus, 'pages')}`);
    process.exit(1);
  }
}

/** A page's raw bytes, as saved (gunzipped when the file is). Read per request: nothing is held. */
const pageBytes = (file) => {
  const raw = readFileSync(join(corpus, 'pages', file));
  return file.endsWith('.gz') ? gunzipSync(raw) : raw;
};
const serveErrors = [];
const server = createServer((request, response) => {
  const file = decodeURIComponent(request.url.slice(1).split('?')[0]);
  if (!Object.hasOwn(expected, file)) return response.writeHead(404).end();
  let body;
  try {
    body = pageBytes(file);
  } catch (error) {
    serveErrors.push(`${file}: ${error.message}`);
    return response.writeHead(500).end();
  }
  response.writeHead(200, { 'content-type': 'text/html' }).end(body);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const context = { version: 'bench', now: () => new Date() };
const fail = (message) => {
  console.error(message);
  server.close();
  process.exit(1);
};

// --- scoring ------------------------------------------------------------------------------
const normalize = (text) => text.replace(/\s+/g, ' ').trim();
/**
 * Markdown reduced to its text: link and image targets, emphasis markers, heading marks, list
 * and quote markers, table pipes and backslash escapes removed; the text of links and the alt
 * text of images stay.
 */
export function markdownText(markdown) {
  return (
    markdown
      .replace(/```[^\n]*\n/g, '\n')
      .replace(/!?\[((?:[^\]\\]|\\.)*)\]\((?:[^()\s]|\([^)]*\))*(?:\s+"[^"]*")?\)/g, '$1')
      .replace(/^[ \t]*(?:>[ \t]?)+/gm, '')
      .replace(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+/gm, '') // list markers before heading marks: "## 1. Title" keeps its "1."
      .replace(/^[ \t]*#{1,6}[ \t]+/gm, '')
      .replace(/^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$/gm, '')
      .replace(/^[ \t]*(?:-{3,}|\*{3,}|_{3,})[ \t]*$/gm, '')
      .replace(/(^|\s)\|(?=\s|$)/g, '$1')
      // Emphasis markers, also where the converter left a space inside them ("word,** text.**").
      .replace(/(^|[^\\])(?:\*\*|__|~~)/g, '$1')
      .replace(/(^|[^\\])(?:\*\*|__|~~)/g, '$1')
      .replace(/(^|[^\\])\*/g, '$1')
      .replace(/(^|[^\p{L}\p{N}\\])_(?=\S)([^_\n]*?\S)_(?![\p{L}\p{N}])/gu, '$1$2')
      .replace(/`([^`\n]*)`/g, '$1')
      .replace(/\\([\\`*_{}[\]()#+\-.!|<>~"'&$])/g, '$1')
  );
}

/** A rough kind for a `without` segment that stayed in: informative, to guide the next step. */
const DATE =
  /\b\d{1,2}[./]\s?\d{1,2}[./]\s?\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\.?\s+(?:jan|feb|mär|mar|apr|mai|may|jun|jul|aug|sep|okt|oct|nov|dez|dec)[\p{L}.]*\s+\d{4}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z.]*\s+\d{1,2},?\s+\d{4}\b|\b\d{1,2}:\d{2}\b/iu;
const KINDS = [
  [
    'credit (©, photo, source)',
    /©|\(c\)|copyright|\b(?:foto|photo|bild|picture|image|quelle|source|credit)s?\s*:|getty|imago|dpa|reuters|afp\b|shutterstock|istock/i,
  ],
  ['share/social/print', /\b(?:teilen|share|tweet|facebook|twitter|whatsapp|linkedin|pinterest|e-?mail|drucken|print|xing|instagram|telegram)\b/i],
  [
    'related/read-more',
    /\b(?:lesen sie (?:auch|mehr)|mehr zum thema|mehr dazu|auch interessant|weitere artikel|read more|related|see also|you may also|recommended|lire aussi|à lire|lea (?:también|más)|weiterlesen|more from|das könnte sie auch|empfehlungen)\b/i,
  ],
  ['comments', /\b(?:comment|kommentar|antworten|reply|replies|leserbrief)\w*/i],
  [
    'newsletter/subscribe/ads/cookies',
    /\b(?:newsletter|abonn|subscribe|anzeige|advert|werbung|cookie|datenschutz|privacy|registrier|sign up|log ?in|anmelden)\w*/i,
  ],
  [
    'byline/author',
    /^(?:by|von|par|por|di|door|autor(?:in)?|author|written by|text)\s*:?\s+\p{Lu}|\b(?:redaktion|editor|korrespondent|reporter|journalist)\b/iu,
  ],
  ['tags/categories/breadcrumb', /^(?:tags?|schlagwörter|themen|kategorie|category|categories|rubrik|stichwörter)\b|\s(?:›|»|>|\/)\s.*\s(?:›|»|>|\/)\s/i],
  ['date/time', DATE],
];
function boilerplateKind(segment, { linkTexts, headings }) {
  for (const [kind, pattern] of KINDS) if (pattern.test(segment)) return kind;
  if (linkTexts.some((text) => text.includes(segment))) return 'link text (teaser, related or navigation link)';
  if (headings.some((text) => text.includes(segment))) return 'heading (teaser, box or section title)';
  const words = segment.split(' ').length;
  if (words <= 6) return 'other short text (6 words or fewer: label, list item, line of a box)';
  if (words <= 20) return 'short sentence (teaser, caption, heading)';
  return 'long text (teaser paragraph, comment, other article)';
}
const lostKind = (segment) => {
  const words = segment.split(' ').length;
  return words <= 6 ? 'short (heading, label, list item)' : words <= 20 ? 'medium (caption, lead, short paragraph)' : 'long (paragraph)';
};

// --- run ------------------------------------------------------------------------------------
const totals = { tp: 0, fn: 0, fp: 0, tn: 0 };
const pagesScored = [];
const kept = new Map();
const lost = new Map();
const examples = new Map(); // up to 10 segments per kind of boilerplate kept
const empty = []; // pages whose markdown came back empty
const count = (map, kind, segment) => {
  map.set(kind, (map.get(kind) ?? 0) + 1);
  const list = examples.get(kind) ?? [];
  if (map === kept && list.length < 10) examples.set(kind, [...list, segment]);
};
let conversionMs = 0;
let scrapeMs = 0;
let bytes = 0;
const startedAt = performance.now();
for (const [index, file] of files.entries()) {
  const url = `${origin}/${encodeURIComponent(file)}`;
  const scrapeStarted = performance.now();
  let document;
  try {
    document = await scrape({ url, options: {} }, context);
  } catch (error) {
    fail(`page ${file} could not be scraped: ${error.code ?? ''} ${error.message}`);
  }
  scrapeMs += performance.now() - scrapeStarted;
  if (serveErrors.length) fail(`page could not be served: ${serveErrors.join('; ')}`);
  const status = document.metadata?.statusCode;
  if (status !== 200) fail(`page ${file} was served with status ${status}`);

  // The conversion alone, on the same bytes as served: what the scrape spends on the page itself.
  const body = pageBytes(file);
  bytes += body.length;
  const convertStarted = performance.now();
  await convertPage({ body, contentType: 'text/html', finalUrl: url }, {}, ['markdown']);
  conversionMs += performance.now() - convertStarted;

  const text = normalize(markdownText(document.markdown ?? ''));
  // The texts of the markdown's links, to tell a kept teaser or navigation link from prose.
  const headings = (document.markdown ?? '')
    .split('\n')
    .filter((line) => /^\s*#{1,6}\s/.test(line))
    .map((line) => normalize(markdownText(line)));
  const linkTexts = [...(document.markdown ?? '').matchAll(/\[((?:[^[\]]|\[[^\]]*\])+)\]\(/g)].map((m) => normalize(markdownText(m[1])));
  const page = { file, url: expected[file].url, tp: 0, fn: 0, fp: 0, tn: 0, keptBoilerplate: [], lostContent: [] };
  for (const segment of expected[file].with ?? []) {
    const wanted = normalize(segment);
    if (text.includes(wanted)) page.tp++;
    else {
      page.fn++;
      page.lostContent.push(wanted);
      count(lost, lostKind(wanted), wanted);
    }
  }
  for (const segment of expected[file].without ?? []) {
    const unwanted = normalize(segment);
    if (text.includes(unwanted)) {
      page.fp++;
      const kind = boilerplateKind(unwanted, { linkTexts, headings });
      page.keptBoilerplate.push({ kind, segment: unwanted });
      count(kept, kind, unwanted);
    } else page.tn++;
  }
  for (const key of Object.keys(totals)) totals[key] += page[key];
  page.f1 = page.tp + page.fp + page.fn === 0 ? 1 : (2 * page.tp) / (2 * page.tp + page.fp + page.fn);
  page.markdownChars = (document.markdown ?? '').length;
  if (page.markdownChars === 0) {
    // Informative: which step leaves nothing, ad blocking or the main-content finder.
    const chars = async (options) => (await convertPage({ body, contentType: 'text/html', finalUrl: url }, options, ['markdown'])).markdown.length;
    empty.push({
      file,
      url: expected[file].url,
      markdownCharsWithoutBlockAds: await chars({ blockAds: false }),
      markdownCharsWholePage: await chars({ onlyMainContent: false }),
    });
  }
  // Only pages with a miss are kept, and only until the worst 20 are known: memory stays bounded.
  if (page.fp + page.fn > 0) {
    pagesScored.push(page);
    if (pagesScored.length > 200) {
      pagesScored.sort(worstFirst);
      pagesScored.length = 20;
    }
  }
  if ((index + 1) % 100 === 0) console.error(`${index + 1} of ${files.length} pages`);
}
server.close();
function worstFirst(a, b) {
  return a.f1 - b.f1 || b.fp + b.fn - (a.fp + a.fn) || a.file.localeCompare(b.file);
}

const { tp, fn, fp, tn } = totals;
const precision = tp + fp ? tp / (tp + fp) : 0;
const recall = tp + fn ? tp / (tp + fn) : 0;
const f1 = 2 * tp + fp + fn ? (2 * tp) / (2 * tp + fp + fn) : 0;
const byCount = (map) => [...map].sort((a, b) => b[1] - a[1]).map(([kind, count]) => ({ kind, count }));
const worst = pagesScored.sort(worstFirst).slice(0, 20);
const round = (x, digits = 3) => +x.toFixed(digits);
const result = {
  date: new Date().toISOString(),
  machine: {
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    loadAverage: loadavg().map((x) => round(x, 2)),
  },
  set: { corpus: 'trafilatura-eval', pages: files.length, limited: Number.isFinite(limit), withSegments: tp + fn, withoutSegments: fp + tn },
  scores: { f1: round(f1), precision: round(precision), recall: round(recall), ...totals },
  timing: {
    conversionMsPerPage: round(conversionMs / files.length, 2),
    conversion: 'convertPage on the served bytes (decode, parse, clean, main content, metadata, markdown), once per page, mean over pages',
    scrapeMsPerPage: round(scrapeMs / files.length, 2),
    scrape: 'the whole scrape through the local server, one page at a time, mean over pages',
    meanPageKiB: round(bytes / files.length / 1024, 1),
    totalSeconds: round((performance.now() - startedAt) / 1000, 1),
  },
  emptyMarkdown: { pages: empty.length, list: empty },
  boilerplateKept: byCount(kept).map((entry) => ({ ...entry, examples: examples.get(entry.kind) })),
  contentLost: byCount(lost),
  kindsNote: 'boilerplateKept and contentLost are rough classifications by pattern and length, informative only',
  worstPages: worst.map(({ file, url, f1: pageF1, tp: t, fn: n, fp: p, tn: q, markdownChars, keptBoilerplate, lostContent }) => ({
    file,
    url,
    f1: round(pageF1),
    tp: t,
    fn: n,
    fp: p,
    tn: q,
    markdownChars,
    keptBoilerplate,
    lostContent,
  })),
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
const out = join(root, 'bench/results', Number.isFinite(limit) ? 'trafilatura-eval-limited.json' : 'trafilatura-eval.json');
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`trafilatura-eval: ${files.length} pages, ${tp + fn} with / ${fp + tn} without segments`);
console.log(`F1 ${f1.toFixed(3)}   precision ${precision.toFixed(3)}   recall ${recall.toFixed(3)}   (TP ${tp}, FN ${fn}, FP ${fp}, TN ${tn})`);
console.log(`conversion ${result.timing.conversionMsPerPage} ms/page (convertPage), scrape ${result.timing.scrapeMsPerPage} ms/page`);
console.log(
  `empty markdown: ${empty.length} pages (${empty.filter((p) => p.markdownCharsWithoutBlockAds > 0).length} have markdown with blockAds off, ${empty.filter((p) => p.markdownCharsWholePage > 0).length} with onlyMainContent off)`,
);
console.log(`boilerplate kept: ${result.boilerplateKept.map((k) => `${k.kind} ${k.count}`).join(', ')}`);
console.log(`content lost: ${result.contentLost.map((k) => `${k.kind} ${k.count}`).join(', ')}`);
console.log(
  `worst: ${worst
    .slice(0, 10)
    .map((p) => `${p.file} ${p.f1.toFixed(2)}`)
    .join(', ')}`,
);
console.log(`written to ${out.slice(root.length + 1)}`);
