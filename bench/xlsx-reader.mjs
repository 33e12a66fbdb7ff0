// webwatch's streaming XLSX reader against LibreOffice's HTML of the same workbook: time, and
// the share of table cells that read the same in the markdown of both.
//
//   node bench/xlsx-reader.mjs [FILE.xlsx ...]      (after npm run build; needs LibreOffice)
//
// Without files it makes the 100,000-cell workbook of documents-scale.mjs (5,000 rows of 20
// columns, from a CSV, by LibreOffice), and reads pandoc's basic.xlsx from the shared corpus
// when it is there.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { documentToHtml, readDocument } = await import(join(root, 'dist/src/engine/documents/convert.js'));
const { workbookHtml } = await import(join(root, 'dist/src/engine/documents/sheets.js'));
const { convertPage } = await import(join(root, 'dist/src/engine/scrape/convert.js'));

function hundredThousandCells() {
  const dir = mkdtempSync(join(tmpdir(), 'webwatch-xlsx-'));
  const header = Array.from({ length: 20 }, (_, column) => `Column ${column + 1}`).join(',');
  const rows = Array.from({ length: 5_000 }, (_, row) =>
    Array.from({ length: 20 }, (_, column) => (column % 3 === 0 ? `item ${row}-${column}` : String(row * column))).join(','),
  );
  writeFileSync(join(dir, 'cells.csv'), `${header}\n${rows.join('\n')}\n`);
  execFileSync(
    'soffice',
    [
      '--headless',
      '--calc',
      `-env:UserInstallation=file://${dir}/profile`,
      '--convert-to',
      'xlsx:Calc MS Excel 2007 XML',
      '--outdir',
      dir,
      join(dir, 'cells.csv'),
    ],
    { stdio: 'ignore' },
  );
  return join(dir, 'cells.xlsx');
}

const corpus = join(root, '../shared/corpus/documents/pandoc/xlsx-reader/basic.xlsx');
const files = process.argv.length > 2 ? process.argv.slice(2) : [hundredThousandCells(), ...(existsSync(corpus) ? [corpus] : [])];
const markdown = async (html) =>
  (await convertPage({ body: Buffer.from(html), contentType: 'text/html', finalUrl: 'file:///x' }, { onlyMainContent: false }, ['markdown'])).markdown;
const cells = (text) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
    .flatMap((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );

const results = [];
for (const file of files) {
  const body = readFileSync(file);
  let started = performance.now();
  const libreoffice = workbookHtml(await documentToHtml(body, 'xlsx', { deadline: Date.now() + 120_000 }));
  const libreofficeMs = performance.now() - started;
  started = performance.now();
  const { workbook: own } = await readDocument(body, 'xlsx', { deadline: Date.now() + 120_000 });
  const ownMs = performance.now() - started;
  const [theirs, ours] = [cells(await markdown(libreoffice.html)), cells(await markdown(own.html))];
  const same = theirs.filter((cell, index) => cell === ours[index]).length;
  const differing = theirs.flatMap((cell, index) => (cell === ours[index] ? [] : [[cell, ours[index]]])).slice(0, 10);
  results.push({
    file: file.split('/').at(-1),
    cells: { libreoffice: theirs.length, reader: ours.length, agree: Number(((same / Math.max(theirs.length, ours.length)) * 100).toFixed(1)) },
    ms: { libreoffice: Math.round(libreofficeMs), reader: Math.round(ownMs) },
    warnings: { libreoffice: libreoffice.warnings, reader: own.warnings },
    differing,
  });
}
const report = { date: new Date().toISOString(), machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version }, results };
writeFileSync(join(root, 'bench/results/xlsx-reader.json'), `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
