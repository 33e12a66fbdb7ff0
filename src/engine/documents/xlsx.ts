/**
 * An XLSX read as it streams out of its archive, instead of by LibreOffice: each sheet's XML
 * goes through a SAX parser (htmlparser2 in XML mode, which expands no DTD entity) chunk by
 * chunk as it inflates, and a sheet stops being read at the row and column limits of a page
 * (sheets.ts), so a sheet of a million rows costs what its first 5,000 do. Shared strings are
 * read after the sheets, keeping only those the kept cells use. Values are shown as a reader
 * of the sheet sees them where the format says so (dates, times, percentages, booleans);
 * other numbers as they are, to 15 significant digits.
 */
import { Parser, parseDocument } from 'htmlparser2';
import type { Element } from 'domhandler';
import { findAll } from 'domutils';
import yauzl from 'yauzl';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { escapeHtml, MAX_SHEET_COLUMNS, MAX_SHEET_ROWS, rowsTable, type Workbook } from './sheets.js';

export interface XlsxLimits {
  deadline: number;
  signal?: AbortSignal;
}

/** The small parts (workbook, relationships, styles) are read whole; past this they are no such part. */
const MAX_PART_BYTES = 16 * 1024 * 1024;

const unreadable = (why: string) => new WebwatchError(`the XLSX file could not be read: ${why}`, { status: 422, code: 'DOCUMENT_UNREADABLE' });

/** A kept cell: its text, or the index of its shared string, filled in once those are read. */
type Cell = string | { shared: number };

export async function readXlsx(body: Uint8Array, limits: XlsxLimits): Promise<Workbook> {
  const archive = await openArchive(body);
  try {
    const check = () => {
      if (limits.signal?.aborted) throw limits.signal.reason;
      if (Date.now() >= limits.deadline) throw unreadable('it took longer than the time left');
    };
    const workbook = archive.entries.get('xl/workbook.xml');
    if (!workbook) throw unreadable('it has no xl/workbook.xml');
    const sheets = sheetsOf(await archive.text(workbook, check), await archive.textOf('xl/_rels/workbook.xml.rels', check));
    const styles = stylesOf(await archive.textOf('xl/styles.xml', check));
    const warnings: string[] = [];
    const read: { name: string; rows: Cell[][]; more: { rows?: number | true; columns?: number } }[] = [];
    const wanted = new Set<number>();
    for (const sheet of sheets) {
      const entry = archive.entries.get(sheet.path);
      if (!entry) continue;
      const result = await readSheet(archive, entry, styles, check);
      for (const row of result.rows) for (const cell of row) if (typeof cell === 'object') wanted.add(cell.shared);
      read.push({ name: sheet.name, ...result });
    }
    const shared = wanted.size > 0 ? await sharedStrings(archive, wanted, check) : new Map<number, string>();
    const sections = read.map(({ name, rows, more }) => {
      const html = rows.map((row) => row.map((cell) => escapeHtml(typeof cell === 'string' ? cell : (shared.get(cell.shared) ?? ''))));
      return `<h2>${escapeHtml(name)}</h2>${rowsTable(html, name, warnings, more)}`;
    });
    return { html: sections.join('\n'), sheets: read.length, warnings };
  } finally {
    archive.close();
  }
}

interface Archive {
  entries: Map<string, yauzl.Entry>;
  /** The entry's text, in chunks to `onText` until it answers false (the rest is not inflated). */
  stream(entry: yauzl.Entry, onText: (text: string) => boolean, check: () => void): Promise<void>;
  text(entry: yauzl.Entry, check: () => void): Promise<string>;
  textOf(name: string, check: () => void): Promise<string | undefined>;
  close(): void;
}

function openArchive(body: Uint8Array): Promise<Archive> {
  const buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false }, (error, zip) => {
      if (error || !zip) return reject(unreadable(`it is not a readable ZIP archive (${error?.message ?? 'no archive'})`));
      const entries = new Map<string, yauzl.Entry>();
      zip.on('entry', (entry: yauzl.Entry) => {
        entries.set(entry.fileName.replace(/^\//, ''), entry);
        zip.readEntry();
      });
      zip.on('error', (failure: Error) => reject(unreadable(`the archive is damaged: ${failure.message}`)));
      zip.on('end', () => {
        const stream: Archive['stream'] = (entry, onText, check) =>
          new Promise((done, fail) => {
            zip.openReadStream(entry, (streamError, readable) => {
              if (streamError || !readable) return fail(unreadable(`its part ${entry.fileName} is damaged (${streamError?.message ?? 'no data'})`));
              const decoder = new TextDecoder('utf-8');
              let stopped = false;
              readable.on('data', (chunk: Buffer) => {
                if (stopped) return;
                try {
                  check();
                  if (!onText(decoder.decode(chunk, { stream: true }))) {
                    stopped = true;
                    readable.destroy();
                    done();
                  }
                } catch (failure) {
                  stopped = true;
                  readable.destroy();
                  fail(failure);
                }
              });
              readable.on('error', (failure: Error) => {
                if (!stopped) fail(unreadable(`its part ${entry.fileName} is damaged: ${failure.message}`));
                stopped = true;
              });
              readable.on('end', () => {
                if (stopped) return;
                try {
                  onText(decoder.decode());
                  done();
                } catch (failure) {
                  fail(failure);
                }
              });
            });
          });
        const text: Archive['text'] = async (entry, check) => {
          if (entry.uncompressedSize > MAX_PART_BYTES) throw unreadable(`its part ${entry.fileName} is too large`);
          let all = '';
          await stream(
            entry,
            (chunk) => {
              all += chunk;
              if (all.length > MAX_PART_BYTES) throw unreadable(`its part ${entry.fileName} is too large`);
              return true;
            },
            check,
          );
          return all;
        };
        resolve({
          entries,
          stream,
          text,
          textOf: async (name, check) => {
            const entry = entries.get(name);
            return entry ? text(entry, check) : undefined;
          },
          close: () => zip.close(),
        });
      });
      zip.readEntry();
    });
  });
}

