#!/usr/bin/env node
// Scraper quality and speed on the saved real pages of ../shared/corpus/pages, served from
// 127.0.0.1. Measures: title agreement with expected-metadata.json, word-level recall,
// precision and F1 of the markdown against expected.html per page (link targets and URLs left
// out) with their medians and 10th percentiles, the time to convert a fetched page (parse,
// clean, metadata, markdown), HTML -> markdown time against turndown + GFM on the same cleaned
// HTML, and scrape throughput.
// Usage: npm run build && node bench/scrape-corpus.mjs [--corpus DIR] [--rounds N]
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { arg, corpusDir, root } from './corpus-bench.mjs';

const corpus = corpusDir('dist/src/engine/scrape/scrape.js');
const rounds = Number(arg('--rounds', 5));

const { scrape } = await import(join(root, 'dist/src/engine/scrape/scrape.js'));
const { htmlToMarkdown } = await import(join(root, 'dist/src/engine/content/markdown.js'));
const { cleanHtml } = await import(join(root, 'dist/src/engine/content/clean.js'));
const { convertPage } = await import(join(root, 'dist/src/engine/scrape/convert.js'));
const { load } = await import('cheerio/slim');
const { default: TurndownService } = await import('turndown');
const { gfm } = await import('turndown-plugin-gfm');

const pages = readdirSync(corpus)
  .filter((name) => existsSync(join(corpus, name, 'source.html')))
  .sort();
