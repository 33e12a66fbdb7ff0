/**
 * The HTML-level content filter: always-dropped tags, includeTags / excludeTags (CSS
 * selectors), blockAds, onlyMainContent (hidden content, then everything but the main content
 * as main-content.ts finds it), and absolute link and image URLs. Deterministic: no model
 * involved. What markdown needs on top of this is in markup.ts.
 */
import type { CheerioAPI } from 'cheerio/slim';
import { type AnyNode, type Element, Element as ElementNode } from 'domhandler';
import { appendChild, isTag, removeElement } from 'domutils';
import { removeHidden } from './hidden.js';
import { findMainContent } from './main-content.js';
import { lazySource } from './markup.js';
import { absoluteUrl, baseUrlOf } from './metadata.js';
import { select, selectIn } from './select.js';

export interface CleanOptions {
  onlyMainContent: boolean;
  includeTags?: readonly string[];
  excludeTags?: readonly string[];
  blockAds: boolean;
}

const ALWAYS_DROPPED = new Set(['head', 'title', 'script', 'style', 'noscript', 'meta', 'link', 'template', 'svg', 'canvas', 'object', 'embed', 'base']);

const AD_SELECTORS = [
  'ins.adsbygoogle', '[id^=google_ads]', '[id^=div-gpt-ad]', '[data-ad]', '[data-ad-slot]', '[data-adunit]',
  'iframe[src*=doubleclick]', 'iframe[src*=googlesyndication]', 'iframe[src*=amazon-adsystem]',
  '[class*=cookie-banner]', '[id*=cookie-banner]', '[class*=cookie-consent]', '[id*=cookie-consent]',
  '#onetrust-consent-sdk', '#CybotCookiebotDialog', '.cc-window',
].join(', ');

/** Drops always-dropped tags and comments in one walk. */
function dropNonContent(nodes: AnyNode[]) {
  for (const node of [...nodes]) {
    if (node.type === 'comment' || (isTag(node) && ALWAYS_DROPPED.has(node.name))) removeElement(node);
    else if (isTag(node)) dropNonContent(node.children);
    else if (node.type === 'root') dropNonContent((node as unknown as { children: AnyNode[] }).children);
  }
}

function keepOnly($: CheerioAPI, selectors: readonly string[]) {
  keepElements($, selectIn($.root().toArray(), selectors.join(', ')));
}

/** The body (or the document) holds only `elements`, in document order. */
function keepElements($: CheerioAPI, elements: Element[]) {
  // An element inside another kept one comes along with its ancestor.
  const keptSet = new Set<AnyNode>(elements);
  const outermost = elements.filter((element) => {
    for (let parent = element.parent; parent; parent = parent.parent) if (keptSet.has(parent)) return false;
    return true;
  });
  const container = select($, 'body')[0] ?? $.root()[0]!;
  if (outermost.length === 1 && outermost[0] === container) return;
  for (const element of outermost) removeElement(element);
  for (const node of [...container.children]) removeElement(node);
  for (const element of outermost) appendChild(container, element);
}

/** The <body>; a fragment without one gets one around its nodes. */
function bodyOf($: CheerioAPI): Element {
  const body = select($, 'body')[0];
  if (body) return body;
  const document = $.root()[0]!;
  const created = new ElementNode('body', {}, []);
  for (const node of [...document.children]) {
    removeElement(node);
    appendChild(created, node);
  }
  appendChild(document, created);
  return created;
}

export function cleanHtml($: CheerioAPI, pageUrl: string, options: CleanOptions): void {
  const root = () => $.root().toArray();
  const base = baseUrlOf(root(), pageUrl);
  dropNonContent(root());

  if (options.includeTags && options.includeTags.length > 0) keepOnly($, options.includeTags);
  if (options.excludeTags && options.excludeTags.length > 0) for (const element of selectIn(root(), options.excludeTags.join(', '))) removeElement(element);
  if (options.blockAds) for (const element of selectIn(root(), AD_SELECTORS)) removeElement(element);

  if (options.onlyMainContent) {
    removeHidden(root());
    keepElements($, findMainContent(bodyOf($)).keep);
  }

  for (const element of selectIn(root(), 'a[href], img')) {
    if (element.name === 'a') {
      const href = absoluteUrl(element.attribs.href, base);
      if (href) element.attribs.href = href;
      continue;
    }
    const lazy = lazySource(element.attribs);
    if (lazy && (!element.attribs.src || element.attribs.src.startsWith('data:'))) element.attribs.src = lazy;
    const src = element.attribs.src;
    if (!src || src.startsWith('data:')) continue;
    const absolute = absoluteUrl(src, base);
    if (absolute) element.attribs.src = absolute;
  }
}