/** An element's name without its namespace prefix (`x:row` is a row). */
const local = (name: string) => name.slice(name.indexOf(':') + 1);
const elements = (xml: string | undefined) => (xml ? findAll(() => true, parseDocument(xml, { xmlMode: true }).children) : []);

/** The sheets in their order, by name, each at the path its relationship names. */
function sheetsOf(workbook: string, relationships: string | undefined): { name: string; path: string }[] {
  const targets = new Map<string, string>();
  for (const element of elements(relationships)) {
    if (local(element.name) === 'Relationship' && element.attribs.Id && element.attribs.Target) targets.set(element.attribs.Id, element.attribs.Target);
  }
  return elements(workbook)
    .filter((element) => local(element.name) === 'sheet')
    .map((element, index) => {
      const id = Object.entries(element.attribs).find(([name]) => local(name) === 'id' && name !== 'sheetId')?.[1] ?? '';
      const target = targets.get(id) ?? `worksheets/sheet${index + 1}.xml`;
      const path = target.startsWith('/') ? target.slice(1) : `xl/${target}`.replace(/\/[^/]+\/\.\.\//g, '/');
      return { name: element.attribs.name ?? `Sheet ${index + 1}`, path };
    });
}

type Shown = 'date' | 'time' | 'datetime' | 'percent' | 'number';

/** How each cell style shows a number, by its index in cellXfs. */
function stylesOf(xml: string | undefined): Shown[] {
  const all = elements(xml);
  const custom = new Map<number, string>();
  for (const element of all) if (local(element.name) === 'numFmt') custom.set(Number(element.attribs.numFmtId), element.attribs.formatCode ?? '');
  const cellXfs = all.find((element) => local(element.name) === 'cellXfs');
  const xfs = cellXfs ? cellXfs.children.filter((child): child is Element => 'name' in child && local(child.name) === 'xf') : [];
  return xfs.map((xf) => shownBy(Number(xf.attribs.numFmtId ?? 0), custom));
}

const BUILT_IN_DATES = new Set([14, 15, 16, 17, 22]);
const BUILT_IN_TIMES = new Set([18, 19, 20, 21, 45, 46, 47]);

function shownBy(id: number, custom: ReadonlyMap<number, string>): Shown {
  if (BUILT_IN_DATES.has(id)) return id === 22 ? 'datetime' : 'date';
  if (BUILT_IN_TIMES.has(id)) return 'time';
  if (id === 9 || id === 10) return 'percent';
  const code = custom.get(id);
  if (code === undefined) return 'number';
  // What is quoted, escaped or in brackets (colours, locales, elapsed time) is no token.
  const bare = code.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, '');
  if (bare.includes('%')) return 'percent';
  const time = /[hs]/i.test(bare);
  // m is a month, unless hours or seconds are beside it (then minutes).
  const date = /[dy]/i.test(bare) || (/m/i.test(bare) && !time);
  if (date) return time ? 'datetime' : 'date';
  return time ? 'time' : 'number';
}

const DAY_MS = 86_400_000;
/** Day 0 of the 1900 date system, as spreadsheets count it (the phantom 29 February 1900 included). */
const EPOCH = Date.UTC(1899, 11, 30);

function shown(value: string, as: Shown): string {
  const number = Number(value);
  if (!Number.isFinite(number)) return value;
  if (as === 'percent') return `${Number((number * 100).toPrecision(15))}%`;
  if (as === 'number') return String(Number(number.toPrecision(15)));
  const at = new Date(EPOCH + Math.round(number * DAY_MS));
  const iso = at.toISOString();
  const seconds = iso.slice(17, 19) !== '00';
  const time = seconds ? iso.slice(11, 19) : iso.slice(11, 16);
  if (as === 'time') return time;
  return as === 'datetime' ? `${iso.slice(0, 10)} ${time}` : iso.slice(0, 10);
}

