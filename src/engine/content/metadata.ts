/**
 * Page metadata from the <head>: title, description, language, keywords, robots, favicon,
 * canonical URL, Open Graph, Dublin Core, and publication times. URLs are made absolute.
 */
import type { AnyNode, Document, Element } from 'domhandler';
import { hasChildren, isTag, textContent } from 'domutils';

export type { PageMetadata } from '../../contract/scrape.js';
import type { PageMetadata } from '../../contract/scrape.js';

const clean = (value: string | undefined) => {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text ? text : undefined;
};

export function absoluteUrl(value: string | undefined, base: string): string | undefined {
  if (!value) return undefined;
  try {
    return new URL(value.trim(), base).href;
  } catch {
    return undefined;
  }
}

/** The URL relative links resolve against: <base href> when present, else the page URL. */
export function baseUrlOf(root: AnyNode[], pageUrl: string): string {
  return absoluteUrl(firstBase(root)?.attribs.href, pageUrl) ?? pageUrl;
}

function firstBase(nodes: AnyNode[]): Element | undefined {
  for (const node of nodes) {
    if (isTag(node)) {
      if (node.name === 'base' && node.attribs.href !== undefined) return node;
      const inside = firstBase(node.children);
      if (inside) return inside;
    } else if (hasChildren(node)) {
      const inside = firstBase(node.children);
      if (inside) return inside;
    }
  }
  return undefined;
}

/** What metadata is read from, found in one walk of the document (selectors would walk it once each). */
interface HeadParts {
  html?: Element;
  base?: Element;
  /** The first <title> outside SVG, whose <title> elements name icons. */
  title?: Element;
  firstH1?: Element;
  metas: Element[];
  links: Element[];
  structuredData: Element[];
}

function scanDocument(root: AnyNode[]): HeadParts {
  const parts: HeadParts = { metas: [], links: [], structuredData: [] };
  const visit = (nodes: AnyNode[], inSvg: boolean) => {
    for (const node of nodes) {
      // Text and comments first: they are half the nodes, and hasChildren is a slower test.
      if (node.type === 'text' || node.type === 'comment') continue;
      if (!isTag(node)) {
        if (hasChildren(node)) visit(node.children, inSvg);
        continue;
      }
      switch (node.name) {
        case 'meta':
          parts.metas.push(node);
          break;
        case 'link':
          if (node.attribs.rel !== undefined && node.attribs.href !== undefined) parts.links.push(node);
          break;
        case 'title':
          if (!inSvg && !parts.title) parts.title = node;
          break;
        case 'script':
          if ((node.attribs.type ?? '').trim().toLowerCase() === 'application/ld+json') parts.structuredData.push(node);
          break;
        case 'base':
          if (!parts.base && node.attribs.href !== undefined) parts.base = node;
          break;
        case 'h1':
          parts.firstH1 ??= node;
          break;
        case 'html':
          parts.html ??= node;
          break;
      }
      if (node.children.length > 0 && node.name !== 'script' && node.name !== 'style') visit(node.children, inSvg || node.name === 'svg');
    }
  };
  visit(root, false);
  return parts;
}

const ARTICLE_TYPES =
  /^(?:Article|NewsArticle|BlogPosting|Report|ScholarlyArticle|TechArticle|OpinionNewsArticle|ReportageNewsArticle|AnalysisNewsArticle|LiveBlogPosting|SocialMediaPosting|WebPage|Recipe|HowTo|Review)$/;

/**
 * The headline the page declares in schema.org JSON-LD for its article, the title search
 * engines show. Only article-like types: an Organization's or a BreadcrumbList's name is not it.
 */
function structuredHeadline(scripts: Element[], documentTitle: string | undefined, siteName: string | undefined): string | undefined {
  for (const script of scripts) {
    const source = textContent(script)
      .replace(/^\s*(?:<!\[CDATA\[|\/\/\s*<!\[CDATA\[)/, '')
      .replace(/(?:\]\]>|\/\/\s*\]\]>)\s*$/, '');
    let data: unknown;
    try {
      data = JSON.parse(source);
    } catch {
      continue;
    }
    const queue: unknown[] = [data];
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
      if (Array.isArray(item)) {
        queue.push(...item);
        continue;
      }
      if (!item || typeof item !== 'object') continue;
      const node = item as Record<string, unknown>;
      if (Array.isArray(node['@graph'])) queue.push(...node['@graph']);
      const types = ([] as unknown[]).concat(node['@type'] ?? []);
      if (!types.some((type) => typeof type === 'string' && ARTICLE_TYPES.test(type))) continue;
      const text = (value: unknown) => (typeof value === 'string' ? clean(decodeEntities(value)) : undefined);
      const publisher = node.publisher && typeof node.publisher === 'object' ? text((node.publisher as Record<string, unknown>).name) : undefined;
      // Some sites put the site's name in `name`, others a description in `headline`: the
      // one the page's <title> repeats wins, and the publisher's name is never the title.
      const name = types.includes('WebPage') || text(node.name) === publisher || text(node.name) === siteName ? undefined : text(node.name);
      const headline = text(node.headline);
      if (name && headline && name !== headline) return documentTitle?.includes(headline) && !documentTitle.includes(name) ? headline : name;
      if (name ?? headline) return name ?? headline;
    }
  }
  return undefined;
}

