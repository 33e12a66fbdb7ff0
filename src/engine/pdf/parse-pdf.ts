/**
 * A PDF to markdown, pages and typed blocks (spec §2.7 `parsers`). The text layer is read by
 * poppler's `pdftotext -tsv` (words with boxes in poppler's reading order, which follows
 * columns); pages are read by OCR by rendering them with `pdftoppm` and reading them with
 * `tesseract`. Poppler was measured against pdf.js (and unpdf) and mupdf: it reads faster than
 * pdf.js with better word recall, and mupdf's licence (AGPL) does not fit webwatch (bench/README).
 */
import { inParallel } from '../../lib/in-parallel.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { PDF_MAX_PAGES_MAX } from '../../spec/limits.js';
import { hasPdfSignature } from './detect.js';
import { hocrLineSizes, parseLayoutTsv, tidyOcr, type PageLayout } from './layout.js';
import { bodyLineHeight, itemsMarkdown, layOutPage, type LaidOutPage } from './markdown.js';
import { eraseRules } from './rules.js';
import { ensureTimeFor } from './time-estimate.js';
import { findTool, runTool, ToolStopped, type PdfTool, type ToolLimits } from '../tools/child-tools.js';

export interface PdfParseOptions {
  mode: 'fast' | 'auto' | 'ocr';
  maxPages?: number;
  pageMarkers: boolean;
  /** Rewrites each block's markdown and text (PII redaction) before the pages are joined. */
  rewrite?: (text: string) => Promise<string>;
}

export interface PdfLimits {
  /** Epoch milliseconds: the scrape's own timeout. */
  deadline: number;
  signal?: AbortSignal;
  /** The timeout in milliseconds, for the message when it is reached. */
  timeoutMs: number;
}

export type { PdfBlockItem, PdfPageBlocks } from '../../contract/scrape.js';
import type { PdfBlockItem, PdfPageBlocks } from '../../contract/scrape.js';

export interface ParsedPdf {
  markdown: string;
  title?: string;
  /** Pages in the file. */
  numPages: number;
  /** Pages read (maxPages can stop earlier): the pages billed. */
  pagesParsed: number;
  pages: { pageNumber: number; markdown: string }[];
  blocks: PdfPageBlocks[];
  warnings: string[];
}

/** Bounds of each child: the memory a reasonable PDF needs many times over, and no more. */
const POPPLER_MEMORY_BYTES = 1024 ** 3;
const TESSERACT_MEMORY_BYTES = 1536 * 1024 ** 2;
const MAX_TEXT_OUTPUT_BYTES = 256 * 1024 ** 2;
/** pdftotext reads this many pages per run, so that one run's output stays small. */
const PAGES_PER_RUN = 100;
/** Resolution pages are rendered at for OCR: tesseract reads body text best around 300 dpi. */
export const OCR_DPI = 300;
/** The longest side of a page image for OCR (A4 at 300 dpi is 3508): bounds its memory. */
const MAX_OCR_IMAGE_PIXELS = 7000;
/** Rules (table borders, underlines) at least this long are erased before OCR. */
const RULE_MIN_INCHES = 0.4;
/** A page with fewer letters and digits than this in its text layer is read by OCR in `auto`. */
export const MIN_USABLE_CHARACTERS = 32;
const PAGE_MARKER = (page: number) => `\n\n---\n\n<!-- page ${page} -->\n\n`;

const unreadable = (why: string) => new WebwatchError(`the PDF cannot be read: ${why}`, { code: 'SCRAPE_PDF_UNREADABLE' });

/** The first error line a tool printed, without its prefix, for a message. */
function firstError(stderr: string): string {
  const line =
    stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => /error/i.test(l)) ??
    stderr.split('\n')[0]?.trim() ??
    '';
  return line.replace(/^(Syntax |Command Line |Internal |I\/O )?Error( \(\d+\))?:\s*/i, '').slice(0, 200) || 'no reason given';
}

