/**
 * A scrape's result as every side sees it (the v2 scrape document, DESIGN §5): its formats,
 * the page's metadata, change tracking, and the structured formats (product, menu, branding,
 * a PDF's pages and blocks, what browser actions returned). Types only: the engine builds
 * documents, crawls and searches carry them, backends and commands read them here.
 */
import type { TrackedFieldDiff } from './diff.js';

export interface DocumentMetadata extends PageMetadata {
  sourceURL: string;
  url: string;
  statusCode: number;
  contentType?: string;
  scrapeId: string;
  /** Whether the cache answered; only on a scrape that read it (not with maxAge 0, change tracking or actions). */
  cacheState?: 'hit' | 'miss';
  cachedAt?: string;
  /** The proxy level the page was fetched with: `enhanced` only when the enhanced proxy was used. */
  proxyUsed?: 'basic' | 'enhanced';
  creditsUsed: number;
  /** Pages of a PDF. */
  numPages?: number;
  error?: string;
}

/** A file read by POST /v2/parse: named by the file it came from, not by a URL. */
export type ParsedDocument = Omit<ScrapeDocument, 'metadata'> & {
  metadata: Omit<DocumentMetadata, 'sourceURL' | 'url' | 'proxyUsed' | 'cacheState' | 'cachedAt'> & { sourceFile: string };
};

export interface ChangeTracking {
  previousScrapeAt: string | null;
  changeStatus: 'new' | 'same' | 'changed' | 'removed';
  visibility: 'visible' | 'hidden';
  /** The markdown's line diff (git-diff mode, the default), when changed. */
  diff?: { text: string; json: unknown };
  /** json mode: each changed field of the extracted JSON, `{old, new}`, when changed. */
  json?: TrackedFieldDiff;
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
  /** file:// URL of the video (MP4 or WebM) the `video` format kept; serve gives its own URL. */
  video?: string;
  /** file:// URL of the MP3 the `audio` format kept; serve gives its own URL. */
  audio?: string;
  actions?: ActionResults;
  /** A PDF's pages, with `parsers: [{type: pdf, pages: true}]`. */
  pages?: { pageNumber: number; markdown: string }[];
  /** A PDF's typed layout blocks, with `parsers: [{type: pdf, blocks: true}]`. */
  blocks?: PdfPageBlocks[];
  warning?: string;
  metadata: DocumentMetadata;
}

/** Page metadata from the <head>; URLs are absolute. */
export interface PageMetadata {
  title?: string;
  description?: string;
  language?: string;
  keywords?: string;
  robots?: string;
  favicon?: string;
  canonicalUrl?: string;
  ogTitle?: string;
  ogDescription?: string;
  ogUrl?: string;
  ogImage?: string;
  ogAudio?: string;
  ogVideo?: string;
  ogType?: string;
  ogSiteName?: string;
  ogLocale?: string;
  ogLocaleAlternate?: string[];
  ogDeterminer?: string;
  dcTitle?: string;
  dcDescription?: string;
  dcSubject?: string;
  dcCreator?: string;
  dcDate?: string;
  dcDateCreated?: string;
  dcTermsCreated?: string;
  dcType?: string;
  dcTermsType?: string;
  dcLanguage?: string;
  publishedTime?: string;
  modifiedTime?: string;
  author?: string;
}

/** What a scrape's browser actions returned: screenshots and PDFs (file URLs), page scrapes, script results. */
export interface ActionResults {
  screenshots: string[];
  scrapes: { url: string; html: string }[];
  javascriptReturns: { type: string; value: unknown }[];
  pdfs: string[];
}

/** A PDF's typed layout blocks (`parsers: [{type: pdf, blocks: true}]`), page by page. */
export interface PdfBlockItem {
  id: string;
  type: string;
  label: string | null;
  /** [x0, y0, x1, y1] as fractions of the page's width and height, origin top left. */
  bbox: [number, number, number, number] | null;
  content: string;
  /** [start, end) of the block's markdown in the document's markdown; null when left out of it. */
  markdownSpan: [number, number] | null;
  readingOrder: number;
  source: 'text' | 'ocr';
  confidence: { layout: number | null; ocr: number | null };
}

export interface PdfPageBlocks {
  pageNumber: number;
  width: number | null;
  height: number | null;
  /** `ok`, or `empty` for a page where nothing was read. */
  status: string;
  items: PdfBlockItem[];
}

/** The product format: the page's product, its variants and where each field came from. */
export interface Price {
  amount: number;
  currency?: string;
  formatted?: string;
}

export interface ProductVariant {
  id?: string;
  sku?: string;
  title?: string;
  price?: Price;
  sale?: { originalPrice: Price };
  availability: { inStock: boolean; text?: string };
  images?: { url: string; alt?: string }[];
}

export interface ProductProfile {
  title: string;
  brand?: string;
  category?: string;
  url: string;
  description?: string;
  variants: ProductVariant[];
  /** Where each field came from: `JSON-LD`, `microdata`, `RDFa`, `page metadata` or `model`. */
  fieldSources: Record<string, string>;
}

/** The menu format: sections of items with prices, diets and availability. */
export interface MenuItem {
  id: string;
  name: string;
  description?: string;
  images: { url: string; alt?: string }[];
  price?: Price;
  availability: { inStock: boolean; text?: string };
  dietary: string[];
  calories?: number;
  optionGroups: unknown[];
  identifiers: { merchantItemId?: string };
  url?: string;
  sourceUrl: string;
}

export interface MenuSection {
  id: string;
  name: string;
  description?: string;
  items: MenuItem[];
}

export interface MenuProfile {
  isMenu: boolean;
  confidence: number;
  merchant: { name: string; type?: string | null; location?: unknown };
  currency?: string | null;
  sections: MenuSection[];
  sourceUrl: string;
  fieldSources: Record<string, string>;
}

/** The branding format: colours, fonts, typography, components and images, and where each came from. */
export interface BrandingProfile {
  colorScheme: 'dark' | 'light';
  brandName?: string;
  logo: string | null;
  fonts: { family: string; role: string }[];
  colors: {
    primary?: string;
    secondary?: string;
    accent?: string;
    background?: string;
    textPrimary?: string;
    textSecondary?: string;
    link?: string;
  };
  typography: {
    fontFamilies?: { primary?: string; heading?: string; code?: string };
    fontStacks?: { primary?: string[]; heading?: string[]; body?: string[] };
    fontSizes?: { h1?: string; h2?: string; h3?: string; body?: string; small?: string };
    lineHeights?: { heading?: number; body?: number };
    fontWeights?: { regular?: number; bold?: number };
  };
  spacing: { borderRadius?: string };
  components: {
    buttonPrimary?: BrandingButton;
    buttonSecondary?: BrandingButton;
    input?: { borderColor?: string; borderRadius?: string };
  };
  images: { logo: string | null; favicon: string | null; ogImage: string | null };
  animations?: { transitionDuration: string };
  fieldSources: {
    colors: string;
    typography: string;
    fonts: string;
    components: string;
    logo: string;
    favicon: string;
    ogImage: string;
    brandName?: string;
  };
}

export interface BrandingButton {
  background?: string;
  textColor?: string;
  borderColor?: string;
  borderRadius?: string;
}
