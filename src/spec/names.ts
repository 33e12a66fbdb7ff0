/**
 * Plain lists of names from the interface, without schema code, for light importers (the
 * completion scripts are generated from them at start-up cost of nothing).
 */

/** Formats of spec §2.8. */
export const FORMAT_NAMES = [
  'markdown',
  'summary',
  'html',
  'rawHtml',
  'rawBase64',
  'links',
  'images',
  'branding',
  'product',
  'menu',
  'screenshot',
  'json',
  'changeTracking',
  'audio',
  'video',
  'question',
  'highlights',
] as const;

/** Result sources of a search (the hosted SDK's SearchRequest.sources, but `alexandria`). */
export const SEARCH_SOURCES = ['web', 'news', 'images'] as const;
