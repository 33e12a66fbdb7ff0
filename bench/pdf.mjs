#!/usr/bin/env node
// PDF parsing on the saved real pages of ../shared/corpus/pages printed to PDF by the system's
// Chromium (their innerText in print media is the known text). Measures, per file and overall:
// webwatch's `fast` mode against poppler's `pdftotext` on the same files (pages per second,
// with the two run in alternation over several rounds and the median kept, since the machine is
// shared; word recall and precision against the known text), and OCR (`ocr` mode) on the first
// English pages rasterized to image-only PDFs at 150 dpi, like a scan: seconds per page, recall
// and precision.
// With --candidates DIR it also measures the PDF libraries that were weighed, installed in DIR
// (cd DIR && npm init -y && npm install pdfjs-dist unpdf mupdf): pdf.js, unpdf and mupdf.
// Usage: npm run build && node bench/pdf.mjs [--corpus DIR] [--files N] [--ocr-files N] [--rounds N] [--candidates DIR]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { arg, corpusDir, root } from './corpus-bench.mjs';
import { pathToFileURL } from 'node:url';

const corpus = corpusDir('dist/src/engine/pdf/parse-pdf.js');
const fileCount = Number(arg('--files', 40));
const ocrFiles = Number(arg('--ocr-files', 4));
const rounds = Number(arg('--rounds', 5));
const { parsePdf } = await import(join(root, 'dist/src/engine/pdf/parse-pdf.js'));
const { PdfPrinter, wordScores } = await import(join(root, 'dist/test/helpers/pdf-corpus.js'));

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const round = (value, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;
const limits = () => ({ deadline: Date.now() + 300_000, timeoutMs: 300_000 });

// The corpus: the first pages by name (numbered test cases left out), printed to A4.
const names = readdirSync(corpus)
  .filter((name) => !/^\d/.test(name) && existsSync(join(corpus, name, 'source.html')))
  .sort()
  .slice(0, fileCount);
const dir = mkdtempSync(join(tmpdir(), 'webwatch-pdf-bench-'));
const printer = await PdfPrinter.open();
const files = [];
for (const name of names) {
  const printed = await printer.print(readFileSync(join(corpus, name, 'source.html'), 'utf8'));
  const path = join(dir, `${name}.pdf`);
  writeFileSync(path, printed.pdf);
  const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [path], { encoding: 'utf8' }))[1]);
  files.push({ name, path, bytes: printed.pdf, text: printed.text, pages });
}
const scans = [];
// OCR reads English (the language data installed with tesseract-ocr-eng): English pages only.
const english = (name) => {
  try {
    return /^en/i.test(JSON.parse(readFileSync(join(corpus, name, 'expected-metadata.json'), 'utf8')).lang ?? '');
  } catch {
    return false;
  }
};
for (const file of files.filter((f) => english(f.name)).slice(0, ocrFiles)) scans.push({ ...file, bytes: await printer.imageOnly(file.bytes) });
await printer.close();
const totalPages = files.reduce((sum, file) => sum + file.pages, 0);

const readers = {
  pdftotext: async (file) => spawnSync('pdftotext', ['-enc', 'UTF-8', file.path, '-'], { maxBuffer: 1 << 28 }).stdout.toString('utf8'),
  'webwatch fast': async (file) => (await parsePdf(file.bytes, { mode: 'fast', pageMarkers: false }, limits())).markdown,
};
const candidates = arg('--candidates', undefined);
if (candidates) {
  const require = createRequire(join(candidates, 'package.json'));
  const tryImport = async (name) => import(pathToFileURL(require.resolve(name)).href).catch(() => undefined);
  const pdfjs = await tryImport('pdfjs-dist/legacy/build/pdf.mjs');
  const unpdf = await tryImport('unpdf');
  const mupdf = await tryImport('mupdf');
  if (pdfjs)
    readers['pdfjs-dist'] = async (file) => {
      const doc = await pdfjs.getDocument({ data: new Uint8Array(file.bytes), isEvalSupported: false, verbosity: 0 }).promise;
      let text = '';
      for (let i = 1; i <= doc.numPages; i++) {
        const page = await doc.getPage(i);
        text += `${(await page.getTextContent()).items.map((item) => item.str + (item.hasEOL ? '\n' : '')).join(' ')}\n`;
        page.cleanup();
      }
      await doc.destroy();
      return text;
    };
  if (unpdf) readers.unpdf = async (file) => (await unpdf.extractText(new Uint8Array(file.bytes), { mergePages: true })).text;
  if (mupdf)
    readers.mupdf = async (file) => {
      const doc = mupdf.Document.openDocument(file.bytes, 'application/pdf');
      let text = '';
      for (let i = 0; i < doc.countPages(); i++) text += `${doc.loadPage(i).toStructuredText('preserve-whitespace').asText()}\n`;
      return text;
    };
}

