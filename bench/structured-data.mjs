#!/usr/bin/env node
// What the product and menu formats add to a scrape before any model is asked: reading the
// page's schema.org data (JSON-LD, microdata, RDFa) with htmlmetaparser, against converting the
// same page to markdown, on the saved real pages of ../shared/corpus/pages. Rounds interleave
// the two measurements (the CPU is shared), and medians are reported. Also counts the pages
// that state a Product, a Menu or any schema.org node: how often no model is needed at all.
// Usage: npm run build && node bench/structured-data.mjs [--corpus DIR] [--rounds N]
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { arg, corpusDir, root } from './corpus-bench.mjs';

const corpus = corpusDir('dist/src/engine/extract/structured-data.js');
const rounds = Number(arg('--rounds', 7));

const { schemaOrgNodes, ofType } = await import(join(root, 'dist/src/engine/extract/structured-data.js'));
const { convertPage } = await import(join(root, 'dist/src/engine/scrape/convert.js'));

const pages = readdirSync(corpus)
  .filter((name) => existsSync(join(corpus, name, 'source.html')))
  .sort()
  .map((name) => ({ name, body: readFileSync(join(corpus, name, 'source.html')), finalUrl: `https://corpus.example/${name}/` }));
const totalBytes = pages.reduce((sum, page) => sum + page.body.length, 0);

const convertAll = async () => {
  for (const page of pages) await convertPage({ body: page.body, contentType: 'text/html; charset=utf-8', finalUrl: page.finalUrl }, {}, ['markdown']);
};
const readAll = () => {
  for (const page of pages) schemaOrgNodes(page.body.toString('utf8'), page.finalUrl);
};
const timed = async (work) => {
  const start = performance.now();
  await work();
  return performance.now() - start;
};
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

// Warm-up: module loading and JIT out of the timed rounds.
await convertAll();
readAll();
const convertMs = [];
const readMs = [];
for (let round = 0; round < rounds; round++) {
  // A then B, then B then A: neither always runs on a warmer or busier CPU.
  if (round % 2 === 0) {
    convertMs.push(await timed(convertAll));
    readMs.push(await timed(readAll));
  } else {
    readMs.push(await timed(readAll));
    convertMs.push(await timed(convertAll));
  }
}

const found = pages.map((page) => schemaOrgNodes(page.body.toString('utf8'), page.finalUrl));
const counts = {
  pages: pages.length,
  // Pages with a JSON-LD script, an itemscope or a typeof: the others skip the parse.
  withMarkers: pages.filter((page) => /application\/ld\+json|\bitemscope\b|\btypeof\s*=/i.test(page.body.toString('utf8'))).length,
  withAnySchemaOrgNode: found.filter((nodes) => nodes.length > 0).length,
  withProduct: found.filter((nodes) => ofType(nodes, 'Product', 'ProductGroup').length > 0).length,
  withMenu: found.filter((nodes) => ofType(nodes, 'Menu', 'FoodEstablishment', 'Restaurant').length > 0).length,
  bySource: Object.fromEntries(
    ['JSON-LD', 'microdata', 'RDFa'].map((source) => [source, found.filter((nodes) => nodes.some((node) => node.source === source)).length]),
  ),
};
const result = {
  what: 'schema.org reading (product/menu formats, no model) against markdown conversion, whole corpus per round',
  rounds,
  corpusBytes: totalBytes,
  medianMs: { convertToMarkdown: +median(convertMs).toFixed(1), readSchemaOrg: +median(readMs).toFixed(1) },
  perPageMedianMs: { convertToMarkdown: +(median(convertMs) / pages.length).toFixed(2), readSchemaOrg: +(median(readMs) / pages.length).toFixed(2) },
  ratio: +(median(readMs) / median(convertMs)).toFixed(2),
  roundsMs: { convertToMarkdown: convertMs.map((ms) => +ms.toFixed(1)), readSchemaOrg: readMs.map((ms) => +ms.toFixed(1)) },
  counts,
  commit: (() => {
    try {
      return execSync('git rev-parse --short HEAD', { cwd: root, encoding: 'utf8' }).trim();
    } catch {
      return undefined;
    }
  })(),
  machine: {
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    loadAverageAtStart: loadavg().map((n) => +n.toFixed(2)),
  },
  date: new Date().toISOString(),
};
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/structured-data.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(`${pages.length} pages, ${(totalBytes / 2 ** 20).toFixed(1)} MiB, ${rounds} rounds (medians)`);
console.log(`markdown conversion ${result.medianMs.convertToMarkdown} ms (${result.perPageMedianMs.convertToMarkdown} ms a page)`);
console.log(`schema.org reading  ${result.medianMs.readSchemaOrg} ms (${result.perPageMedianMs.readSchemaOrg} ms a page), ${result.ratio}x the conversion`);
console.log(
  `pages with markers (parsed): ${counts.withMarkers}; stating schema.org data: ${counts.withAnySchemaOrgNode} (${JSON.stringify(counts.bySource)}); a Product: ${counts.withProduct}; a menu or restaurant: ${counts.withMenu}`,
);
