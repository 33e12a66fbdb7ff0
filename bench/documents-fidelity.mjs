#!/usr/bin/env node
// Office documents to markdown: the converters weighed for reading DOCX, DOC, ODT, RTF, XLSX, XLS,
// ODS and CSV, each turning a document into HTML that webwatch's own pipeline (convertPage of
// dist/, onlyMainContent false) turns into markdown. Candidates: pandoc (`-t html`), LibreOffice
// headless (`--convert-to html`, a fresh profile per document) and mammoth (DOCX only, in a
// child Node process, when it can be imported: npm i --no-save mammoth). A missing candidate is
// skipped with a note.
//
// Corpus: ../shared/corpus/documents (--corpus DIR): pandoc's test documents beside the pandoc
// AST they should read as (.native, or .md for some ODT files), and mammoth's test documents
// (no expected reading). The .native files are pandoc's own expected output, so they favour
// pandoc; for DOCX and ODT the text of the document's own XML (w:t of word/document.xml, the
// text nodes of content.xml's body) is also scored, as recall, whichever converter read it.
// DOC, XLS, XLSX, ODS and CSV files are derived into bench/.work/documents-derived: DOC by
// LibreOffice from the DOCX files that have a .native (expected: that .native), spreadsheets
// from the sheets written below (expected: their cells) and from the corpus workbook.
//
// Scores per format and candidate: word recall and precision (token multisets of the plain
// text) against the expected text, table cells kept (expected non-empty cells found as a cell of
// the markdown's tables), headings, list items and external link targets kept, wall time per
// document, peak RSS of the converter process (/usr/bin/time), failures (exit, timeout, empty).
// With --hostile it also runs three hostile DOCX files (an XXE entity, an external image, a zip
// bomb of 1 GB of text) through each candidate, without network (unshare -n when available).
//
// Usage: npm run build && node bench/documents-fidelity.mjs [--corpus DIR] [--formats docx,odt,...]
//        [--files N] [--timeout S] [--memory-cap-mb MB] [--hostile] [--dump DIR] [--out bench/results/documents-fidelity.json]
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { basename, extname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';
import { textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { arg, root } from './corpus-bench.mjs';

const FORMATS = ['docx', 'doc', 'odt', 'rtf', 'xlsx', 'xls', 'ods', 'csv'];
const formats = arg('--formats', FORMATS.join(',')).split(',');
const fileLimit = Number(arg('--files', Number.POSITIVE_INFINITY));
const timeoutMs = Number(arg('--timeout', 60)) * 1000;
const memoryCapKb = Number(arg('--memory-cap-mb', 3072)) * 1024;
const outPath = arg('--out', join(root, 'bench', 'results', 'documents-fidelity.json'));
const hostile = process.argv.includes('--hostile');
const dump = arg('--dump', null);
const corpus = arg(
  '--corpus',
  [join(root, '..', 'shared', 'corpus', 'documents'), '/work/shared/corpus/documents'].find((dir) => existsSync(dir)),
);
const derived = join(root, 'bench', '.work', 'documents-derived');
const work = mkdtempSync(join(tmpdir(), 'webwatch-docbench-'));

if (!existsSync(join(root, 'dist/src/engine/scrape/convert.js'))) {
  console.error('dist/ is missing: run npm run build first');
  process.exit(2);
}
if (!corpus || !existsSync(corpus)) {
  console.error('no document corpus (give --corpus DIR)');
  process.exit(2);
}
const { convertPage } = await import(join(root, 'dist/src/engine/scrape/convert.js'));

// ---------------------------------------------------------------------------------------------
// Running a converter: wall time, peak RSS of the process tree's largest process, a timeout that
// kills the whole process group.

const hasTime = existsSync('/usr/bin/time');
const hasUnshare = spawnSync('unshare', ['-rn', 'true']).status === 0;

/** The resident memory of a process group's largest process, and of all of them, from /proc (Linux). */
function groupRssKb(group) {
  let largest = 0;
  let total = 0;
  let pids = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return { largest, total };
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== group) continue;
      const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (rss) {
        largest = Math.max(largest, Number(rss[1]));
        total += Number(rss[1]);
      }
    } catch {}
  }
  return { largest, total };
}

