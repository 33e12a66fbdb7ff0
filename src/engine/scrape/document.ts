/** The v2 scrape result (DESIGN §5), as the engine returns it. */
import type { PageMetadata } from '../content/metadata.js';
import type { ActionResults } from '../browser/render.js';
import type { PdfPageBlocks } from '../pdf/parse-pdf.js';
import type { JsonFieldDiff } from '../diff/json-diff.js';
import type { BrandingProfile } from '../extract/branding.js';
import type { MenuProfile } from '../extract/menu.js';
import type { ProductProfile } from '../extract/product.js';

export interface DocumentMetadata extends PageMetadata {
  sourceURL: string;
  url: string;
  statusCode: number;
  contentType?: string;
  scrapeId: string;
  cacheState: 'hit' | 'miss';
  cachedAt?: string;
  creditsUsed: number;
  /** Pages of a PDF. */
  numPages?: number;
  error?: string;
}

export interface ChangeTracking {
  previousScrapeAt: string | null;
  changeStatus: 'new' | 'same' | 'changed' | 'removed';
  visibility: 'visible' | 'hidden';
  /** The markdown's line diff (git-diff mode, the default), when changed. */
  diff?: { text: string; json: unknown };
  /** json mode: each changed leaf path of the extracted JSON, `{previous, current}`, when changed. */
  json?: JsonFieldDiff;
}

export interface ScrapeDocument {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  rawBase64?: string;
  links?: string[];
  images?: string[];
  summary?: string;
  json?: unknown;
  answer?: string;
  highlights?: string;
  product?: ProductProfile;
  menu?: MenuProfile;
  branding?: BrandingProfile;
  changeTracking?: ChangeTracking;
  /** file:// URL of the screenshot (the local engine writes it under its home). */
  screenshot?: string;
  actions?: ActionResults;
  /** A PDF's pages, with `parsers: [{type: pdf, pages: true}]`. */
  pages?: { pageNumber: number; markdown: string }[];
  /** A PDF's typed layout blocks, with `parsers: [{type: pdf, blocks: true}]`. */
  blocks?: PdfPageBlocks[];
  warning?: string;
  metadata: DocumentMetadata;
}
