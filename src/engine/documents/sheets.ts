/**
 * A workbook as LibreOffice writes it in HTML (an index of links, then per sheet an
 * `<h1>Sheet N: <em>NAME</em></h1>` and its table, empty cells as `<td><br></td>`) becomes what
 * a reader of markdown expects: one `## NAME` section per sheet, its first row the table's
 * header, empty cells empty, and no more rows and columns than a page of markdown can carry.
 */
import render from 'dom-serializer';
import { type AnyNode, type Element, Text } from 'domhandler';
import { findAll, isTag, textContent } from 'domutils';
import { parseHtml } from '../content/parse-html.js';

/** Past these a sheet is cut, with a warning: a table of a million rows is no page to read or diff. */
export const MAX_SHEET_ROWS = 5_000;
export const MAX_SHEET_COLUMNS = 200;

export interface Workbook {
  html: string;
  sheets: number;
  warnings: string[];
}

const SHEET_HEADING = /^Sheet \d+:\s*/;
export const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const cellsOf = (row: Element) => row.children.filter((cell): cell is Element => isTag(cell) && (cell.name === 'td' || cell.name === 'th'));

/** A cell's content without LibreOffice's styling: its text, and its links kept as links. */
function cellHtml(cell: Element): string {
  const links = findAll((element) => element.name === 'a' && Boolean(element.attribs.href), cell.children);
  const text = escapeHtml(textContent(cell).replace(/\s+/g, ' ').trim());
  if (links.length === 1 && textContent(links[0]!).trim()) return `<a href="${escapeHtml(links[0]!.attribs.href!)}">${text}</a>`;
  return text;
}

/** The rows of one sheet as a table of at most the limits, trailing empty rows and columns dropped. */
function sheetTable(table: Element, name: string, warnings: string[]): string {
  return rowsTable(
    findAll((element) => element.name === 'tr', [table]).map((row) => cellsOf(row).map(cellHtml)),
    name,
    warnings,
  );
}

/**
 * Rows of cells (their HTML) as a table of at most the limits, the first row its header,
 * trailing empty rows and columns dropped. A reader that stopped early says how much there
 * was: `more.rows` (a count, or true when it is not known) and `more.columns`.
 */
export function rowsTable(cells: string[][], name: string, warnings: string[], more: { rows?: number | true; columns?: number } = {}): string {
  let rows = cells;
  while (rows.length > 0 && rows.at(-1)!.every((cell) => cell === '')) rows.pop();
  if (rows.length === 0) return '';
  let width = Math.max(more.columns ?? 0, ...rows.map((row) => row.reduce((last, cell, index) => (cell ? index + 1 : last), 0)));
  if (rows.length > MAX_SHEET_ROWS || more.rows !== undefined) {
    const count = more.rows === true ? `more than ${MAX_SHEET_ROWS.toLocaleString('en')}` : (more.rows ?? rows.length).toLocaleString('en');
    warnings.push(`sheet "${name}" has ${count} rows: only the first ${MAX_SHEET_ROWS.toLocaleString('en')} were read`);
    rows = rows.slice(0, MAX_SHEET_ROWS);
  }
  if (width > MAX_SHEET_COLUMNS) {
    warnings.push(`sheet "${name}" has ${width.toLocaleString('en')} columns: only the first ${MAX_SHEET_COLUMNS} were read`);
    width = MAX_SHEET_COLUMNS;
  }
  const line = (row: string[], tag: 'th' | 'td') => `<tr>${Array.from({ length: width }, (_, index) => `<${tag}>${row[index] ?? ''}</${tag}>`).join('')}</tr>`;
  const [head, ...body] = rows;
  return `<table><thead>${line(head!, 'th')}</thead><tbody>${body.map((row) => line(row, 'td')).join('')}</tbody></table>`;
}

/** LibreOffice's HTML of a workbook as sections of sheets. */
export function workbookHtml(converted: string): Workbook {
  const { document } = parseHtml(converted);
  const warnings: string[] = [];
  const sections: string[] = [];
  let name: string | undefined;
  let count = 0;
  const visit = (nodes: AnyNode[]) => {
    for (const node of nodes) {
      if (!isTag(node)) continue;
      if (node.name === 'h1' && SHEET_HEADING.test(textContent(node).trim())) {
        name = textContent(node).trim().replace(SHEET_HEADING, '');
        continue;
      }
      if (node.name === 'table') {
        count++;
        const sheet = name ?? `Sheet ${count}`;
        sections.push(`<h2>${escapeHtml(sheet)}</h2>${sheetTable(node, sheet, warnings)}`);
        name = undefined;
        continue;
      }
      // The index of sheets at the top links within the file: not content.
      if (node.name === 'center') continue;
      visit(node.children);
    }
  };
  visit(document.children);
  const title = findAll((element) => element.name === 'title', document.children)[0];
  const head = findAll((element) => element.name === 'head', document.children)[0];
  if (title && !textContent(title).trim()) title.children = [new Text('')];
  return { html: `<html>${head ? render(head) : ''}<body>${sections.join('\n')}</body></html>`, sheets: count, warnings };
}