/** Runs a tool for the PDF, turning every way it can fail into a clear WebwatchError. */
async function run(tool: PdfTool, args: string[], limits: PdfLimits, memoryBytes: number): Promise<{ stdout: Buffer; stderr: string }> {
  const toolLimits: ToolLimits = {
    deadline: limits.deadline,
    memoryBytes,
    maxOutputBytes: MAX_TEXT_OUTPUT_BYTES,
    ...(limits.signal && { signal: limits.signal }),
  };
  let result;
  try {
    result = await runTool(tool, args, toolLimits);
  } catch (error) {
    if (!(error instanceof ToolStopped)) throw error;
    if (error.reason === 'aborted') throw limits.signal?.reason ?? error;
    if (error.reason === 'deadline') {
      throw new WebwatchError(`reading the PDF took longer than the scrape's timeout (${limits.timeoutMs} ms)`, {
        status: 408,
        code: 'SCRAPE_TIMEOUT',
        suggestion: 'set a longer timeout, or read fewer pages with maxPages (OCR takes about a second a page)',
      });
    }
    throw new WebwatchError(`the PDF's text is larger than webwatch reads (${MAX_TEXT_OUTPUT_BYTES / 1024 ** 2} MiB from ${tool})`, {
      code: 'SCRAPE_PDF_TOO_COMPLEX',
      suggestion: 'read fewer pages with maxPages',
    });
  }
  const { code, stdout, stderr } = result;
  if (code === 0) return { stdout, stderr };
  if (/incorrect password/i.test(stderr)) {
    throw new WebwatchError('the PDF is encrypted and needs a password to open', { code: 'SCRAPE_PDF_ENCRYPTED' });
  }
  if (tool === 'tesseract' && /failed loading language|tessdata/i.test(stderr)) {
    throw new WebwatchError("OCR needs tesseract's English data, and it is not installed", {
      status: 501,
      code: 'PDF_TOOLS_NOT_FOUND',
      suggestion: 'apt-get install tesseract-ocr-eng',
    });
  }
  if (code === null || /out of memory|bad_alloc|cannot allocate/i.test(stderr)) {
    throw new WebwatchError(`the PDF needs more memory than webwatch allows ${tool} (${Math.round(memoryBytes / 1024 ** 2)} MiB)`, {
      code: 'SCRAPE_PDF_TOO_COMPLEX',
    });
  }
  throw unreadable(`${tool} failed: ${firstError(stderr)}`);
}

interface PdfInfo {
  pages: number;
  title?: string;
  /** Width and height in points of the pages asked for, by page number. */
  sizes: Map<number, [number, number]>;
}

function parseInfo(text: string): PdfInfo {
  const field = (name: string) => new RegExp(`^${name}:[ \\t]*(.*)$`, 'm').exec(text)?.[1]?.trim();
  const pages = Number(field('Pages'));
  if (!Number.isInteger(pages) || pages < 0) throw unreadable('it states no page count');
  const title = field('Title');
  const sizes = new Map<number, [number, number]>();
  for (const match of text.matchAll(/^Page\s+(\d+) size:\s+([\d.]+) x ([\d.]+) pts/gm)) sizes.set(Number(match[1]), [Number(match[2]), Number(match[3])]);
  return { pages, ...(title && { title }), sizes };
}

/** The resolution a page is rendered at for OCR: OCR_DPI, lower for a page so large that its image would be huge. */
export function ocrDpi(size: [number, number] | undefined): number {
  const longest = Math.max(...(size ?? [0, 0]));
  return longest > 0 ? Math.min(OCR_DPI, Math.floor((MAX_OCR_IMAGE_PIXELS * 72) / longest)) : OCR_DPI;
}

const usableCharacters = (page: PageLayout) => {
  let count = 0;
  for (const block of page.blocks) for (const line of block.lines) for (const word of line.words) count += word.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
  return count;
};

/** Pages `first` to `last` of the text layer, the document's title, and a warning when poppler met errors on the way. */
async function readTextLayer(
  file: string,
  first: number,
  last: number,
  limits: PdfLimits,
): Promise<{ layouts: PageLayout[]; title?: string; warning?: string }> {
  // -htmlmeta wraps the TSV in an HTML page whose head has the document's title: one run gives
  // what would otherwise take pdfinfo as well.
  const { stdout, stderr } = await run(
    'pdftotext',
    ['-tsv', '-htmlmeta', '-enc', 'UTF-8', '-f', String(first), '-l', String(last), file, '-'],
    limits,
    POPPLER_MEMORY_BYTES,
  );
  const { tsv, title } = splitHtmlMeta(stdout.toString('utf8'));
  const layouts = parseLayoutTsv(tsv, 'text');
  const warning = /error/i.test(stderr) ? `the PDF has errors (${firstError(stderr)}); its text may be incomplete` : undefined;
  return { layouts, ...(title && { title }), ...(warning && { warning }) };
}

const HTML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

