/** How `scrape` shows documents without --json: formats as text, and where the pages came from. */
import type { ScrapeDocument } from '../contract/scrape.js';
import type { ScrapeOptions } from '../spec/scrape-options.js';
import { trackedFieldsText } from '../engine/diff/json-diff.js';

/** The formats asked for, in the order asked, each once. */
export function formatNames(options: ScrapeOptions): string[] {
  return [...new Set((options.formats ?? ['markdown']).map((format) => (typeof format === 'string' ? format : format.type)))];
}

/** Bytes in base64: unreadable among other formats. */
const BINARY_FORMATS = new Set(['rawBase64']);

function changeTrackingText(tracking: ScrapeDocument['changeTracking']): string {
  if (!tracking) return '';
  const since = tracking.previousScrapeAt ? ` since ${tracking.previousScrapeAt}` : '';
  // json mode's changed fields, then the markdown's lines (git-diff mode).
  const fields = tracking.json && Object.keys(tracking.json).length > 0 ? `\n\n${trackedFieldsText(tracking.json)}` : '';
  return `${tracking.changeStatus}${since}${fields}${tracking.diff?.text ? `\n\n${tracking.diff.text.trimEnd()}` : ''}`;
}

/**
 * A format's content as text: strings as they are, lists one item a line, anything else (an
 * API's json, branding...) as indented JSON.
 */
export function formatText(document: ScrapeDocument, format: string): string {
  if (format === 'changeTracking') return changeTrackingText(document.changeTracking);
  // The question format answers in `answer`; every other format has a field of its name.
  const value = (document as unknown as Record<string, unknown>)[format === 'question' ? 'answer' : format];
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join('\n');
  return JSON.stringify(value, null, 2);
}

export interface DocumentsText {
  text: string;
  /** Formats asked for but not in the text. */
  leftOut: string[];
}

/**
 * What `scrape` prints: one format as it is (what a pipe wants), several each under a heading
 * (an HTML comment, invisible once the markdown is rendered) naming the URL when there are
 * several pages.
 */
export function documentsText(pages: readonly { url: string; document: ScrapeDocument }[], formats: readonly string[]): DocumentsText {
  const several = pages.length > 1;
  if (formats.length === 1) {
    const texts = pages.map(({ url, document }) => (several ? `<!-- ${url} -->\n\n${formatText(document, formats[0]!)}` : formatText(document, formats[0]!)));
    return { text: texts.join('\n\n'), leftOut: [] };
  }
  const shown = formats.filter((format) => !BINARY_FORMATS.has(format));
  const sections = pages.flatMap(({ url, document }) =>
    shown.map((format) => {
      const heading = `<!-- ${format}${several ? ` of ${url}` : ''} -->`;
      const text = formatText(document, format);
      return text === '' ? heading : `${heading}\n\n${text}`;
    }),
  );
  return { text: sections.join('\n\n'), leftOut: formats.filter((format) => BINARY_FORMATS.has(format)) };
}
