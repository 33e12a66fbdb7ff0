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
export function parseLayoutTsv(tsv: string, source: 'text' | 'ocr', dpi = 72): PageLayout[] {
  const scale = 72 / dpi;
  const pages: PageLayout[] = [];
  let page: PageLayout | undefined;
  let blocks = new Map<string, TextBlock>();
  let lines = new Map<string, Line>();
  for (const row of tsv.split('\n')) {
    const cells = row.split('\t');
    if (cells.length < 12) continue;
    const level = cells[0];
    const [pageNumber, group, subgroup, lineNumber] = cells.slice(1, 5).map(Number) as [number, number, number, number];
    const [left, top, width, height, conf] = cells.slice(6, 11).map(Number) as [number, number, number, number, number];
    if (level === '1') {
      page = { pageNumber, width: width * scale, height: height * scale, source, blocks: [] };
      pages.push(page);
      blocks = new Map();
      lines = new Map();
      continue;
    }
    if (level !== '5' || !page) continue;
    const text = cells.slice(11).join('\t').trim();
    const confidence = source === 'ocr' ? Math.max(0, conf) / 100 : null;
    if (!text || (confidence !== null && confidence < 0.5 && !/[\p{L}\p{N}]/u.test(text))) continue;
    const wordBox = { x0: left * scale, y0: top * scale, x1: (left + width) * scale, y1: (top + height) * scale };
    const blockKey = `${group}.${subgroup}`;
    let block = blocks.get(blockKey);
    if (!block) {
      block = { ...wordBox, flow: group, lines: [] };
      blocks.set(blockKey, block);
      page.blocks.push(block);
    }
    const lineKey = `${blockKey}.${lineNumber}`;
    let line = lines.get(lineKey);
    if (!line) {
      line = { ...wordBox, words: [] };
      lines.set(lineKey, line);
      block.lines.push(line);
    }
    line.words.push({ ...wordBox, text, confidence });
    grow(line, wordBox);
    grow(block, wordBox);
  }
  return pages;
}

function grow(target: Box, by: Box): void {
  target.x0 = Math.min(target.x0, by.x0);
  target.y0 = Math.min(target.y0, by.y0);
  target.x1 = Math.max(target.x1, by.x1);
  target.y1 = Math.max(target.y1, by.y1);
}
