/**
 * Positioned text (layout.ts) to markdown and typed blocks. What a PDF's layout shows is all
 * there is: headings are lines set clearly larger than the body text, lists are lines led by a
 * bullet or number or indented lines that break early, tables are rows of short cells that line
 * up in columns, and a lone page number at the top or bottom of a page is furniture, not text.
 */
import type { Box, Line, PageLayout, TextBlock, Word } from './layout.js';

export type BlockType = 'title' | 'section_header' | 'text' | 'list_item' | 'table' | 'page_header' | 'page_footer';

export interface LaidOutItem {
  type: BlockType;
  /** Heading level (`h1`..`h3`) or list kind (`ordered`, `unordered`); null otherwise. */
  label: string | null;
  box: Box;
  /** The item's markdown; empty for page furniture, which the markdown leaves out. */
  markdown: string;
  text: string;
  /** How sure the reading of the item's type is (0..1): a fixed figure per rule that found it. */
  layoutConfidence: number;
  /** Mean OCR confidence of its words; null for the text layer. */
  ocrConfidence: number | null;
}

export interface LaidOutPage {
  pageNumber: number;
  width: number;
  height: number;
  source: 'text' | 'ocr';
  items: LaidOutItem[];
  markdown: string;
}

const BULLET = /^[•◦▪▫‣⁃∙●○■□◆◇►▸–—*-]\s+/u;
const NUMBERED = /^(\d{1,3}|[a-z])[.)]\s+/;
const PAGE_NUMBER = /^(page\s+)?\d{1,5}(\s*(of|\/)\s*\d{1,5})?$/i;

const height = (box: Box) => box.y1 - box.y0;

/**
 * The size of a line's type: the text layer's line box is the font's; OCR's is the ink, so
 * tesseract's own estimate (x_size) is taken when there is one.
 */
const typeSize = (line: Line) => line.size ?? height(line);
const lineText = (line: Line) => line.words.map((word) => word.text).join(' ');
const wordCount = (lines: readonly Line[]) => lines.reduce((sum, line) => sum + line.words.length, 0);

/** The height of a line of body text: the median line height, each line weighted by its words. */
export function bodyLineHeight(pages: readonly PageLayout[]): number {
  const heights: [number, number][] = [];
  for (const page of pages) for (const block of page.blocks) for (const line of block.lines) heights.push([typeSize(line), line.words.length]);
  if (heights.length === 0) return 12;
  heights.sort((a, b) => a[0] - b[0]);
  const half = heights.reduce((sum, [, weight]) => sum + weight, 0) / 2;
  let seen = 0;
  for (const [value, weight] of heights) {
    seen += weight;
    if (seen >= half) return value;
  }
  return heights[heights.length - 1]![0];
}

