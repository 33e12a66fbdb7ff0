/**
 * A page as positioned words, lines and blocks in reading order, whatever read it: poppler's
 * text layer (`pdftotext -tsv`) or tesseract's OCR (`tesseract ... tsv`). Both tools write the
 * same TSV (level, page, two grouping numbers, line, word, box, confidence, text), so one
 * reader makes the same shape of both, and one pass (markdown.ts) turns either into markdown.
 */

/** A box in PDF points, origin top left. */
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface Word extends Box {
  text: string;
  /** OCR confidence 0..1; null for the text layer. */
  confidence: number | null;
}

export interface Line extends Box {
  words: Word[];
  /** The size of its type in points, when the reader measured it (tesseract's x_size). */
  size?: number;
}

export interface TextBlock extends Box {
  /** Blocks of one flow read on from each other (a column, a region). */
  flow: number;
  lines: Line[];
}

export interface PageLayout {
  pageNumber: number;
  width: number;
  height: number;
  source: 'text' | 'ocr';
  blocks: TextBlock[];
}

/**
 * The pages of a TSV of `pdftotext -tsv` (source `text`, in points) or of tesseract (source
 * `ocr`, in pixels of an image of `dpi`). Level 1 rows are pages, 5 words; the third and fourth
 * columns group words: poppler's flow and block, tesseract's block and paragraph. Marks that
 * OCR reads with little confidence and that hold no letter or digit (rules, specks) are left out.
 */
export function parseLayoutTsv(tsv: string, source: 'text' | 'ocr', dpi = 72, lineSizes: readonly number[] = []): PageLayout[] {
  const scale = 72 / dpi;
  const pages: PageLayout[] = [];
  let page: PageLayout | undefined;
  let block: TextBlock | undefined;
  let line: Line | undefined;
  let blockKey = '';
  let lineKey = '';
  // Line rows (level 4) are counted: the n-th is the n-th of `lineSizes`.
  let lineIndex = -1;
  // Rows come in reading order, a block's and a line's words one after another, so a change
  // of the grouping numbers starts the next block or line. Fields are cut by hand: a large
  // PDF has hundreds of thousands of rows.
  const fields: string[] = new Array(12);
  for (let start = 0; start < tsv.length; ) {
    let end = tsv.indexOf('\n', start);
    if (end < 0) end = tsv.length;
    const level = tsv.charCodeAt(start);
    if (level === 52 && tsv.charCodeAt(start + 1) === 9) lineIndex++; // '4', then a tab
    const isRow = tsv.charCodeAt(start + 1) === 9 && (level === 49 || level === 53); // '1' or '5', then a tab
    if (isRow) {
      let at = start;
      let count = 0;
      for (; count < 11; count++) {
        const tab = tsv.indexOf('\t', at);
        if (tab < 0 || tab > end) break;
        fields[count] = tsv.slice(at, tab);
        at = tab + 1;
      }
      fields[11] = tsv.slice(at, end);
      if (count === 11) {
        if (level === 49) {
          page = { pageNumber: Number(fields[1]), width: Number(fields[8]) * scale, height: Number(fields[9]) * scale, source, blocks: [] };
          pages.push(page);
          blockKey = lineKey = '';
        } else if (page) readWord(page);
      }
    }
    start = end + 1;
  }
  for (const each of pages) {
    for (const b of each.blocks) b.lines = joinSplitLines(b.lines);
    // OCR's blocks are tidied first (tidyOcr), in tesseract's order, and ordered after.
    if (source === 'text') each.blocks = readingOrder(each.blocks);
  }
  return pages;

  function readWord(into: PageLayout): void {
    const text = fields[11]!.trim();
    const confidence = source === 'ocr' ? Math.max(0, Number(fields[10])) / 100 : null;
    if (!text || (confidence !== null && (TABLE_RULE.test(text) || (confidence < 0.5 && !/[\p{L}\p{N}]/u.test(text))))) return;
    const left = Number(fields[6]);
    const top = Number(fields[7]);
    const word: Word = { x0: left * scale, y0: top * scale, x1: (left + Number(fields[8])) * scale, y1: (top + Number(fields[9])) * scale, text, confidence };
    const key = `${fields[2]}.${fields[3]}`;
    if (!block || key !== blockKey) {
      block = { x0: word.x0, y0: word.y0, x1: word.x1, y1: word.y1, flow: Number(fields[2]), lines: [] };
      into.blocks.push(block);
      blockKey = key;
      lineKey = '';
    }
    if (!line || fields[4] !== lineKey) {
      line = { x0: word.x0, y0: word.y0, x1: word.x1, y1: word.y1, words: [] };
      const size = lineSizes[lineIndex];
      if (size !== undefined) line.size = size * scale;
      block.lines.push(line);
      lineKey = fields[4]!;
    }
    line.words.push(word);
    grow(line, word);
    grow(block, word);
  }
}

/**
 * Blocks in reading order by recursive cuts along the white space between them: a vertical
 * gutter that no block crosses splits a region into columns, read left to right (a gutter wins
 * over a horizontal gap, so paragraphs of a column stay together even when the paragraph gaps
 * of neighbouring columns line up); else a horizontal gap splits it into bands, read top to
 * bottom. A region that neither can cut keeps the tool's own order.
 */