/** JSON-LD strings sometimes carry HTML entities (`&amp;`, `&#8217;`). */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|nbsp);/gi, (_, entity: string) => {
    const lower = entity.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(Number(lower.slice(1)));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' } as Record<string, string>)[lower] ?? _;
  });
}

/**
 * What a reader sees of a page before its content: the <title> (the tab, the bookmark) and the
 * first <h1> (the headline), wherever the main content begins. Monitor checks compare them.
 */
export interface PageHeadings {
  title?: string;
  headline?: string;
}

/** The page's metadata and its headings, from one walk of the document. */
export function extractPageHead(document: Document, pageUrl: string): { metadata: PageMetadata; headings: PageHeadings } {
  const parts = scanDocument([document]);
  const title = parts.title ? clean(textContent(parts.title)) : undefined;
  const headline = parts.firstH1 ? clean(textContent(parts.firstH1)) : undefined;
  return { metadata: metadataOf(parts, pageUrl), headings: { ...(title && { title }), ...(headline && { headline }) } };
}

export function extractMetadata(document: Document, pageUrl: string): PageMetadata {
  return metadataOf(scanDocument([document]), pageUrl);
}

function metadataOf(parts: HeadParts, pageUrl: string): PageMetadata {
  const base = absoluteUrl(parts.base?.attribs.href, pageUrl) ?? pageUrl;
  const documentTitle = parts.title ? clean(textContent(parts.title)) : undefined;
  const metas = new Map<string, string[]>();
  for (const element of parts.metas) {
    const attributes = element.attribs;
    const content = clean(attributes.content);
    if (content === undefined) continue;
    // RDFa names a field in `property`, HTML in `name`: a tag may carry both, and Dublin Core
    // comes either way (`property="dc:title"`, `name="DC.title"`). `property="og:title
    // twitter:title"` names several at once.
    const keys = new Set<string>();
    for (const attribute of [attributes.property, attributes.name, attributes.itemprop, attributes['http-equiv']]) {
      for (const key of attribute?.trim().toLowerCase().split(/\s+/) ?? [])
        if (key) keys.add(key.replace(/^(dc|dcterms?):/, (_, prefix: string) => (prefix === 'dc' ? 'dc.' : 'dcterms.')));
    }
    for (const key of keys) metas.set(key, [...(metas.get(key) ?? []), content]);
  }
  const meta = (...keys: string[]) => {
    for (const key of keys) {
      const value = metas.get(key)?.[0];
      if (value !== undefined) return value;
    }
    return undefined;
  };
  const link = (relation: string) => parts.links.find((element) => element.attribs.rel!.toLowerCase().split(/\s+/).includes(relation))?.attribs.href;

  const metadata: PageMetadata = {
    // The title and description a reader would give: declared metadata first (Dublin Core,
    // Open Graph, Twitter), then <title> and the plain description, which often carry the
    // site's name or boilerplate.
    title:
      structuredHeadline(parts.structuredData, documentTitle, meta('og:site_name')) ??
      meta('dc.title', 'dcterms.title', 'og:title', 'twitter:title') ??
      documentTitle ??
      meta('parsely-title', 'title') ??
      (parts.firstH1 && clean(textContent(parts.firstH1))),
    description: meta('dc.description', 'dcterms.description', 'og:description', 'twitter:description', 'description'),
    language: clean(parts.html?.attribs.lang) ?? meta('content-language', 'dc.language', 'og:locale'),
    keywords: meta('keywords'),
    robots: meta('robots'),
    favicon: absoluteUrl(link('icon') ?? link('shortcut') ?? link('apple-touch-icon'), base),
    canonicalUrl: absoluteUrl(link('canonical'), base),
    ogTitle: meta('og:title'),
    ogDescription: meta('og:description'),
    ogUrl: absoluteUrl(meta('og:url'), base),
    ogImage: absoluteUrl(meta('og:image', 'og:image:url', 'og:image:secure_url'), base),
    ogAudio: absoluteUrl(meta('og:audio'), base),
    ogVideo: absoluteUrl(meta('og:video', 'og:video:url'), base),
    ogType: meta('og:type'),
    ogSiteName: meta('og:site_name'),
    ogLocale: meta('og:locale'),
    ogLocaleAlternate: metas.get('og:locale:alternate'),
    ogDeterminer: meta('og:determiner'),
    dcTitle: meta('dc.title', 'dcterms.title'),
    dcDescription: meta('dc.description', 'dcterms.description'),
    dcSubject: meta('dc.subject', 'dcterms.subject'),
    dcCreator: meta('dc.creator', 'dcterms.creator'),
    dcDate: meta('dc.date', 'dcterms.date'),
    dcDateCreated: meta('dc.date.created'),
    dcTermsCreated: meta('dcterms.created'),
    dcType: meta('dc.type'),
    dcTermsType: meta('dcterms.type'),
    dcLanguage: meta('dc.language', 'dcterms.language'),
    publishedTime: meta('article:published_time', 'og:published_time', 'datepublished', 'dc.date.issued', 'dcterms.issued', 'date'),
    modifiedTime: meta('article:modified_time', 'og:updated_time', 'datemodified', 'dcterms.modified', 'last-modified'),
    author: meta('author', 'article:author', 'dc.creator'),
  };
  return Object.fromEntries(Object.entries(metadata).filter(([, value]) => value !== undefined)) as PageMetadata;
}
