/** The `links` and `images` formats: absolute http(s) URLs, de-duplicated, in page order. */
import type { Document } from 'domhandler';
import { lazySource } from './markup.js';
import { absoluteUrl, baseUrlOf } from './metadata.js';
import { selectIn } from './select.js';

function collect(values: Iterable<string | undefined>, base: string): string[] {
  const seen = new Set<string>();
  for (const value of values) {
    const url = absoluteUrl(value, base);
    if (url && /^https?:/.test(url)) seen.add(url);
  }
  return [...seen];
}

export function extractLinks(document: Document, pageUrl: string): string[] {
  const root = [document];
  return collect(
    selectIn(root, 'a[href]').map((element) => element.attribs.href),
    baseUrlOf(root, pageUrl),
  );
}

/** <img src> (and the first srcset candidate when there is no src), <picture><source>, og:image. */
export function extractImages(document: Document, pageUrl: string): string[] {
  const root = [document];
  const sources: (string | undefined)[] = [];
  for (const element of selectIn(root, 'img')) {
    const { src, srcset } = element.attribs;
    const candidate = src && !src.startsWith('data:') ? src : (lazySource(element.attribs) ?? srcset?.split(',')[0]?.trim().split(/\s+/)[0]);
    sources.push(candidate);
  }
  for (const element of selectIn(root, 'picture source[srcset]')) {
    sources.push(element.attribs.srcset!.split(',')[0]?.trim().split(/\s+/)[0]);
  }
  return collect(sources, baseUrlOf(root, pageUrl));
}
