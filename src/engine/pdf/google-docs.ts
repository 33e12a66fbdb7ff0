/**
 * Google Docs and Slides documents are read as PDFs, as the hosted API reads them: their editor
 * page is drawn by script and holds little of the text, while their export URL
 * (`/document/d/{id}/export?format=pdf`, the same under `/presentation/`) gives the whole
 * document as a PDF, for anyone who may view it. The scrape fetches that URL instead of the one
 * asked (scrape.ts); the document's metadata.sourceURL stays the URL asked for, and its
 * metadata.url says what was fetched in the end, as the hosted API's "URL reported by the
 * scrape engine" does. Sheets are left as they are.
 */

/** Paths of a document or a presentation, for an account (`/u/0/`) or not. */
const DOCUMENT_PATH = /^\/(document|presentation)(?:\/u\/\d+)?\/d\/([A-Za-z0-9_-]+)(?:\/([^/]*))?/;

/**
 * The PDF export URL of a Google Docs or Slides URL (same scheme, host and port), or undefined
 * for every other URL. Published copies (`/d/e/{id}/pub`) are web pages already, and an export
 * URL is fetched as it was asked (whatever format it names).
 */
export function googleExportUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.hostname !== 'docs.google.com' || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) return undefined;
  const match = DOCUMENT_PATH.exec(parsed.pathname);
  if (!match) return undefined;
  const [, kind, id, next] = match;
  if (id === 'e' || next === 'export') return undefined;
  return `${parsed.protocol}//${parsed.host}/${kind}/d/${id}/export?format=pdf`;
}