const server = createServer((request, response) => {
  const name = decodeURIComponent(request.url.slice(1).split('/')[0]);
  const file = join(corpus, name, 'source.html');
  if (!pages.includes(name)) return response.writeHead(404).end();
  // The saved files are UTF-8 whatever their <meta charset> said when they were live.
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(readFileSync(file));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const context = { version: 'bench', now: () => new Date() };

// --- text helpers -------------------------------------------------------------------------
const normalizeTitle = (text) => (text ?? '').normalize('NFKC').replace(/[’‘]/g, "'").replace(/\s+/g, '').toLowerCase();
const SEPARATOR = /\s+[|\-–—·»]\s+|:\s+/;
/**
 * Agreement: the same title (Unicode-normalised, spacing ignored), or the same once site-name
 * segments after or before a separator (| - – — : · ») are dropped from the page's title.
 */
const canonical = (text) => normalizeTitle(text).replace(/[|\-–—:·»]/g, '-');
function titlesAgree(ours, expected) {
  const want = canonical(expected);
  const parts = (ours ?? '').split(SEPARATOR);
  for (let start = 0; start < parts.length; start++) {
    for (let end = parts.length; end > start; end--) {
      if (canonical(parts.slice(start, end).join(' - ')) === want) return true;
    }
  }
  return false;
}
const words = (text) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];
function markdownText(markdown) {
  return markdown
    .replace(/!?\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, '$1') // links and images: keep the text
    .replace(/<?https?:\/\/\S+/g, ' ')
    .replace(/[#*_`>|~-]/g, ' ');
}
function htmlText(html) {
  const $ = load(html);
  $('script, style, noscript').remove();
  return $.root().text();
}
function overlap(ourWords, expectedWords) {
  const counts = new Map();
  for (const w of expectedWords) counts.set(w, (counts.get(w) ?? 0) + 1);
  let shared = 0;
  for (const w of ourWords) {
    const n = counts.get(w) ?? 0;
    if (n > 0) {
      shared++;
      counts.set(w, n - 1);
    }
  }
  return {
    recall: expectedWords.length ? shared / expectedWords.length : 1,
    precision: ourWords.length ? shared / ourWords.length : expectedWords.length ? 0 : 1,
  };
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
/** The q-th quantile, linear between closest ranks (q = 0.1: the 10th percentile). */
const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  return sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (position - low);
};
const f1 = ({ recall, precision }) => (recall + precision === 0 ? 0 : (2 * recall * precision) / (recall + precision));

// --- quality ------------------------------------------------------------------------------
const perPage = [];
for (const name of pages) {
  const expectedMeta = JSON.parse(readFileSync(join(corpus, name, 'expected-metadata.json'), 'utf8'));
  const document = await scrape({ url: `${origin}/${encodeURIComponent(name)}/`, options: {} }, context);
  const row = { name, title: document.metadata.title ?? null, expectedTitle: expectedMeta.title ?? null };
  row.titleAgrees = expectedMeta.title ? titlesAgree(row.title, expectedMeta.title) : null;
  const expectedFile = join(corpus, name, 'expected.html');
  if (existsSync(expectedFile)) {
    Object.assign(row, overlap(words(markdownText(document.markdown)), words(htmlText(readFileSync(expectedFile, 'utf8')))));
    row.f1 = f1(row);
  }
  perPage.push(row);
}
const titled = perPage.filter((p) => p.titleAgrees !== null);
const withContent = perPage.filter((p) => p.recall !== undefined);
const quality = {
  pages: pages.length,
  titleAgreement: titled.filter((p) => p.titleAgrees).length / titled.length,
  titlesCompared: titled.length,
  recallMedian: median(withContent.map((p) => p.recall)),
  precisionMedian: median(withContent.map((p) => p.precision)),
  precisionP10: quantile(
    withContent.map((p) => p.precision),
    0.1,
  ),
  f1Median: median(withContent.map((p) => p.f1)),
  f1P10: quantile(
    withContent.map((p) => p.f1),
    0.1,
  ),
  below90: withContent
    .filter((p) => p.f1 < 0.9)
    .sort((a, b) => a.f1 - b.f1)
    .map((p) => ({ name: p.name, f1: p.f1, recall: p.recall, precision: p.precision })),
  titlesMissed: titled.filter((p) => !p.titleAgrees).map((p) => ({ name: p.name, title: p.title, expected: p.expectedTitle })),
  contentCompared: withContent.length,
};

// --- conversion of a fetched page: parse, clean, metadata, markdown -------------------------
const bodies = pages.map((name) => ({ name, body: readFileSync(join(corpus, name, 'source.html')), finalUrl: `${origin}/${name}/` }));
const convertAll = async () => {
  for (const page of bodies) await convertPage({ body: page.body, contentType: 'text/html; charset=utf-8', finalUrl: page.finalUrl }, {}, ['markdown']);
};
await convertAll(); // warm-up
const conversionTimes = [];
// CPU time (user + system, the whole process) beside wall time: on a machine shared with other
// work, wall time also counts the moments another process held the core.
const conversionCpu = [];
const pageTimes = new Map(bodies.map((page) => [page.name, []]));
for (let round = 0; round < rounds; round++) {
  const started = process.hrtime.bigint();
  const cpuStarted = process.cpuUsage();
  for (const page of bodies) {
    const pageStarted = process.hrtime.bigint();
    await convertPage({ body: page.body, contentType: 'text/html; charset=utf-8', finalUrl: page.finalUrl }, {}, ['markdown']);
    pageTimes.get(page.name).push(Number(process.hrtime.bigint() - pageStarted) / 1e6);
  }
  conversionTimes.push(Number(process.hrtime.bigint() - started) / 1e6 / bodies.length);
  const cpu = process.cpuUsage(cpuStarted);
  conversionCpu.push((cpu.user + cpu.system) / 1e3 / bodies.length);
}
// Per page, the median of its rounds; the mean over pages is what a crawl of these pages costs, the median page what a typical one does.
const pageConversions = bodies.map((page) => ({ name: page.name, ms: median(pageTimes.get(page.name)), kB: Math.round(page.body.length / 1024) }));
const slowest = [...pageConversions].sort((a, b) => b.ms - a.ms);
const conversion = {
  perPageMs: median(conversionTimes),
  cpuPerPageMs: median(conversionCpu),
  medianPageMs: median(pageConversions.map((p) => p.ms)),
  rounds: conversionTimes,
  slowest: slowest.slice(0, 5),
};

// --- converter speed and quality on the same cleaned HTML ----------------------------------
const cleaned = pages.map((name) => {
  const $ = load(readFileSync(join(corpus, name, 'source.html'), 'utf8'));
  cleanHtml($.root()[0], `${origin}/${name}/`, { onlyMainContent: true, blockAds: true });
  return { name, url: `${origin}/${name}/`, html: $('body').html() ?? $.root().html() ?? '' };
});
const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
turndown.use(gfm);
const converters = {
  webwatch: (page) => htmlToMarkdown(page.html, page.url),
  'turndown+gfm': (page) => turndown.turndown(page.html),
};
const speed = {};
for (const [label, convert] of Object.entries(converters)) {
  for (const page of cleaned) convert(page); // warm-up
  const times = [];
  for (let round = 0; round < rounds; round++) {
    const started = process.hrtime.bigint();
    for (const page of cleaned) convert(page);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  const recall = [];
  const precision = [];
  for (const page of cleaned) {
    const expectedFile = join(corpus, page.name, 'expected.html');
    if (!existsSync(expectedFile)) continue;
    const scores = overlap(words(markdownText(convert(page))), words(htmlText(readFileSync(expectedFile, 'utf8'))));
    recall.push(scores.recall);
    precision.push(scores.precision);
  }
  speed[label] = {
    corpusPassMs: median(times),
    perPageMs: median(times) / cleaned.length,
    recallMedian: median(recall),
    precisionMedian: median(precision),
  };
}
speed.ratio = speed['turndown+gfm'].corpusPassMs / speed.webwatch.corpusPassMs;

// --- throughput -----------------------------------------------------------------------------
const throughputRuns = [];
for (let round = 0; round < rounds; round++) {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < pages.length) {
        const name = pages[next++];
        await scrape({ url: `${origin}/${encodeURIComponent(name)}/`, options: {} }, context);
      }
    }),
  );
  throughputRuns.push(pages.length / ((performance.now() - started) / 1000));
}
server.close();