/** `B7` -> 1 (columns from 0). */
function columnOf(reference: string | undefined, fallback: number): number {
  const letters = /^[A-Z]+/i.exec(reference ?? '')?.[0];
  if (!letters) return fallback;
  let column = 0;
  for (const letter of letters.toUpperCase()) column = column * 26 + (letter.charCodeAt(0) - 64);
  return column - 1;
}

/** The rows of one sheet up to the limits, and how much more there was. */
async function readSheet(
  archive: Archive,
  entry: yauzl.Entry,
  styles: readonly Shown[],
  check: () => void,
): Promise<{ rows: Cell[][]; more: { rows?: number | true; columns?: number } }> {
  const rows: Cell[][] = [];
  let declaredRows: number | undefined;
  let widest = 0;
  let cut = false;
  let rowIndex = -1;
  let cell: { column: number; type: string; style: number; text: string; inRuby: boolean } | undefined;
  let reading: 'v' | 't' | undefined;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const tag = local(name);
        if (tag === 'dimension') {
          const last = /:[A-Z]+(\d+)$/i.exec(attributes.ref ?? '')?.[1];
          if (last) declaredRows = Number(last);
        } else if (tag === 'row') {
          rowIndex = attributes.r ? Number(attributes.r) - 1 : rowIndex + 1;
        } else if (tag === 'c') {
          const row = rows.at(-1);
          const column = columnOf(attributes.r, row ? row.length : 0);
          cell = { column, type: attributes.t ?? 'n', style: Number(attributes.s ?? 0), text: '', inRuby: false };
        } else if (cell && tag === 'v') reading = 'v';
        else if (cell && tag === 't' && !cell.inRuby) reading = 't';
        else if (cell && tag === 'rPh') cell.inRuby = true;
      },
      ontext(text) {
        if (cell && reading) cell.text += text;
      },
      onclosetag(name) {
        const tag = local(name);
        if (tag === 'v' || tag === 't') reading = undefined;
        else if (tag === 'rPh' && cell) cell.inRuby = false;
        else if (tag === 'c' && cell) {
          const { column } = cell;
          const value = cellValue(cell);
          cell = undefined;
          if (value === '') return;
          const current = cellsAt(rowIndex);
          if (!current) return;
          widest = Math.max(widest, column + 1);
          if (column < MAX_SHEET_COLUMNS) {
            while (current.length < column) current.push('');
            current[column] = value;
          }
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  /** The row a value goes in, blank rows before it filled; none past the row limit (the sheet is cut there). */
  const cellsAt = (index: number): Cell[] | undefined => {
    if (index >= MAX_SHEET_ROWS) {
      cut = true;
      return undefined;
    }
    while (rows.length <= index) rows.push([]);
    return rows[index];
  };
  const cellValue = (c: NonNullable<typeof cell>): Cell | '' => {
    const text = c.text;
    switch (c.type) {
      case 's':
        return text.trim() === '' ? '' : { shared: Number(text) };
      case 'b':
        return text === '1' ? 'TRUE' : text === '0' ? 'FALSE' : text;
      case 'str':
      case 'inlineStr':
      case 'e':
      case 'd':
        return text.replace(/\s+/g, ' ').trim();
      default:
        return text === '' ? '' : shown(text, styles[c.style] ?? 'number');
    }
  };
  await archive.stream(
    entry,
    (text) => {
      parser.write(text);
      return !cut;
    },
    check,
  );
  if (!cut) parser.end();
  const more: { rows?: number | true; columns?: number } = {};
  if (cut) more.rows = declaredRows && declaredRows > MAX_SHEET_ROWS ? declaredRows : true;
  if (widest > MAX_SHEET_COLUMNS) more.columns = widest;
  return { rows, more };
}

/** The shared strings of these indices (a string's rich runs joined, its phonetic runs left out). */
async function sharedStrings(archive: Archive, wanted: ReadonlySet<number>, check: () => void): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  const entry = archive.entries.get('xl/sharedStrings.xml');
  if (!entry) return found;
  const last = Math.max(...wanted);
  let index = -1;
  let text: string | undefined;
  let inRuby = false;
  let reading = false;
  const parser = new Parser(
    {
      onopentag(name) {
        const tag = local(name);
        if (tag === 'si') {
          index++;
          text = wanted.has(index) ? '' : undefined;
        } else if (tag === 'rPh') inRuby = true;
        else if (tag === 't' && !inRuby) reading = text !== undefined;
      },
      ontext(chunk) {
        if (reading && text !== undefined) text += chunk;
      },
      onclosetag(name) {
        const tag = local(name);
        if (tag === 't') reading = false;
        else if (tag === 'rPh') inRuby = false;
        else if (tag === 'si' && text !== undefined) {
          found.set(index, text.replace(/\s+/g, ' ').trim());
          text = undefined;
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  await archive.stream(
    entry,
    (chunk) => {
      parser.write(chunk);
      return index <= last;
    },
    check,
  );
  return found;
}
