/**
 * Page metadata from the <head>: title, description, language, keywords, robots, favicon,
 * canonical URL, Open Graph, Dublin Core, and publication times. URLs are made absolute.
 */
import type { CheerioAPI } from 'cheerio/slim';
import type { AnyNode } from 'domhandler';
import { select, selectIn } from './select.js';

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
  return absoluteUrl(selectIn(root, 'base[href]')[0]?.attribs.href, pageUrl) ?? pageUrl;
}

export function extractMetadata($: CheerioAPI, pageUrl: string): PageMetadata {
  const base = baseUrlOf($.root().toArray(), pageUrl);
  const metas = new Map<string, string[]>();
  for (const element of selectIn($.root().toArray(), 'meta')) {
    const attributes = element.attribs;
    const keys = (attributes.property ?? attributes.name ?? attributes.itemprop ?? attributes['http-equiv'])?.trim().toLowerCase();
    const content = clean(attributes.content);
    if (!keys || content === undefined) continue;
    // `property="og:title twitter:title"` names several properties at once; `dc:title` is `DC.title`.
    for (const key of keys.split(/\s+/).map((k) => k.replace(/^(dc|dcterms):/, '$1.'))) {
      metas.set(key, [...(metas.get(key) ?? []), content]);
    }
  }
  const meta = (...keys: string[]) => {
    for (const key of keys) {
      const value = metas.get(key)?.[0];
      if (value !== undefined) return value;
    }
    return undefined;
  };
  const link = (relation: string) =>
    selectIn($.root().toArray(), 'link[rel][href]').find((element) => element.attribs.rel!.toLowerCase().split(/\s+/).includes(relation))?.attribs.href;

  const metadata: PageMetadata = {
    // The title and description a reader would give: declared metadata first (Dublin Core,
    // Open Graph, Twitter), then <title> and the plain description, which often carry the
    // site's name or boilerplate.
    title: meta('dc.title', 'dcterms.title', 'og:title', 'twitter:title') ?? clean(select($, 'title').first().text()),
    description: meta('dc.description', 'dcterms.description', 'og:description', 'twitter:description', 'description'),
    language: clean(select($, 'html').attr('lang')) ?? meta('content-language', 'dc.language', 'og:locale'),
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