function run(command, args, { timeout = timeoutMs, offline = false, cwd = work } = {}) {
  const rssFile = join(work, `rss-${process.hrtime.bigint()}`);
  let argv = [command, ...args];
  if (offline && hasUnshare) argv = ['unshare', '-rn', ...argv];
  if (hasTime) argv = ['/usr/bin/time', '-f', '%M', '-o', rssFile, ...argv];
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(argv[0], argv.slice(1), { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    let timedOut = false;
    // /usr/bin/time reports nothing for a process group killed at its timeout: /proc is sampled too.
    // A memory cap too (the whole group's resident memory), so that a zip bomb cannot take the machine.
    let sampledKb = 0;
    let overMemory = false;
    const sampler = setInterval(() => {
      const { largest, total } = groupRssKb(child.pid);
      sampledKb = Math.max(sampledKb, largest);
      if (total > memoryCapKb && !overMemory) {
        overMemory = true;
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
      }
    }, 100);
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, timeout);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearInterval(sampler);
      const wallMs = performance.now() - started;
      // Whatever the converter left behind in its group (LibreOffice's soffice.bin) goes too.
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
      let peakRssKb = null;
      try {
        peakRssKb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) || null;
        rmSync(rssFile);
      } catch {}
      if (!peakRssKb && sampledKb) peakRssKb = sampledKb;
      resolve({ code, signal, timedOut, overMemory, wallMs, peakRssKb, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

const version = (command, args) => {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.split('\n')[0].trim() : null;
};

// The candidates: what each reads, and how it turns a file into HTML.
const candidates = [];
const notes = [];
const pandocVersion = version('pandoc', ['--version']);
if (pandocVersion) {
  const reads = new Set(spawnSync('pandoc', ['--list-input-formats'], { encoding: 'utf8' }).stdout.split('\n'));
  candidates.push({
    name: 'pandoc',
    version: pandocVersion,
    reads: new Set(['docx', 'odt', 'rtf', 'csv', 'xlsx'].filter((format) => reads.has(format))),
    async convert(file, format, options) {
      const result = await run('pandoc', ['-f', format, '-t', 'html', '--wrap=none', file], options);
      return { ...result, html: result.stdout.toString('utf8') };
    },
  });
} else notes.push('pandoc: not found, skipped');

const sofficeVersion = version('soffice', ['--version']);
// Calc reads a CSV as UTF-8, comma-separated, every column as text (so that 007 stays 007).
const csvFilter = `CSV:44,34,76,1,${Array.from({ length: 64 }, (_, i) => `${i + 1}/2`).join('/')}`;
if (sofficeVersion) {
  candidates.push({
    name: 'libreoffice',
    version: sofficeVersion,
    reads: new Set(FORMATS),
    async convert(file, format, options) {
      const dir = mkdtempSync(join(work, 'lo-'));
      const args = [`-env:UserInstallation=${pathToFileURL(join(dir, 'profile'))}`, '--headless', '--norestore'];
      if (format === 'csv') args.push(`--infilter=${csvFilter}`);
      const result = await run('soffice', [...args, '--convert-to', 'html', '--outdir', join(dir, 'out'), file], options);
      const produced = join(dir, 'out', `${basename(file, extname(file))}.html`);
      const html = existsSync(produced) ? readFileSync(produced, 'utf8') : '';
      rmSync(dir, { recursive: true, force: true });
      return { ...result, html };
    },
  });
} else notes.push('libreoffice: soffice not found, skipped');

let mammothPath = null;
let mammothVersion = null;
try {
  const require = createRequire(join(root, 'package.json'));
  mammothPath = require.resolve('mammoth');
  mammothVersion = require('mammoth/package.json').version;
} catch {
  notes.push('mammoth: not importable (npm i --no-save mammoth), skipped');
}
if (mammothPath) {
  // In a child process of its own, so that its time and memory are its own; the time kept is the
  // conversion's, measured inside (the child's start-up, about 50 ms, is left out).
  const runner = `
    const { default: mammoth } = await import(${JSON.stringify(pathToFileURL(mammothPath).href)});
    const started = performance.now();
    const result = await mammoth.convertToHtml({ path: process.argv[1] });
    process.stdout.write(JSON.stringify({ html: result.value, ms: performance.now() - started, messages: result.messages.length }));`;
  candidates.push({
    name: 'mammoth',
    version: `mammoth ${mammothVersion}`,
    reads: new Set(['docx']),
    async convert(file, _format, options) {
      const result = await run(process.execPath, ['--input-type=module', '-e', runner, file], options);
      try {
        const { html, ms } = JSON.parse(result.stdout.toString('utf8'));
        return { ...result, html, wallMs: ms, processMs: result.wallMs };
      } catch {
        return { ...result, html: '' };
      }
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Text, tokens and the parts scored.

const tokens = (text) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];
const key = (text) => tokens(text).join(' ');
const isNumber = (text) => /^-?\d+(?:[.,]\d+)?$/.test(text.trim());

function multisetOverlap(expected, actual) {
  const counts = new Map();
  for (const token of actual) counts.set(token, (counts.get(token) ?? 0) + 1);
  let matched = 0;
  for (const token of expected) {
    const n = counts.get(token) ?? 0;
    if (n > 0) {
      matched++;
      counts.set(token, n - 1);
    }
  }
  return matched;
}

/** A markdown document reduced to what its reader reads: marks, link and image targets gone. */
function markdownText(markdown) {
  return markdown
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<(https?:[^>\s]+|mailto:[^>\s]+)>/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, '')
    .replace(/^\s*>\s?/gm, '')
    .replace(/^\s*\|?\s*:?-{3,}.*$/gm, '')
    .replace(/[|*_~`\\]/g, ' ');
}

const normalUrl = (href) => {
  try {
    return decodeURI(new URL(href.trim()).href).replace(/\/$/, '');
  } catch {
    return href.trim();
  }
};
const externalLink = (href) => /^(?:https?|ftp|mailto):/i.test(href.trim());

/** The parts of a markdown document that are scored. */
function markdownParts(markdown) {
  const headings = [];
  const items = [];
  const cells = [];
  const links = [];
  for (const line of markdown.split('\n')) {
    const heading = /^\s{0,3}#{1,6}\s+(.*)$/.exec(line);
    if (heading) headings.push(key(markdownText(heading[1])));
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) items.push(tokens(markdownText(item[1])).slice(0, 10).join(' '));
    if (/^\s*\|.*\|\s*$/.test(line) && !/^\s*\|[\s|:-]+\|\s*$/.test(line)) {
      for (const cell of line
        .trim()
        .slice(1, -1)
        .split(/(?<!\\)\|/))
        cells.push(cell.trim());
    }
  }
  for (const match of markdown.matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)|<((?:https?|mailto):[^>\s]+)>/g)) links.push(normalUrl(match[1] ?? match[2]));
  return { text: markdownText(markdown), headings, items, cells, links };
}

/** The parts of an HTML document that are expected: headings, list items, leaf table cells, external links. */
function htmlParts(html) {
  const document = parseDocument(html);
  const headings = [];
  const items = [];
  const cells = [];
  const links = [];
  const ownText = (node) => {
    if (node.type === 'text') return node.data;
    if (node.name === 'ul' || node.name === 'ol') return ' ';
    return (node.children ?? []).map(ownText).join(node.name === 'p' ? ' ' : '');
  };
  const closestTable = (node) => (node.name === 'table' || !node.parent ? node : closestTable(node.parent));
  // webwatch reads a table of one row or one column without headers as text blocks (markup.ts,
  // isLayoutTable): its text is scored, its cells are not expected as cells.
  const blockTable = (table) => {
    const rows = [];
    let headers = false;
    const visit = (element) => {
      for (const child of element.children ?? []) {
        if (child.name === 'table') continue;
        if (child.name === 'tr') rows.push(child);
        if (child.name === 'th' || child.name === 'thead' || child.name === 'caption') headers = true;
        visit(child);
      }
    };
    visit(table);
    const columns = Math.max(0, ...rows.map((row) => row.children.filter((cell) => cell.name === 'td' || cell.name === 'th').length));
    return !headers && (rows.length < 2 || columns < 2);
  };
  const hasTable = (node) => (node.children ?? []).some((child) => child.name === 'table' || hasTable(child));
  const walk = (node) => {
    if (/^h[1-6]$/.test(node.name)) headings.push(key(textContent(node)));
    if (node.name === 'li') {
      const own = tokens(ownText(node)).slice(0, 10).join(' ');
      if (own) items.push(own);
    }
    if ((node.name === 'td' || node.name === 'th') && !hasTable(node) && !blockTable(closestTable(node))) {
      const text = textContent(node).trim();
      if (key(text)) cells.push(text);
    }
    if (node.name === 'a' && node.attribs.href && externalLink(node.attribs.href)) links.push(normalUrl(node.attribs.href));
    for (const child of node.children ?? []) walk(child);
  };
  walk(document);
  return { headings: headings.filter(Boolean), items, cells, links: [...new Set(links)] };
}

function cellFound(expected, actualKeys, actualNumbers) {
  if (actualKeys.has(key(expected))) return true;
  return isNumber(expected) && actualNumbers.has(Number(expected.replace(',', '.')));
}

/** What a candidate's markdown scores against one document's expected reading. */
function score(markdown, expected) {
  const parts = markdownParts(markdown);
  const actualTokens = tokens(parts.text);
  const result = { actualTokens: actualTokens.length };
  if (expected.text !== undefined) {
    const expectedTokens = tokens(expected.text);
    const matched = multisetOverlap(expectedTokens, actualTokens);
    Object.assign(result, { expectedTokens: expectedTokens.length, matchedTokens: matched });
    const cellKeys = new Set(parts.cells.map(key));
    const cellNumbers = new Set(parts.cells.filter(isNumber).map((cell) => Number(cell.replace(',', '.'))));
    const headingKeys = new Set(parts.headings);
    const itemKeys = new Set(parts.items);
    const linkKeys = new Set(parts.links);
    result.cells = [expected.cells.filter((cell) => cellFound(cell, cellKeys, cellNumbers)).length, expected.cells.length];
    // A heading is kept when a heading of the markdown has its words (a number or "Sheet 1:" before them allowed).
    const headingFound = (heading) => headingKeys.has(heading) || parts.headings.some((actual) => ` ${actual} `.includes(` ${heading} `));
    result.headings = [expected.headings.filter(headingFound).length, expected.headings.length];
    result.items = [expected.items.filter((item) => itemKeys.has(item)).length, expected.items.length];
    result.links = [expected.links.filter((link) => linkKeys.has(link)).length, expected.links.length];
  }
  if (expected.sourceText !== undefined) {
    const sourceTokens = tokens(expected.sourceText);
    Object.assign(result, { sourceTokens: sourceTokens.length, sourceMatched: multisetOverlap(sourceTokens, actualTokens) });
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Expected readings.

/** The expected reading of a pandoc AST (or markdown) file, by pandoc's own writers. */
function expectedFromPandoc(path, from) {
  const plain = spawnSync('pandoc', ['-f', from, '-t', 'plain', '--wrap=none', path], { encoding: 'utf8' });
  const html = spawnSync('pandoc', ['-f', from, '-t', 'html', '--wrap=none', path], { encoding: 'utf8' });
  if (plain.status !== 0 || html.status !== 0) return null;
  // The plain writer numbers list items (1., a., iv., B.): markers, not text of the document.
  const text = plain.stdout.replace(/^[ \t]*(?:[-*+]|\(?(?:\d+|[a-zA-Z]|[ivxlcdmIVXLCDM]+|#)[.)])[ \t]+/gm, '');
  return { text, ...htmlParts(html.stdout) };
}

const unzipEntry = (file, entry) => {
  const result = spawnSync('unzip', ['-p', file, entry], { maxBuffer: 256 * 1024 * 1024 });
  return result.status === 0 ? result.stdout.toString('utf8') : null;
};

/** The text of a DOCX's word/document.xml (w:t, paragraph by paragraph; mc:Fallback left out). */
function docxXmlText(file) {
  const xml = unzipEntry(file, 'word/document.xml');
  if (xml === null) return undefined;
  const text = [];
  const walk = (node) => {
    if (node.name === 'mc:Fallback') return;
    if (node.name === 'w:t') text.push(textContent(node));
    else if (node.name === 'w:tab' || node.name === 'w:br') text.push(' ');
    for (const child of node.children ?? []) walk(child);
    if (node.name === 'w:p') text.push('\n');
  };
  walk(parseDocument(xml, { xmlMode: true }));
  return text.join('');
}

/** The text of an ODT's content.xml body (every text node, paragraph by paragraph). */
function odtXmlText(file) {
  const xml = unzipEntry(file, 'content.xml');
  if (xml === null) return undefined;
  const text = [];
  const walk = (node, inBody) => {
    const body = inBody || node.name === 'office:body';
    if (node.type === 'text' && body) text.push(node.data);
    if (node.name === 'text:s' || node.name === 'text:tab' || node.name === 'text:line-break') text.push(' ');
    for (const child of node.children ?? []) walk(child, body);
    if (node.name === 'text:p' || node.name === 'text:h') text.push('\n');
  };
  walk(parseDocument(xml, { xmlMode: true }), false);
  return text.join('');
}

// ---------------------------------------------------------------------------------------------
// Derived files: sheets written here, and DOC, XLSX, XLS, ODS made from them by LibreOffice.

const names = ['Zoë Ångström', 'Łukasz Żółw', '李雷', 'محمد علي', 'Jean-Luc Picard', "O'Brien, Miles", 'Ana "Ani" Silva', 'Søren Kierkegaard'];
const cities = ['Zürich', 'Kraków', '北京', 'القاهرة', 'La Barre', 'Dublin', 'São Paulo', 'København'];
const sheets = {
  people: [
    ['id', 'name', 'city', 'amount', 'code', 'note'],
    ...Array.from({ length: 60 }, (_, i) => [
      String(i + 1),
      names[i % names.length],
      cities[(i * 3) % cities.length],
      (1000 + i * 37.25).toFixed(2),
      String(i % 10).padStart(3, '0'),
      i % 4 === 0 ? 'says "hello", then leaves' : i % 4 === 1 ? 'comma, inside' : i % 4 === 2 ? '' : `row ${i + 1} of sixty`,
    ]),
  ],
  tricky: [
    ['field', 'value', 'comment'],
    ['formula-like', '=1+1', 'must stay text'],
    ['multi-line', 'first line\nsecond line', 'a line break inside a cell'],
    ['spaces', '  padded  ', 'leading and trailing spaces'],
    ['empty', '', 'an empty cell'],
    ['date-like', '2026-12-01', 'not a date to convert'],
    ['long number', '12345678901234567890', 'more digits than a double keeps'],
    ['percent', '12.5%', 'a percentage as written'],
    ['pipe', 'a | b', 'a markdown table separator inside a cell'],
    ['url', 'https://example.com/a?b=c', 'a URL as text'],
  ],
  large: [
    ['row', 'alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'],
    ...Array.from({ length: 3000 }, (_, i) => [String(i + 1), ...Array.from({ length: 7 }, (_, j) => `w${(i * 7 + j) % 997}x${j}`)]),
  ],
};
const csvCell = (cell) => (/[",\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell);
const csvOf = (rows) => `${rows.map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`;
const sheetExpected = (rows) => {
  const cells = rows.flat().filter((cell) => key(cell));
  return { text: cells.join('\n'), cells, headings: [], items: [], links: [] };
};

// A two-sheet workbook with a formula, a merged cell and a hyperlink, as flat ODS.
const workbookCells = [
  ['Region', 'Q1', 'Q2', 'Total', 'Source'],
  ['North', '120', '135', '255', 'Report 2026'],
  ['South', '98', '101', '199', ''],
  ['Merged across two columns', '', '', '', ''],
  ['Notes: 注意 — Größe', 'Ελληνικά', 'עברית', '', ''],
];
const workbookFods = () => {
  const cell = (value) => {
    if (/^\d+$/.test(value)) return `<table:table-cell office:value-type="float" office:value="${value}"><text:p>${value}</text:p></table:table-cell>`;
    return value ? `<table:table-cell office:value-type="string"><text:p>${value}</text:p></table:table-cell>` : '<table:table-cell/>';
  };
  const row = (cells) => `<table:table-row>${cells.join('')}</table:table-row>`;
  const sales = [
    row(workbookCells[0].map(cell)),
    row([
      cell('North'),
      cell('120'),
      cell('135'),
      '<table:table-cell table:formula="of:=[.B2]+[.C2]" office:value-type="float" office:value="255"><text:p>255</text:p></table:table-cell>',
      '<table:table-cell office:value-type="string"><text:p><text:a xlink:type="simple" xlink:href="https://example.com/report-2026">Report 2026</text:a></text:p></table:table-cell>',
    ]),
    row([
      cell('South'),
      cell('98'),
      cell('101'),
      '<table:table-cell table:formula="of:=[.B3]+[.C3]" office:value-type="float" office:value="199"><text:p>199</text:p></table:table-cell>',
      cell(''),
    ]),
    row([
      '<table:table-cell table:number-columns-spanned="2" office:value-type="string"><text:p>Merged across two columns</text:p></table:table-cell><table:covered-table-cell/>',
    ]),
  ].join('');
  const notesSheet = row(workbookCells[4].slice(0, 3).map(cell));
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:body><office:spreadsheet><table:table table:name="Sales">${sales}</table:table><table:table table:name="Notes">${notesSheet}</table:table></office:spreadsheet></office:body></office:document>`;
};

async function soffice(args) {
  const dir = mkdtempSync(join(work, 'derive-'));
  await run('soffice', [`-env:UserInstallation=${pathToFileURL(join(dir, 'profile'))}`, '--headless', '--norestore', ...args], { timeout: 600_000 });
  rmSync(dir, { recursive: true, force: true });
}

/** Makes the derived files once (kept in bench/.work), and lists them with their expected readings. */
async function derivedFiles(docxPairs, workbook) {
  const dirs = Object.fromEntries(['doc', 'sheets', 'xlsx', 'xls', 'ods', 'csv'].map((name) => [name, join(derived, name)]));
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  const expectedSheets = {};
  for (const [name, rows] of Object.entries(sheets)) {
    writeFileSync(join(dirs.csv, `${name}.csv`), csvOf(rows));
    expectedSheets[name] = sheetExpected(rows);
  }
  writeFileSync(join(dirs.sheets, 'workbook.fods'), workbookFods());
  // The Notes sheet is one row: its text is expected, not its cells (see blockTable).
  expectedSheets.workbook = {
    ...sheetExpected(workbookCells),
    cells: sheetExpected(workbookCells.slice(0, 4)).cells,
    links: ['https://example.com/report-2026'],
  };
  if (!sofficeVersion)
    return { files: Object.keys(sheets).map((name) => ({ format: 'csv', path: join(dirs.csv, `${name}.csv`), expected: expectedSheets[name] })) };
  const missing = (dir, files, ext) => files.filter((file) => !existsSync(join(dir, `${basename(file, extname(file))}.${ext}`)));
  const docs = missing(
    dirs.doc,
    docxPairs.map((pair) => pair.path),
    'doc',
  );
  if (docs.length) await soffice(['--convert-to', 'doc:MS Word 97', '--outdir', dirs.doc, ...docs]);
  const sources = [...Object.keys(sheets).map((name) => join(dirs.csv, `${name}.csv`)), join(dirs.sheets, 'workbook.fods'), workbook.path];
  for (const [format, filter] of [
    ['xlsx', 'xlsx:Calc MS Excel 2007 XML'],
    ['xls', 'xls:MS Excel 97'],
    ['ods', 'ods'],
  ]) {
    const todo = missing(dirs[format], sources, format);
    if (todo.length) await soffice([`--infilter=${csvFilter}`, '--convert-to', filter, '--outdir', dirs[format], ...todo]);
  }
  const files = [];
  for (const pair of docxPairs) {
    const path = join(dirs.doc, `${basename(pair.path, '.docx')}.doc`);
    if (existsSync(path)) files.push({ format: 'doc', path, expected: pair.expected, from: pair.path });
  }
  for (const format of ['xlsx', 'xls', 'ods']) {
    for (const source of sources) {
      const name = basename(source, extname(source));
      const path = join(dirs[format], `${name}.${format}`);
      if (existsSync(path)) files.push({ format, path, expected: name === 'basic' ? workbook.expected : expectedSheets[name] });
    }
  }
  for (const name of Object.keys(sheets)) files.push({ format: 'csv', path: join(dirs.csv, `${name}.csv`), expected: expectedSheets[name] });
  return { files };
}

// ---------------------------------------------------------------------------------------------
// The corpus.

function corpusFiles() {
  const pandoc = join(corpus, 'pandoc');
  const files = [];
  const excluded = [];
  const expectedOf = (path, from) => {
    const expected = existsSync(path) ? expectedFromPandoc(path, from) : null;
    if (existsSync(path) && !expected) excluded.push(`${path.slice(corpus.length + 1)}: pandoc ${pandocVersion?.split(' ')[1]} cannot read it (a newer AST)`);
    return expected;
  };
  for (const name of readdirSync(join(pandoc, 'docx'))
    .filter((n) => n.endsWith('.docx'))
    .sort()) {
    const path = join(pandoc, 'docx', name);
    const expected = expectedOf(path.replace(/\.docx$/, '.native'), 'native') ?? {};
    files.push({ format: 'docx', set: 'pandoc', path, expected: { ...expected, sourceText: docxXmlText(path) } });
  }
  for (const name of readdirSync(join(corpus, 'mammoth'))
    .filter((n) => n.endsWith('.docx'))
    .sort()) {
    const path = join(corpus, 'mammoth', name);
    files.push({ format: 'docx', set: 'mammoth', path, expected: { sourceText: docxXmlText(path) } });
  }
  for (const name of readdirSync(join(pandoc, 'odt', 'odt'))
    .filter((n) => n.endsWith('.odt'))
    .sort()) {
    const path = join(pandoc, 'odt', 'odt', name);
    const stem = basename(name, '.odt');
    const native = join(pandoc, 'odt', 'native', `${stem}.native`);
    const markdown = join(pandoc, 'odt', 'markdown', `${stem}.md`);
    const expected = (existsSync(native) ? expectedOf(native, 'native') : null) ?? (existsSync(markdown) ? expectedOf(markdown, 'markdown') : null) ?? {};
    files.push({ format: 'odt', set: 'pandoc', path, expected: { ...expected, sourceText: odtXmlText(path) } });
  }
  for (const name of readdirSync(join(pandoc, 'rtf'))
    .filter((n) => n.endsWith('.rtf'))
    .sort()) {
    const path = join(pandoc, 'rtf', name);
    files.push({ format: 'rtf', set: 'pandoc', path, expected: expectedOf(path.replace(/\.rtf$/, '.native'), 'native') ?? {} });
  }
  const workbookPath = join(pandoc, 'xlsx-reader', 'basic.xlsx');
  const workbook = { path: workbookPath, expected: expectedOf(workbookPath.replace(/\.xlsx$/, '.native'), 'native') ?? {} };
  return { files, excluded, workbook };
}

// ---------------------------------------------------------------------------------------------
// The run.

const quantile = (values, q) => {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};
// Kept parts: the mean over the documents that have any of that part of each one's share kept (so that one
// large sheet does not outweigh the others), with the counts summed.
const ratio = (pairs) => {
  const having = pairs.filter(([, total]) => total > 0);
  const [found, total] = having.reduce(([f, t], [a, b]) => [f + a, t + b], [0, 0]);
  return having.length ? { value: having.reduce((mean, [a, b]) => mean + a / b / having.length, 0), found, total, documents: having.length } : null;
};
const sum = (rows, field) => rows.reduce((total, row) => total + (row[field] ?? 0), 0);

async function convertOne(candidate, file) {
  const result = await candidate.convert(file.path, file.format, {});
  const failure = result.overMemory ? 'memory cap' : result.timedOut ? 'timeout' : result.code !== 0 ? `exit ${result.code ?? result.signal}` : null;
  let markdown = '';
  if (result.html) {
    const content = await convertPage(
      { body: Buffer.from(result.html, 'utf8'), contentType: 'text/html; charset=utf-8', finalUrl: 'https://document.invalid/document.html' },
      { onlyMainContent: false },
      ['markdown'],
    );
    markdown = content.markdown;
  }
  const scored = score(markdown, file.expected);
  if (dump) {
    const stem = join(dump, `${candidate.name}-${file.format}-${basename(file.path)}`);
    mkdirSync(dump, { recursive: true });
    writeFileSync(`${stem}.html`, result.html ?? '');
    writeFileSync(`${stem}.md`, markdown);
    writeFileSync(`${stem}.expected.txt`, file.expected.text ?? file.expected.sourceText ?? '');
  }
  const expectsText = (file.expected.expectedTokens ?? tokens(file.expected.text ?? file.expected.sourceText ?? '').length) > 0;
  return {
    file: file.path.replace(`${corpus}/`, '').replace(`${derived}/`, 'derived/'),
    wallMs: Math.round(result.wallMs),
    peakRssKb: result.peakRssKb,
    failure: failure ?? (expectsText && scored.actualTokens === 0 ? 'empty' : null),
    ...scored,
  };
}

function summarize(rows) {
  const scored = rows.filter((row) => row.expectedTokens !== undefined);
  const sourced = rows.filter((row) => row.sourceTokens !== undefined);
  const times = rows.map((row) => row.wallMs);
  const rss = rows.map((row) => row.peakRssKb).filter((value) => value);
  return {
    documents: rows.length,
    scored: scored.length,
    recall: sum(scored, 'expectedTokens') ? sum(scored, 'matchedTokens') / sum(scored, 'expectedTokens') : null,
    precision: sum(scored, 'actualTokens') ? sum(scored, 'matchedTokens') / sum(scored, 'actualTokens') : null,
    sourceRecall: sum(sourced, 'sourceTokens') ? sum(sourced, 'sourceMatched') / sum(sourced, 'sourceTokens') : null,
    cells: ratio(scored.map((row) => row.cells)),
    headings: ratio(scored.map((row) => row.headings)),
    items: ratio(scored.map((row) => row.items)),
    links: ratio(scored.map((row) => row.links)),
    medianMs: quantile(times, 0.5),
    p90Ms: quantile(times, 0.9),
    medianRssMb: rss.length ? quantile(rss, 0.5) / 1024 : null,
    peakRssMb: rss.length ? Math.max(...rss) / 1024 : null,
    failures: rows.filter((row) => row.failure).map((row) => `${basename(row.file)}: ${row.failure}`),
  };
}

const pct = (value) => (value === null || value === undefined ? '-' : `${(100 * (typeof value === 'object' ? value.value : value)).toFixed(1)} %`);
const ofTotal = (value) => (value ? `${pct(value)} (${value.found}/${value.total})` : '-');
function printTable(format, summaries) {
  console.log(`\n### ${format.toUpperCase()}\n`);
  console.log(
    '| candidate | docs (scored) | recall | precision | XML-text recall | cells | headings | list items | links | median / p90 time | peak RSS (median / max) | failures |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [name, s] of Object.entries(summaries)) {
    const time = s.medianMs === null ? '-' : `${Math.round(s.medianMs)} / ${Math.round(s.p90Ms)} ms`;
    const rss = s.peakRssMb === null ? '-' : `${Math.round(s.medianRssMb)} / ${Math.round(s.peakRssMb)} MB`;
    console.log(
      `| ${name} | ${s.documents} (${s.scored}) | ${pct(s.recall)} | ${pct(s.precision)} | ${pct(s.sourceRecall)} | ${ofTotal(s.cells)} | ${ofTotal(s.headings)} | ${ofTotal(s.items)} | ${ofTotal(s.links)} | ${time} | ${rss} | ${s.failures.length || 0} |`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Hostile documents.

/** A zip file from entries ({ name, data } or { name, chunks: () => iterable of Buffers }), streamed. */
async function writeZip(path, entries) {
  const out = createWriteStream(path);
  const write = (buffer) => new Promise((resolve) => (out.write(buffer) ? resolve() : out.once('drain', resolve)));
  const central = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    let crc = 0;
    let size = 0;
    let compressed;
    if (entry.data) {
      crc = crc32(entry.data);
      size = entry.data.length;
      compressed = [deflateRawSync(entry.data)];
    } else {
      compressed = [];
      const deflate = createDeflateRaw({ level: 9 });
      deflate.on('data', (chunk) => compressed.push(chunk));
      const done = new Promise((resolve) => deflate.on('end', resolve));
      for (const chunk of entry.chunks()) {
        crc = crc32(chunk, crc);
        size += chunk.length;
        if (!deflate.write(chunk)) await new Promise((resolve) => deflate.once('drain', resolve));
      }
      deflate.end();
      await done;
    }
    const compressedSize = compressed.reduce((total, chunk) => total + chunk.length, 0);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(8, 8);
    header.writeUInt32LE(crc >>> 0, 14);
    header.writeUInt32LE(compressedSize, 18);
    header.writeUInt32LE(size, 22);
    header.writeUInt16LE(name.length, 26);
    await write(Buffer.concat([header, name]));
    for (const chunk of compressed) await write(chunk);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(8, 10);
    record.writeUInt32LE(crc >>> 0, 16);
    record.writeUInt32LE(compressedSize, 20);
    record.writeUInt32LE(size, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt32LE(offset, 42);
    central.push(Buffer.concat([record, name]));
    offset += 30 + name.length + compressedSize;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(central.length, 8);
  end.writeUInt16LE(central.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  await write(Buffer.concat([directory, end]));
  await new Promise((resolve) => out.end(resolve));
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const docxParts = (documentXml, relationships = '') => [
  {
    name: '[Content_Types].xml',
    data: Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
  },
  {
    name: '_rels/.rels',
    data: Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${R}/officeDocument" Target="word/document.xml"/></Relationships>`,
    ),
  },
  {
    name: 'word/_rels/document.xml.rels',
    data: Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${relationships}</Relationships>`,
    ),
  },
  typeof documentXml === 'string' ? { name: 'word/document.xml', data: Buffer.from(documentXml) } : { name: 'word/document.xml', chunks: documentXml },
];

// An image 1 pixel square from a URL of the discard prefix (RFC 6666 is IPv6; 192.0.2.1 is TEST-NET-1).
const externalImage = () =>
  `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}" xmlns:r="${R}" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body><w:p><w:r><w:t>Before the picture.</w:t></w:r></w:p><w:p><w:r><w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/><wp:docPr id="1" name="Picture 1" descr="remote"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="0" name="remote.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:link="rId9"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="952500" cy="952500"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p><w:p><w:r><w:t>After the picture.</w:t></w:r></w:p></w:body></w:document>`;

async function hostileCases() {
  const dir = join(derived, 'hostile');
  mkdirSync(dir, { recursive: true });
  const xxe = join(dir, 'xxe.docx');
  if (!existsSync(xxe)) {
    await writeZip(
      xxe,
      docxParts(
        `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>Entity: [&e;]</w:t></w:r></w:p></w:body></w:document>`,
      ),
    );
  }
  const external = join(dir, 'external-image.docx');
  if (!existsSync(external)) {
    await writeZip(
      external,
      docxParts(externalImage(), `<Relationship Id="rId9" Type="${R}/image" Target="http://192.0.2.1/remote.png" TargetMode="External"/>`),
    );
  }
  const bomb = join(dir, 'zip-bomb.docx');
  if (!existsSync(bomb)) {
    const paragraph = Buffer.from('<w:p><w:r><w:t>All work and no play makes a dull document. </w:t></w:r></w:p>'.repeat(1024));
    const count = Math.ceil(2 ** 30 / paragraph.length);
    await writeZip(
      bomb,
      docxParts(function* () {
        yield Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body>`);
        for (let i = 0; i < count; i++) yield paragraph;
        yield Buffer.from('</w:body></w:document>');
      }),
    );
  }
  const cases = [
    {
      name: 'XXE (file:///etc/passwd entity in a w:t)',
      path: xxe,
      look: (markdown) =>
        /root:x:0:0/.test(markdown)
          ? 'READ /etc/passwd into the output'
          : /Entity: \[\s*\]/.test(markdown)
            ? 'entity dropped'
            : /Entity/.test(markdown)
              ? 'text kept, entity not expanded'
              : 'no text',
    },
    {
      name: 'external image (TargetMode="External", http://192.0.2.1)',
      path: external,
      strace: true,
      look: (markdown) => (/192\.0\.2\.1/.test(markdown) ? 'URL kept in the output' : 'URL not in the output'),
    },
    {
      name: `zip bomb (${(statSync(bomb).size / 2 ** 20).toFixed(1)} MB zip, 1 GB document.xml)`,
      path: bomb,
      timeout: 120_000,
      look: (markdown) => `${tokens(markdown).length} words out`,
    },
  ];
  const results = [];
  for (const testCase of cases) {
    for (const candidate of candidates.filter((c) => c.reads.has('docx'))) {
      const result = await candidate.convert(testCase.path, 'docx', { offline: true, timeout: testCase.timeout ?? timeoutMs });
      let markdown = '';
      if (result.html && result.html.length < 50 * 2 ** 20) {
        markdown = (
          await convertPage({ body: Buffer.from(result.html), contentType: 'text/html', finalUrl: 'https://document.invalid/' }, { onlyMainContent: false }, [
            'markdown',
          ])
        ).markdown;
      }
      const row = {
        case: testCase.name,
        candidate: candidate.name,
        outcome: result.overMemory
          ? `killed at the memory cap (${memoryCapKb / 1024} MB) after ${(result.wallMs / 1000).toFixed(1)} s`
          : result.timedOut
            ? `killed at ${(testCase.timeout ?? timeoutMs) / 1000} s`
            : result.code !== 0
              ? `exit ${result.code ?? result.signal}: ${errorLine(result.stderr)}`
              : result.html
                ? 'converted'
                : `exit 0, no HTML: ${errorLine(result.stderr)}`,
        seen: result.html ? testCase.look(markdown) : 'no output',
        htmlBytes: result.html?.length ?? 0,
        wallMs: Math.round(result.processMs ?? result.wallMs),
        peakRssMb: result.peakRssKb ? Math.round(result.peakRssKb / 1024) : null,
      };
      if (testCase.strace && existsSync('/usr/bin/strace')) row.connects = await connects(candidate, testCase.path);
      results.push(row);
      console.log(`| ${row.case} | ${row.candidate} | ${row.outcome} | ${row.seen} | ${row.wallMs} ms | ${row.peakRssMb ?? '-'} MB | ${row.connects ?? '-'} |`);
    }
  }
  return results;
}

const errorLine = (stderr) =>
  (stderr.split('\n').find((line) => /error|cannot|couldn't|invalid/i.test(line)) ?? stderr.trim().split('\n').pop() ?? '').trim().slice(0, 160);

/** The connect() calls to anything but a local socket while the candidate converts the file. */
async function connects(candidate, path) {
  const log = join(work, `strace-${candidate.name}`);
  const dir = mkdtempSync(join(work, 'strace-'));
  const command = {
    pandoc: ['pandoc', '-f', 'docx', '-t', 'html', path],
    libreoffice: ['soffice', `-env:UserInstallation=${pathToFileURL(join(dir, 'profile'))}`, '--headless', '--convert-to', 'html', '--outdir', dir, path],
    mammoth: [
      process.execPath,
      '--input-type=module',
      '-e',
      `const { default: m } = await import(${JSON.stringify(pathToFileURL(mammothPath ?? '').href)}); await m.convertToHtml({ path: process.argv[1] });`,
      path,
    ],
  }[candidate.name];
  await run('strace', ['-f', '-qq', '-e', 'trace=connect', '-o', log, ...command], { offline: true });
  rmSync(dir, { recursive: true, force: true });
  const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n') : [];
  const remote = lines.filter((line) => /connect\(/.test(line) && /AF_INET/.test(line));
  return remote.length ? remote.map((line) => line.replace(/^\d+\s+/, '').slice(0, 120)).join('; ') : 'none to the network';
}

// ---------------------------------------------------------------------------------------------

const { files: corpusList, excluded, workbook } = corpusFiles();
const { files: derivedList } = await derivedFiles(
  corpusList.filter((file) => file.format === 'docx' && file.expected.text !== undefined),
  workbook,
);
const files = [...corpusList, ...derivedList].filter((file) => formats.includes(file.format));
console.log(`webwatch documents bench: ${cpus().length} cores, Node ${process.version}; ${candidates.map((c) => c.version).join('; ')}`);
for (const note of notes) console.log(`note: ${note}`);
for (const note of excluded) console.log(`expected reading left out: ${note}`);

const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
const machine = {
  cpu: cpus()[0]?.model,
  cores: cpus().length,
  memoryGb: Math.round(totalmem() / 2 ** 30),
  loadAverage: loadavg().map((value) => Math.round(value * 10) / 10),
};
const report = {
  date: new Date().toISOString(),
  commit,
  machine,
  node: process.version,
  candidates: candidates.map((c) => c.version),
  notes,
  excluded,
  formats: {},
  hostile: null,
};
for (const format of formats) {
  const list = files.filter((file) => file.format === format).slice(0, fileLimit);
  const summaries = {};
  const perFile = {};
  for (const candidate of candidates.filter((c) => c.reads.has(format))) {
    const rows = [];
    for (const file of list) rows.push(await convertOne(candidate, file));
    summaries[candidate.name] = summarize(rows);
    perFile[candidate.name] = rows;
    process.stderr.write(`${format} ${candidate.name}: ${rows.length} documents\n`);
  }
  if (!Object.keys(summaries).length) {
    console.log(`\n### ${format.toUpperCase()}\n\nno candidate reads it`);
    continue;
  }
  printTable(format, summaries);
  report.formats[format] = { summaries, perFile };
  writeFileSync(outPath, `${JSON.stringify(report, null, 1)}\n`);
}
if (hostile) {
  console.log('\n### Hostile DOCX files (no network)\n');
  console.log('| case | candidate | outcome | output | time | peak RSS | network |');
  console.log('|---|---|---|---|---|---|---|');
  report.hostile = await hostileCases();
}
writeFileSync(outPath, `${JSON.stringify(report, null, 1)}\n`);
rmSync(work, { recursive: true, force: true });
console.log(`\nwritten: ${outPath}`);