/** Backslash-escapes what markdown would read as markup; `atLineStart` also block markers. */
export function escapeMarkdown(text: string, atLineStart = true): string {
  let escaped = text.replace(/[\\`*[\]<>]/g, '\\$&').replace(/(^|[^\p{L}\p{N}])_|_(?=$|[^\p{L}\p{N}])/gu, (match) => match.replace('_', '\\_'));
  if (atLineStart)
    escaped = escaped.replace(/^(#{1,6}(?=\s|$)|[-+](?=\s)|=+$|\d{1,9}(?=[.)]\s))/, (marker) => (/^\d/.test(marker) ? `${marker}\\` : `\\${marker}`));
  return escaped;
}

/**
 * Lines of one block as one paragraph. A line that ends in a hyphen joins the next without a
 * space and keeps its hyphen: whether it split a word (re-viewed) or was part of one
 * (non-software) cannot be told without a dictionary, and keeping it loses no letter.
 */
function joinLines(lines: readonly Line[], escaped: boolean): string {
  let out = '';
  lines.forEach((line, index) => {
    const text = lineText(line);
    const shown = escaped ? escapeMarkdown(text, index === 0) : text;
    if (index === 0) out = shown;
    else if (/\p{L}-$/u.test(out) && /^\p{Ll}/u.test(text)) out += shown;
    else out += ` ${shown}`;
  });
  return out;
}

/** Whether `line` ended only because the next line's first word did not fit on it. */
function wrapped(line: Line, next: Line, rightEdge: number): boolean {
  const first = next.words[0]!;
  const space = Math.max(height(line) * 0.3, 1);
  return line.x1 + space + (first.x1 - first.x0) > rightEdge - height(line) * 0.5;
}

function meanConfidence(lines: readonly Line[]): number | null {
  if (lines[0]?.words[0]?.confidence === null) return null;
  const words = lines.flatMap((line) => line.words);
  const scored = words.filter((word): word is Word & { confidence: number } => word.confidence !== null);
  if (scored.length === 0) return null;
  return round(scored.reduce((sum, word) => sum + word.confidence, 0) / scored.length, 3);
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

function unionBox(boxes: readonly Box[]): Box {
  return {
    x0: Math.min(...boxes.map((b) => b.x0)),
    y0: Math.min(...boxes.map((b) => b.y0)),
    x1: Math.max(...boxes.map((b) => b.x1)),
    y1: Math.max(...boxes.map((b) => b.y1)),
  };
}

interface Table {
  rows: string[][];
  lines: Set<Line>;
  box: Box;
}

/** Words of a line cut where the gap between two words is wider than a column gap. */
function cells(line: Line): Word[][] {
  const gap = height(line) * 0.5;
  const out: Word[][] = [[line.words[0]!]];
  for (let i = 1; i < line.words.length; i++) {
    const word = line.words[i]!;
    // A bullet set apart from its item is not a cell of its own.
    const afterBullet = i === 1 && /^[•◦▪●○■-]$/u.test(line.words[0]!.text);
    if (word.x0 - line.words[i - 1]!.x1 > gap && !afterBullet) out.push([word]);
    else out[out.length - 1]!.push(word);
  }
  return out;
}

/**
 * A block of running text: three lines or more of three words or more on average. Table cells
 * that poppler or tesseract group into one block hold a word or two a line; text does not, and
 * the wide gaps of justified text in narrow columns must not read as table columns.
 */
const isProse = (block: TextBlock) => block.lines.length >= 3 && wordCount(block.lines) / block.lines.length >= 3;

/**
 * Tables of a page: runs of two rows or more, each of two cells or more, cells short (six words
 * at most on average) and lined up with the columns of the row with the most cells, rows made
 * of lines at the same height across the page's blocks; lines of wrapped prose never take part.
 */
function findTables(page: PageLayout): Table[] {
  const candidates = page.blocks.filter((block) => !isProse(block)).flatMap((block) => block.lines);
  candidates.sort((a, b) => (a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2);
  const rows: { lines: Line[]; box: Box }[] = [];
  for (const line of candidates) {
    const row = rows[rows.length - 1];
    const overlap = row ? Math.min(row.box.y1, line.y1) - Math.max(row.box.y0, line.y0) : 0;
    if (row && overlap >= 0.5 * Math.min(height(row.box), height(line))) {
      row.lines.push(line);
      row.box = unionBox([row.box, line]);
    } else rows.push({ lines: [line], box: { ...line } });
  }
  const tables: Table[] = [];
  let run: { cells: Word[][]; lines: Line[] }[] = [];
  const close = () => {
    const table = tableOf(run);
    if (table) tables.push(table);
    run = [];
  };
  for (const row of rows) {
    const rowCells = row.lines.flatMap(cells).sort((a, b) => a[0]!.x0 - b[0]!.x0);
    if (rowCells.length >= 2) run.push({ cells: rowCells, lines: row.lines });
    else close();
  }
  close();
  return tables;
}

function tableOf(run: { cells: Word[][]; lines: Line[] }[]): Table | undefined {
  if (run.length < 2) return undefined;
  const allCells = run.flatMap((row) => row.cells);
  if (allCells.reduce((sum, cell) => sum + cell.length, 0) / allCells.length > 6) return undefined;
  const template = run.reduce((best, row) => (row.cells.length > best.cells.length ? row : best));
  // Cells of a table line up with cells of other rows (left, right or centre); the gaps of
  // justified text do not. Each row is compared with its neighbours only, so that a long table costs little.
  const tolerance = height(template.lines[0]!) * 0.5;
  const spans = run.map((row) => row.cells.map((cell) => [cell[0]!.x0, cell[cell.length - 1]!.x1] as const));
  let aligned = 0;
  let total = 0;
  spans.forEach((row, r) => {
    for (const [x0, x1] of row) {
      total++;
      const near = spans
        .slice(Math.max(0, r - 8), r + 9)
        .filter((other) => other !== row)
        .flat();
      if (
        near.some(([left, right]) => Math.abs(x0 - left) <= tolerance || Math.abs(x1 - right) <= tolerance || Math.abs(x0 + x1 - left - right) <= 2 * tolerance)
      )
        aligned++;
    }
  });
  if (aligned < total * 0.8) return undefined;
  const starts = template.cells.map((cell) => cell[0]!.x0);
  const columnOf = (cell: Word[]) => {
    const center = (cell[0]!.x0 + cell[cell.length - 1]!.x1) / 2;
    let column = 0;
    for (let i = 1; i < starts.length; i++) if (center >= starts[i]! - 2) column = i;
    return column;
  };
  const rows = run.map((row) => {
    const texts = starts.map(() => [] as string[]);
    for (const cell of row.cells) texts[columnOf(cell)]!.push(cell.map((word) => word.text).join(' '));
    return texts.map((parts) => parts.join(' '));
  });
  const lines = run.flatMap((row) => row.lines);
  return { rows, lines: new Set(lines), box: unionBox(lines) };
}

function tableMarkdown(rows: readonly string[][]): string {
  const cell = (text: string) => escapeMarkdown(text, false).replace(/\|/g, '\\|');
  const line = (row: readonly string[]) => `| ${row.map(cell).join(' | ')} |`;
  return [line(rows[0]!), `| ${rows[0]!.map(() => '---').join(' | ')} |`, ...rows.slice(1).map(line)].join('\n');
}

/** Lays out one page; `titleSeen` carries across pages so that one heading is the title. */
export function layOutPage(page: PageLayout, bodyHeight: number, state: { titleSeen: boolean }): LaidOutPage {
  const tables = findTables(page);
  const tableOfLine = new Map<Line, Table>();
  for (const table of tables) for (const line of table.lines) tableOfLine.set(line, table);
  const emitted = new Set<Table>();
  const items: LaidOutItem[] = [];
  const flowLeft = new Map<number, number>();
  for (const block of page.blocks) flowLeft.set(block.flow, Math.min(flowLeft.get(block.flow) ?? Infinity, block.x0));
  // Where the column of a block ends: the furthest right any block reaches that starts at or
  // left of it and runs past its start (so a two-column page keeps two right edges).
  const rightEdge = (block: TextBlock) => Math.max(...page.blocks.filter((b) => b.x0 <= block.x0 + bodyHeight && b.x1 > block.x0).map((b) => b.x1));

  for (const block of page.blocks) {
    let run: Line[] = [];
    const flush = () => {
      if (run.length > 0) items.push(...classify(run, block, page, bodyHeight, { left: flowLeft.get(block.flow)!, right: rightEdge(block) }, state));
      run = [];
    };
    for (const line of block.lines) {
      const table = tableOfLine.get(line);
      if (!table) {
        run.push(line);
        continue;
      }
      flush();
      if (emitted.has(table)) continue;
      emitted.add(table);
      const tableLines = [...table.lines];
      items.push({
        type: 'table',
        label: null,
        box: table.box,
        markdown: tableMarkdown(table.rows),
        text: table.rows.map((row) => row.join('\t')).join('\n'),
        layoutConfidence: 0.7,
        ocrConfidence: meanConfidence(tableLines),
      });
    }
    flush();
  }
  const markdown = itemsMarkdown(items);
  return { pageNumber: page.pageNumber, width: page.width, height: page.height, source: page.source, items, markdown };
}

/** Items' markdown in order: blank lines between blocks, one line break between items of one list. */
export function itemsMarkdown(items: readonly LaidOutItem[]): string {
  let out = '';
  let previous: LaidOutItem | undefined;
  for (const item of items) {
    if (item.markdown === '') continue;
    if (previous) out += previous.type === 'list_item' && item.type === 'list_item' && previous.label === item.label ? '\n' : '\n\n';
    out += item.markdown;
    previous = item;
  }
  return out;
}

function classify(
  lines: Line[],
  block: TextBlock,
  page: PageLayout,
  bodyHeight: number,
  flow: { left: number; right: number },
  state: { titleSeen: boolean },
): LaidOutItem[] {
  const box = unionBox(lines);
  const text = joinLines(lines, false);
  const ocrConfidence = meanConfidence(lines);
  const item = (type: BlockType, label: string | null, markdown: string, layoutConfidence: number, itemLines = lines): LaidOutItem => ({
    type,
    label,
    box: itemLines === lines ? box : unionBox(itemLines),
    markdown,
    text: itemLines === lines ? text : joinLines(itemLines, false),
    layoutConfidence,
    ocrConfidence: itemLines === lines ? ocrConfidence : meanConfidence(itemLines),
  });

  // A lone page number near the top or bottom edge.
  if (lines.length === 1 && PAGE_NUMBER.test(text.trim())) {
    if (box.y1 > page.height * 0.92) return [item('page_footer', null, '', 0.8)];
    if (box.y0 < page.height * 0.06) return [item('page_header', null, '', 0.8)];
  }

  const sizes = lines.map(typeSize).sort((a, b) => a - b);
  const ratio = sizes[Math.floor(sizes.length / 2)]! / bodyHeight;
  if (lines.length <= 3 && wordCount(lines) <= 24 && ratio >= 1.12) {
    const level = ratio >= 1.75 ? 1 : ratio >= 1.3 ? 2 : 3;
    const type = level === 1 && !state.titleSeen ? 'title' : 'section_header';
    if (type === 'title') state.titleSeen = true;
    const heading = lines.map(lineText).join(' ');
    return [item(type, `h${level}`, `${'#'.repeat(level)} ${escapeMarkdown(heading, false)}`, ratio >= 1.3 ? 0.85 : 0.65)];
  }

  // Lists: items led by a bullet or a number, or an indented block whose lines break early.
  const marked = lines.map((line) => BULLET.test(lineText(line)) || NUMBERED.test(lineText(line)));
  if (marked[0]) {
    const groups: Line[][] = [];
    lines.forEach((line, index) => (marked[index] || groups.length === 0 ? groups.push([line]) : groups[groups.length - 1]!.push(line)));
    return groups.map((group) => {
      const first = lineText(group[0]!);
      const ordered = NUMBERED.exec(first);
      const body = joinLines(group, true).replace(ordered ? /^\S+?\\?[.)]\s+/ : /^\\?\S\s+/u, '');
      return item('list_item', ordered ? 'ordered' : 'unordered', `${ordered ? `${ordered[1]}.` : '-'} ${body}`, 0.9, group);
    });
  }
  // Indented within its flow, or a flow of its own in the left half that starts right of the margin.
  const indented =
    block.x0 - flow.left >= bodyHeight * 1.2 || (flow.left === block.x0 && block.x0 < page.width / 2 && block.x0 - leftMargin(page) >= bodyHeight * 1.2);
  if (indented && lines.length >= 2) {
    const groups: Line[][] = [[lines[0]!]];
    for (let i = 1; i < lines.length; i++) {
      if (wrapped(lines[i - 1]!, lines[i]!, flow.right)) groups[groups.length - 1]!.push(lines[i]!);
      else groups.push([lines[i]!]);
    }
    if (groups.length >= 2) return groups.map((group) => item('list_item', 'unordered', `- ${joinLines(group, true)}`, 0.6, group));
  }
  return [item('text', null, joinLines(lines, true), 0.9)];
}

/** The left edge most lines of the page start at. */
function leftMargin(page: PageLayout): number {
  const counts = new Map<number, number>();
  for (const block of page.blocks) for (const line of block.lines) counts.set(Math.round(line.x0), (counts.get(Math.round(line.x0)) ?? 0) + line.words.length);
  let best = 0;
  let most = -1;
  for (const [x, count] of counts) if (count > most || (count === most && x < best)) [best, most] = [x, count];
  return best;
}