/** The TSV inside `pdftotext -htmlmeta -tsv`'s page (words are not escaped there) and the title of its head (escaped). */
export function splitHtmlMeta(html: string): { tsv: string; title?: string } {
  const open = html.indexOf('<pre>\n');
  const close = html.lastIndexOf('</pre>');
  if (open < 0 || close < open) return { tsv: html };
  const head = html.slice(0, open);
  const title = /<title>([^<]*)<\/title>/
    .exec(head)?.[1]
    ?.replace(/&(amp|lt|gt|quot|apos|#39);/g, (_, name: string) => HTML_ENTITIES[name]!)
    .trim();
  return { tsv: html.slice(open + '<pre>\n'.length, close), ...(title && { title }) };
}

async function ocrPage(file: string, dir: string, page: number, dpi: number, limits: PdfLimits): Promise<PageLayout | undefined> {
  const root = join(dir, `page-${page}`);
  await run('pdftoppm', ['-q', '-r', String(dpi), '-gray', '-f', String(page), '-l', String(page), '-singlefile', file, root], limits, POPPLER_MEMORY_BYTES);
  try {
    const image = await readFile(`${root}.pgm`);
    if (eraseRules(image, Math.round(RULE_MIN_INCHES * dpi))) await writeFile(`${root}.pgm`, image);
    // TSV for the words and their boxes, hOCR for the type size of each line.
    await run('tesseract', [`${root}.pgm`, root, '-l', 'eng', '--psm', '3', 'tsv', 'hocr'], limits, TESSERACT_MEMORY_BYTES);
    const [tsv, hocr] = await Promise.all([readFile(`${root}.tsv`, 'utf8'), readFile(`${root}.hocr`, 'utf8')]);
    const layouts = parseLayoutTsv(tsv, 'ocr', dpi, hocrLineSizes(hocr));
    tidyOcr(layouts);
    const [layout] = layouts;
    return layout && { ...layout, pageNumber: page };
  } finally {
    await Promise.all(['pgm', 'tsv', 'hocr'].map((extension) => rm(`${root}.${extension}`, { force: true })));
  }
}

export async function parsePdf(bytes: Uint8Array, options: PdfParseOptions, limits: PdfLimits): Promise<ParsedPdf> {
  if (!hasPdfSignature(bytes)) throw unreadable('it is not a PDF (the file has no %PDF- header)');
  const dir = await mkdtemp(join(tmpdir(), 'webwatch-pdf-'));
  try {
    const file = join(dir, 'document.pdf');
    await writeFile(file, bytes, { mode: 0o600 });
    // The text layer's first run also gives the title and each page's size; when it returns
    // fewer pages than it asked for, it has counted them too, and pdfinfo is not needed.
    const firstRun = Math.min(PAGES_PER_RUN, options.maxPages ?? PAGES_PER_RUN);
    const firstText = options.mode === 'ocr' ? undefined : await readTextLayer(file, 1, firstRun, limits);
    const counted = firstText && firstText.layouts.length < firstRun ? firstText.layouts.length : undefined;
    const info =
      counted !== undefined
        ? { pages: counted, ...(firstText?.title && { title: firstText.title }), sizes: new Map<number, [number, number]>() }
        : parseInfo(
            (
              await run(
                'pdfinfo',
                ['-enc', 'UTF-8', ...(options.mode === 'ocr' ? ['-f', '1', '-l', String(options.maxPages ?? PDF_MAX_PAGES_MAX)] : []), file],
                limits,
                POPPLER_MEMORY_BYTES,
              )
            ).stdout.toString('utf8'),
          );
    const pagesParsed = Math.min(info.pages, options.maxPages ?? Infinity);
    const warnings = new Set<string>();
    if (pagesParsed < info.pages) warnings.add(`only the first ${pagesParsed} of ${info.pages} pages were read (maxPages)`);
    // The rest of the text layer, unless its pages cannot be read within the timeout (time-estimate.ts).
    if (firstText) ensureTimeFor('text', pagesParsed, info.pages, limits.timeoutMs);

    const layouts: PageLayout[] = [];
    if (firstText) {
      layouts.push(...firstText.layouts);
      if (firstText.warning) warnings.add(firstText.warning);
      for (let first = firstRun + 1; first <= pagesParsed; first += PAGES_PER_RUN) {
        const text = await readTextLayer(file, first, Math.min(pagesParsed, first + PAGES_PER_RUN - 1), limits);
        layouts.push(...text.layouts);
        if (text.warning) warnings.add(text.warning);
      }
    }
    // Page sizes for OCR's resolution: pdfinfo's in `ocr` mode, the text layer's otherwise.
    for (const layout of layouts) if (layout.width > 0) info.sizes.set(layout.pageNumber, [layout.width, layout.height]);
    const byNumber = new Map(layouts.map((layout) => [layout.pageNumber, layout]));
    const allPages = Array.from({ length: pagesParsed }, (_, i) => i + 1);
    const toOcr =
      options.mode === 'ocr'
        ? allPages
        : options.mode === 'auto'
          ? allPages.filter((n) => usableCharacters(byNumber.get(n) ?? ({ blocks: [] } as unknown as PageLayout)) < MIN_USABLE_CHARACTERS)
          : [];
    if (toOcr.length > 0) {
      try {
        // Refused at once when its pages cannot be read by OCR within the timeout; without
        // tesseract, `auto` reads none of them and says so below.
        findTool('tesseract');
        ensureTimeFor('ocr', toOcr.length, info.pages, limits.timeoutMs);
        const read = await inParallel(toOcr, Math.max(1, Math.min(2, availableParallelism())), (page) =>
          ocrPage(file, dir, page, ocrDpi(info.sizes.get(page)), limits),
        );
        for (const layout of read) if (layout) byNumber.set(layout.pageNumber, layout);
      } catch (error) {
        // `auto` without tesseract still returns the text layer, saying what it could not read.
        if (options.mode !== 'auto' || !(error instanceof WebwatchError) || error.code !== 'PDF_TOOLS_NOT_FOUND') throw error;
        warnings.add(`${toOcr.length} page(s) have no usable text and were not read by OCR: ${error.message} (${error.suggestion ?? ''})`);
      }
    }
    const ordered = allPages.map((n) => byNumber.get(n) ?? { pageNumber: n, width: 0, height: 0, source: 'text' as const, blocks: [] });
    const laidOut = layOutPages(ordered);
    if (options.rewrite) await rewriteItems(laidOut, options.rewrite);
    return { ...joinPages(laidOut, options.pageMarkers), ...(info.title && { title: info.title }), numPages: info.pages, pagesParsed, warnings: [...warnings] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function layOutPages(layouts: readonly PageLayout[]): LaidOutPage[] {
  const bodyHeight = bodyLineHeight(layouts);
  const state = { titleSeen: false };
  return layouts.map((layout) => layOutPage(layout, bodyHeight, state));
}

async function rewriteItems(pages: LaidOutPage[], rewrite: (text: string) => Promise<string>): Promise<void> {
  for (const page of pages) {
    for (const item of page.items) {
      if (item.markdown !== '') item.markdown = await rewrite(item.markdown);
      item.text = await rewrite(item.text);
    }
    page.markdown = itemsMarkdown(page.items);
  }
}

/** Positioned pages as markdown (page markers between pages when asked), pages and blocks with spans. */
export function assemble(layouts: readonly PageLayout[], pageMarkers: boolean): Pick<ParsedPdf, 'markdown' | 'pages' | 'blocks'> {
  return joinPages(layOutPages(layouts), pageMarkers);
}

function joinPages(laidOut: readonly LaidOutPage[], pageMarkers: boolean): Pick<ParsedPdf, 'markdown' | 'pages' | 'blocks'> {
  let markdown = '';
  const blocks: PdfPageBlocks[] = [];
  for (const page of laidOut) {
    // Pages with nothing to read add nothing to the markdown, markers included.
    if (page.markdown !== '') {
      if (markdown !== '') markdown += pageMarkers ? PAGE_MARKER(page.pageNumber) : '\n\n';
    }
    const pageStart = markdown.length;
    let offset = 0;
    const items: PdfBlockItem[] = page.items.map((item, index) => {
      let span: [number, number] | null = null;
      if (item.markdown !== '') {
        const at = page.markdown.indexOf(item.markdown, offset);
        span = [pageStart + at, pageStart + at + item.markdown.length];
        offset = at + item.markdown.length;
      }
      const normalized = (value: number, size: number) => (size > 0 ? Math.round(Math.min(1, Math.max(0, value / size)) * 10_000) / 10_000 : 0);
      return {
        id: `p${page.pageNumber}-b${index}`,
        type: item.type,
        label: item.label,
        bbox:
          page.width > 0
            ? [
                normalized(item.box.x0, page.width),
                normalized(item.box.y0, page.height),
                normalized(item.box.x1, page.width),
                normalized(item.box.y1, page.height),
              ]
            : null,
        content: item.text,
        markdownSpan: span,
        readingOrder: index,
        source: page.source,
        confidence: { layout: item.layoutConfidence, ocr: item.ocrConfidence },
      };
    });
    markdown += page.markdown;
    blocks.push({
      pageNumber: page.pageNumber,
      width: page.width > 0 ? round2(page.width) : null,
      height: page.height > 0 ? round2(page.height) : null,
      status: page.items.length > 0 ? 'ok' : 'empty',
      items,
    });
  }
  return { markdown, pages: laidOut.map((page) => ({ pageNumber: page.pageNumber, markdown: page.markdown })), blocks };
}

const round2 = (value: number) => Math.round(value * 100) / 100;