export function readingOrder<T extends Box>(blocks: readonly T[]): T[] {
  if (blocks.length <= 1) return [...blocks];
  const split = (region: readonly T[], start: (b: T) => number, end: (b: T) => number): T[][] | undefined => {
    const sorted = [...region].sort((a, b) => start(a) - start(b));
    const groups: T[][] = [[sorted[0]!]];
    let reach = end(sorted[0]!);
    for (const block of sorted.slice(1)) {
      if (start(block) >= reach) groups.push([block]);
      else groups[groups.length - 1]!.push(block);
      reach = Math.max(reach, end(block));
    }
    return groups.length > 1 ? groups : undefined;
  };
  const columns = (region: readonly T[]) =>
    split(
      region,
      (b) => b.x0,
      (b) => b.x1,
    );
  let groups = columns(blocks);
  if (!groups) {
    // Bands that are both cut into columns and still are together are one multi-column region
    // whose paragraph gaps happen to line up: they are read column by column, not band by band.
    const bands = split(
      blocks,
      (b) => b.y0,
      (b) => b.y1,
    );
    if (!bands) return [...blocks];
    groups = [bands[0]!];
    for (const band of bands.slice(1)) {
      const last = groups[groups.length - 1]!;
      if (columns(last) && columns(band) && columns([...last, ...band])) groups[groups.length - 1] = [...last, ...band];
      else groups.push(band);
    }
  }
  // Each group keeps the tool's order among its own blocks until it is cut further.
  const rank = new Map(blocks.map((block, index) => [block, index]));
  if (groups.length === 1) return [...blocks];
  return groups.flatMap((group) => readingOrder(group.sort((a, b) => rank.get(a)! - rank.get(b)!)));
}

/**
 * One printed line that poppler cut in pieces (the wide gaps of justified text do that) is one
 * line again: pieces side by side at the same height join, left to right.
 */
function joinSplitLines(lines: Line[]): Line[] {
  const joined: Line[] = [];
  for (const line of lines) {
    const previous = joined[joined.length - 1];
    const overlap = previous ? Math.min(previous.y1, line.y1) - Math.max(previous.y0, line.y0) : 0;
    if (previous && overlap >= 0.5 * Math.min(previous.y1 - previous.y0, line.y1 - line.y0) && line.x0 >= previous.x1) {
      previous.words.push(...line.words);
      grow(previous, line);
    } else joined.push(line);
  }
  return joined;
}

/**
 * The type size of each line of tesseract's hOCR, in its order, as the height of a text
 * layer's line box would be: tesseract's x-height (x_size less its ascender and descender
 * parts, steady whether or not a line has letters that reach up or down) times 2.2, about
 * the ratio of a font's line box to its x-height.
 */
export function hocrLineSizes(hocr: string): number[] {
  const lines = hocr.matchAll(/class='ocr_(?:line|header|caption|textfloat)'[^>]*?x_size ([\d.]+); x_descenders ([\d.]+); x_ascenders ([\d.]+)/g);
  return [...lines].map((match) => (Number(match[1]) - Number(match[2]) - Number(match[3])) * 2.2);
}

/** What OCR makes of a table's rules. */
const TABLE_RULE = /^[|¦[\]_]+$/;
/** What OCR makes of a list's bullet: a lone mark like these, set apart from the words after it. */
const BULLET_READINGS = new Set(['e', 'o', '©', '°', '«', '»', '*', '+', '¢', '®', '•', '-', '—', '–', '.', '-', 'eo', 'oe']);

/**
 * Tidies what OCR read, then puts its blocks in reading order: bullets become `•`, so that lists read from a page image are lists;
 * a paragraph that follows another directly below, in the same column, with no more than a
 * line's leading between them, is part of it (tesseract splits a paragraph at a short last line).
 */
export function tidyOcr(pages: PageLayout[]): void {
  for (const page of pages) {
    const merged: TextBlock[] = [];
    for (const block of page.blocks) {
      const previous = merged[merged.length - 1];
      const last = previous?.lines[previous.lines.length - 1];
      const lineHeight = last ? last.y1 - last.y0 : 0;
      const below = previous && block.y0 >= previous.y1 - lineHeight * 0.2 && block.y0 - previous.y1 < lineHeight * 0.6;
      if (previous && last && below && Math.abs(block.x0 - previous.x0) < lineHeight && block.x1 <= previous.x1 + lineHeight) {
        previous.lines.push(...block.lines);
        grow(previous, block);
      } else merged.push(block);
    }
    page.blocks = readingOrder(merged);
    for (const block of page.blocks) {
      for (const line of block.lines) {
        const [first, second] = line.words;
        if (!first || !second || !BULLET_READINGS.has(first.text)) continue;
        if (second.x0 - first.x1 > (line.y1 - line.y0) * 0.4) first.text = '•';
      }
    }
  }
}

function grow(target: Box, by: Box): void {
  target.x0 = Math.min(target.x0, by.x0);
  target.y0 = Math.min(target.y0, by.y0);
  target.x1 = Math.max(target.x1, by.x1);
  target.y1 = Math.max(target.y1, by.y1);
}
