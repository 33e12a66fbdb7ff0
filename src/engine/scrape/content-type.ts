/** How a response's content type routes it through conversion (light: no parser loads). */
import { detectDocument } from '../documents/detect.js';
import { isPdf } from '../pdf/detect.js';

/** The bare media type, lower case: `text/html; charset=utf-8` -> `text/html`. */
export const mediaType = (contentType: string | undefined) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

export const isHtml = (type: string) => /^(text\/html|application\/xhtml\+xml)/.test(type) || type === '';
export const isJson = (type: string) => /^application\/(.+\+)?json|^text\/json/.test(type);
export const isText = (type: string) => type.startsWith('text/') || /^application\/(xml|javascript|x-yaml|yaml)/.test(type);

/** Whether a response goes through the HTML pipeline: HTML by its type, and not a PDF by its bytes. */
export function convertsAsHtml(page: { body: Uint8Array; contentType: string | undefined }): boolean {
  const type = mediaType(page.contentType);
  return !isPdf(type, page.body) && isHtml(type);
}

/**
 * What a page costs to convert grows with its bytes and, for HTML, with its tags (parsing,
 * cleaning and markdown go node by node). Judged here on the bytes, before any parsing, so that
 * a server converts such pages off its event loop (off-loop.ts); the thresholds are measured in
 * bench/README.md ("One page must not stall everyone").
 */
export const OFF_LOOP_MIN_BYTES = 256 * 1024;
/** An HTML page with this many `<` (tags, comments) is slow to convert, however small. */
export const OFF_LOOP_MIN_TAGS = 4_000;

/**
 * Whether converting the page would hold the thread long: HTML, JSON and text by their size,
 * HTML also by its tags, and every office document (a DOCX of 15 KB inflates to a table of
 * 50 pages; a workbook of 600 KB to 100,000 cells: bench/results/documents-scale.json).
 */
export function slowToConvert(page: { body: Uint8Array; contentType: string | undefined; finalUrl?: string }): boolean {
  if (convertsAsHtml(page)) return page.body.byteLength >= OFF_LOOP_MIN_BYTES || tagsReach(page.body, OFF_LOOP_MIN_TAGS);
  const type = mediaType(page.contentType);
  if (detectDocument(type, page.body, page.finalUrl ?? '')) return true;
  // PDFs are read by child tools already (pdf/parse-pdf.ts); images and other bytes are not decoded.
  return (isJson(type) || isText(type)) && page.body.byteLength >= OFF_LOOP_MIN_BYTES;
}

const LT = 0x3c;

/** Whether the bytes hold at least `count` `<`: native searches that stop at the count (well under a millisecond). */
function tagsReach(body: Uint8Array, count: number): boolean {
  let found = 0;
  for (let at = body.indexOf(LT); at >= 0; at = body.indexOf(LT, at + 1)) if (++found >= count) return true;
  return false;
}