const result = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, memoryGiB: +(totalmem() / 2 ** 30).toFixed(1), node: process.version },
  quality,
  conversion,
  converters: speed,
  throughputPagesPerSecond: median(throughputRuns),
  perPage,
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/scrape-corpus.json'), `${JSON.stringify(result, null, 2)}\n`);
const pct = (x) => `${(x * 100).toFixed(1)} %`;
console.log(`corpus: ${pages.length} pages (${titled.length} with a title, ${withContent.length} with expected content)`);
console.log(`title agreement        ${pct(quality.titleAgreement)}   (goal >= 97 %)`);
console.log(`content recall median  ${quality.recallMedian.toFixed(3)}    (goal >= 0.95)`);
console.log(`precision median       ${quality.precisionMedian.toFixed(3)}    (goal >= 0.90)`);
console.log(`precision p10          ${quality.precisionP10.toFixed(3)}`);
console.log(`F1 median              ${quality.f1Median.toFixed(3)}    (goal >= 0.98)`);
console.log(`F1 p10                 ${quality.f1P10.toFixed(3)}    (goal >= 0.90)`);
console.log(
  `pages below F1 0.9     ${quality.below90.length}${quality.below90.length ? `: ${quality.below90.map((p) => `${p.name} ${p.f1.toFixed(2)}`).join(', ')}` : ''}`,
);
if (quality.titlesMissed.length)
  console.log(
    `titles missed          ${quality.titlesMissed.map((p) => `${p.name} (${JSON.stringify(p.title)}, expected ${JSON.stringify(p.expected)})`).join('; ')}`,
  );
console.log(
  `conversion             ${conversion.perPageMs.toFixed(2)} ms/page mean, ${conversion.medianPageMs.toFixed(2)} ms the median page (decode, parse, clean, metadata, markdown; goal < 6 ms); CPU ${conversion.cpuPerPageMs.toFixed(2)} ms/page`,
);
console.log(
  `html->markdown: webwatch ${speed.webwatch.perPageMs.toFixed(2)} ms/page, turndown+gfm ${speed['turndown+gfm'].perPageMs.toFixed(2)} ms/page: ${speed.ratio.toFixed(2)}x (goal >= 3x)`,
);
console.log(
  `  same cleaned HTML, recall/precision medians: webwatch ${speed.webwatch.recallMedian.toFixed(3)}/${speed.webwatch.precisionMedian.toFixed(3)}, turndown ${speed['turndown+gfm'].recallMedian.toFixed(3)}/${speed['turndown+gfm'].precisionMedian.toFixed(3)}`,
);
console.log(`scrape throughput      ${result.throughputPagesPerSecond.toFixed(1)} pages/s (4 at a time, local server)`);
console.log('written to bench/results/scrape-corpus.json');
