/** The `links` and `images` formats: absolute http(s) URLs, de-duplicated, in page order. */
import type { CheerioAPI } from 'cheerio/slim';
import { lazySource } from './clean.js';
import { absoluteUrl, baseUrlOf } from './metadata.js';

function collect(values: Iterable<string | undefined>, base: string): string[] {
  const seen = new Set<string>();
  for (const value of values) {
    const url = absoluteUrl(value, base);
    if (url && /^https?:/.test(url)) seen.add(url);
  }
  return [...seen];
}

export function extractLinks($: CheerioAPI, pageUrl: string): string[] {
  return collect($('a[href]').map((_, element) => element.attribs.href).get(), baseUrlOf($, pageUrl));
}

/** <img src> (and the first srcset candidate when there is no src), <picture><source>, og:image. */
export function extractImages($: CheerioAPI, pageUrl: string): string[] {
  const sources: (string | undefined)[] = [];
  $('img').each((_, element) => {
    const { src, srcset } = element.attribs;
    const candidate = src && !src.startsWith('data:') ? src : lazySource(element.attribs) ?? srcset?.split(',')[0]?.trim().split(/\s+/)[0];
    sources.push(candidate);
  });
  $('picture source[srcset]').each((_, element) => {
    sources.push(element.attribs.srcset!.split(',')[0]?.trim().split(/\s+/)[0]);
  });
  return collect(sources, baseUrlOf($, pageUrl));
}