// Quality once; time over rounds, the readers' order alternating from round to round.
const quality = {};
for (const [name, read] of Object.entries(readers)) {
  const scores = [];
  for (const file of files) scores.push({ file: file.name, ...wordScores(file.text, await read(file)) });
  quality[name] = scores;
}
const times = Object.fromEntries(Object.keys(readers).map((name) => [name, []]));
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? Object.keys(readers) : Object.keys(readers).reverse();
  for (const name of order) {
    const start = performance.now();
    for (const file of files) await readers[name](file);
    times[name].push(performance.now() - start);
  }
}
const text = Object.fromEntries(
  Object.keys(readers).map((name) => {
    const ms = median(times[name]);
    return [
      name,
      {
        medianMs: round(ms, 1),
        pagesPerSecond: round((totalPages / ms) * 1000, 1),
        recall: { mean: round(mean(quality[name].map((s) => s.recall))), median: round(median(quality[name].map((s) => s.recall))) },
        precision: { mean: round(mean(quality[name].map((s) => s.precision))), median: round(median(quality[name].map((s) => s.precision))) },
      },
    ];
  }),
);

const ocr = [];
for (const scan of scans) {
  const start = performance.now();
  const parsed = await parsePdf(scan.bytes, { mode: 'ocr', pageMarkers: false }, limits());
  const seconds = (performance.now() - start) / 1000;
  ocr.push({ file: scan.name, pages: scan.pages, secondsPerPage: round(seconds / scan.pages, 2), ...wordScores(scan.text, parsed.markdown) });
}

const result = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGiB: round(totalmem() / 1024 ** 3, 1), node: process.version, os: 'Debian 12' },
  tools: {
    pdftotext: spawnSync('pdftotext', ['-v']).stderr.toString().split('\n')[0],
    tesseract: spawnSync('tesseract', ['--version']).stdout.toString().split('\n')[0],
  },
  corpus: { files: files.length, pages: totalPages, rounds },
  text,
  fastVsPdftotext: {
    timeRatio: round(text['webwatch fast'].medianMs / text.pdftotext.medianMs, 2),
    recallDifference: round(text['webwatch fast'].recall.mean - text.pdftotext.recall.mean),
  },
  ocr: {
    files: ocr,
    secondsPerPage: round(median(ocr.map((o) => o.secondsPerPage)), 2),
    recall: round(mean(ocr.map((o) => o.recall))),
    precision: round(mean(ocr.map((o) => o.precision))),
  },
  perFile: files.map((file) => ({
    file: file.name,
    pages: file.pages,
    ...Object.fromEntries(Object.keys(readers).map((name) => [name, round(quality[name].find((s) => s.file === file.name).recall)])),
  })),
};
rmSync(dir, { recursive: true, force: true });
mkdirSync(join(root, 'bench', 'results'), { recursive: true });
writeFileSync(join(root, 'bench', 'results', 'pdf.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(
  JSON.stringify(
    {
      corpus: result.corpus,
      text,
      fastVsPdftotext: result.fastVsPdftotext,
      ocr: { secondsPerPage: result.ocr.secondsPerPage, recall: result.ocr.recall, precision: result.ocr.precision },
    },
    null,
    2,
  ),
);
