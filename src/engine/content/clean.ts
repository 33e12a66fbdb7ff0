/**
 * The HTML-level content filter: always-dropped tags, includeTags / excludeTags (CSS
 * selectors), blockAds, onlyMainContent (hidden content, then everything but the main content
 * as main-content.ts finds it), and absolute link and image URLs. Deterministic: no model
 * involved. What markdown needs on top of this is in markup.ts.
 */
import { type AnyNode, type Document, type Element, Element as ElementNode } from 'domhandler';
import { appendChild, hasChildren, isTag, removeElement, textContent } from 'domutils';
import { isHidden, removeHidden, textLength } from './hidden.js';
import { findMainContent } from './main-content.js';
import { lazySource } from './markup.js';
import { absoluteUrl } from './metadata.js';
import { selectIn } from './select.js';
import { removeAll, setChildren } from './dom-edit.js';

export interface CleanOptions {
  onlyMainContent: boolean;
  includeTags?: readonly string[];
  excludeTags?: readonly string[];
  blockAds: boolean;
}

const ALWAYS_DROPPED = new Set(['head', 'title', 'script', 'style', 'noscript', 'meta', 'link', 'template', 'svg', 'canvas', 'object', 'embed', 'base']);

/** The page itself and its composition: a class such as `cookie-consent-enabled` on them is page state, not an ad. */
const NEVER_ADS = new Set(['html', 'body', 'main', 'article']);

/** Ad slots and consent dialogs, by the marks ad and consent scripts leave. */
function isAd(element: Element): boolean {
  const { attribs } = element;
  const id = attribs.id;
  if (
    id !== undefined &&
    (id.startsWith('google_ads') ||
      id.startsWith('div-gpt-ad') ||
      id === 'onetrust-consent-sdk' ||
      id === 'CybotCookiebotDialog' ||
      id.includes('cookie-banner') ||
      id.includes('cookie-consent'))
  )
    return true;
  const className = attribs.class;
  if (className !== undefined) {
    if (element.name === 'ins' && /(?:^|\s)adsbygoogle(?:\s|$)/.test(className)) return true;
    if (className.includes('cookie-banner') || className.includes('cookie-consent') || /(?:^|\s)cc-window(?:\s|$)/.test(className)) return true;
  }
  if (attribs['data-ad'] !== undefined || attribs['data-ad-slot'] !== undefined || attribs['data-adunit'] !== undefined) return true;
  return element.name === 'iframe' && /doubleclick|googlesyndication|amazon-adsystem/.test(attribs.src ?? '');
}

/**
 * PHP's own error display, printed into a page by a misconfigured server:
 * `<b>Warning</b>: message in <b>/path/file.php</b> on line <b>12</b><br />`. Its labels and
 * words are PHP's, whatever the page's language; never the page's content.
 */
const SERVER_ERROR_LABEL = /^(?:Warning|Notice|Deprecated|Strict Standards|(?:Catchable |Recoverable )?Fatal error|Parse error)$/;
const SERVER_ERROR_END = / on line \d{1,9}\s*$/;
/** Nodes of one error line, the label's included: "Label: message in <b>file</b> on line <b>12</b>". */
const SERVER_ERROR_NODES = 12;
/** What PHP's line is written with besides text: the file and line number in bold, a link to the manual. */
const INLINE_IN_ERROR = new Set(['b', 'i', 'a', 'span']);
/** Where such a line is quoted on purpose (a tutorial, a question about the error), it stays. */
const QUOTING = new Set(['pre', 'code', 'blockquote', 'textarea', 'samp', 'kbd']);

/**
 * The nodes of one PHP error line starting at `siblings[start]` (a `<b>` saying "Warning" and
 * the like), up to and with the `<br>` ending it; undefined when the run is not one. Bounded:
 * a few siblings are read, and ancestors only for a line that matched.
 */
function serverErrorLine(siblings: AnyNode[], start: number): AnyNode[] | undefined {
  const label = siblings[start] as Element;
  const first = label.children[0];
  if (label.children.length !== 1 || first?.type !== 'text' || !SERVER_ERROR_LABEL.test((first as { data: string }).data.trim())) return undefined;
  let text = '';
  let end = start + 1;
  for (; end < siblings.length && end - start < SERVER_ERROR_NODES; end++) {
    const node = siblings[end]!;
    if (isTag(node) && node.name === 'br') break;
    if (node.type === 'text') text += (node as { data: string }).data;
    else if (isTag(node) && INLINE_IN_ERROR.has(node.name)) text += textContent(node);
    else return undefined;
  }
  if (!/^:\s/.test(text) || !text.includes(' in ') || !SERVER_ERROR_END.test(text)) return undefined;
  for (let parent = label.parent; parent && isTag(parent); parent = parent.parent) if (QUOTING.has(parent.name)) return undefined;
  return siblings.slice(start, end < siblings.length ? end + 1 : end);
}

interface Walk {
  blockAds: boolean;
  /** Ad slots found, removed once the page's text is known. */
  ads: Element[];
  /** Hidden elements found, when onlyMainContent asks for them. */
  hidden?: Element[];
  /** The first <base href>, read before it goes. */
  baseHref?: string;
}

/**
 * One walk: always-dropped tags, comments and (with blockAds) ad slots go; hidden elements
 * are collected, and the page's text is measured for them. Returns the characters of text.
 */
function dropNonContent(nodes: AnyNode[], walk: Walk, collectHidden: boolean): number {
  let text = 0;
  // Backwards, so that removing a node does not skip the next one.
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!;
    if (node.type === 'text') text += (node as { data: string }).data.trim().length;
    else if (node.type === 'comment') removeElement(node);
    else if (isTag(node)) {
      // Main content only: the whole page keeps what the server printed.
      const errorLine = node.name === 'b' && walk.hidden ? serverErrorLine(nodes, i) : undefined;
      if (errorLine) {
        // The nodes after the label were counted already, on the way back.
        for (const part of errorLine.slice(1)) text -= textContent(part).trim().length;
        for (const part of errorLine) removeElement(part);
      } else if (walk.blockAds && !NEVER_ADS.has(node.name) && isAd(node)) {
        walk.ads.push(node);
        text += dropNonContent(node.children, walk, collectHidden);
      } else if (ALWAYS_DROPPED.has(node.name)) {
        if (node.name === 'base' && node.attribs.href !== undefined) walk.baseHref = node.attribs.href;
        else if (node.name === 'head') dropNonContent(node.children, walk, false);
        removeElement(node);
      } else if (collectHidden && walk.hidden && isHidden(node) && node.name !== 'html' && node.name !== 'body') {
        walk.hidden.push(node);
        text += textLength(node);
        dropNonContent(node.children, walk, false);
      } else if (node.children.length > 0) text += dropNonContent(node.children, walk, collectHidden);
    } else if (hasChildren(node)) text += dropNonContent(node.children, walk, collectHidden);
  }
  return text;
}

function keepOnly(document: Document, selectors: readonly string[]) {
  keepElements(document, selectIn([document], selectors.join(', ')));
}

/** The body (or the document) holds only `elements`, in document order. */
function keepElements(document: Document, elements: Element[]) {
  // An element inside another kept one comes along with its ancestor.
  const keptSet = new Set<AnyNode>(elements);
  const outermost = elements.filter((element) => {
    for (let parent = element.parent; parent; parent = parent.parent) if (keptSet.has(parent)) return false;
    return true;
  });
  const container = findBody(document) ?? document;
  if (outermost.length === 1 && outermost[0] === container) return;
  removeAll([...outermost, ...container.children]);
  setChildren(container, outermost);
}

function findBody(document: Document): Element | undefined {
  for (const node of document.children) {
    if (!isTag(node)) continue;
    if (node.name === 'body') return node;
    if (node.name === 'html') return node.children.find((child): child is Element => isTag(child) && child.name === 'body');
  }
  return undefined;
}

/** The <body>; a fragment without one gets one around its nodes. */
function bodyOf(document: Document): Element {
  const body = findBody(document);
  if (body) return body;
  // In one move: node by node, each removal searches the siblings, for seconds on a page of tens of thousands.
  const created = new ElementNode('body', {}, []);
  setChildren(created, document.children);
  setChildren(document, [created]);
  return created;
}

export function cleanHtml(document: Document, pageUrl: string, options: CleanOptions): void {
  const root = (): AnyNode[] => [document];
  moveBodyContentOutOfHead(document);
  // Read before the head goes: the main-content finder tells the page's own story by it.
  const title = options.onlyMainContent ? documentTitle(document) : '';
  const walk: Walk = { blockAds: options.blockAds, ads: [], ...(options.onlyMainContent && { hidden: [] }) };
  const text = dropNonContent(root(), walk, true);
  removeAds(walk.ads, text);
  // Backwards, the last <base> seen is the document's first.
  const base = absoluteUrl(walk.baseHref, pageUrl) ?? pageUrl;
  const hidden = walk.hidden;

  if (options.includeTags && options.includeTags.length > 0) keepOnly(document, options.includeTags);
  if (options.excludeTags && options.excludeTags.length > 0) removeAll(selectIn(root(), options.excludeTags.join(', ')));

  if (hidden) {
    removeHidden(hidden, text);
    keepElements(document, findMainContent(bodyOf(document), title).keep);
  }
  absoluteUrls(root(), base);
}

/**
 * Ad slots go, but never one holding most of the page's text: a mark that wide is a page-level
 * state class (`av-cookies-consent-enabled` on a wrapper), and removing it would empty the page.
 */
function removeAds(ads: Element[], pageText: number) {
  removeAll(ads.filter((element) => textLength(element) <= pageText / 2));
}

/** The text of the document's <title>, in its <head>. */
function documentTitle(document: Document): string {
  const html = document.children.find((node): node is Element => isTag(node) && node.name === 'html');
  const head = html?.children.find((node): node is Element => isTag(node) && node.name === 'head');
  const title = head?.children.find((node): node is Element => isTag(node) && node.name === 'title');
  return title ? textContent(title) : '';
}

/** What may stay in a <head>; anything else ends it (HTML's "in head" insertion mode). */
const HEAD_CONTENT = new Set(['base', 'basefont', 'bgsound', 'link', 'meta', 'noframes', 'noscript', 'script', 'style', 'template', 'title']);

/**
 * A page without `</head>` and `<body>` leaves htmlparser2 with everything inside <head>; a
 * browser ends the head at the first element or text that cannot be in it and puts that and
 * what follows in the body. Same here, so the page's content is not dropped with the head.
 */
function moveBodyContentOutOfHead(document: Document) {
  const html = document.children.find((node): node is Element => isTag(node) && node.name === 'html');
  const head = html?.children.find((node): node is Element => isTag(node) && node.name === 'head');
  if (!html || !head) return;
  const start = head.children.findIndex((node) =>
    isTag(node) ? !HEAD_CONTENT.has(node.name) : node.type === 'text' && (node as { data: string }).data.trim() !== '',
  );
  if (start < 0) return;
  const moved = head.children.slice(start);
  let body = html.children.find((node): node is Element => isTag(node) && node.name === 'body');
  if (!body) {
    body = new ElementNode('body', {}, []);
    appendChild(html, body);
  }
  // In one move, as in bodyOf.
  setChildren(head, head.children.slice(0, start));
  setChildren(body, [...moved, ...body.children]);
}

/** Links and images point where the page meant (its <base>), and lazy images at their real source. */
function absoluteUrls(nodes: AnyNode[], base: string) {
  for (const node of nodes) {
    if (node.type === 'text') continue;
    if (!isTag(node)) {
      if (hasChildren(node)) absoluteUrls(node.children, base);
      continue;
    }
    if (node.name === 'a' && node.attribs.href !== undefined) {
      const href = absoluteUrl(node.attribs.href, base);
      if (href) node.attribs.href = href;
    } else if (node.name === 'img') {
      const lazy = lazySource(node.attribs);
      if (lazy && (!node.attribs.src || node.attribs.src.startsWith('data:'))) node.attribs.src = lazy;
      const src = node.attribs.src;
      const absolute = src && !src.startsWith('data:') ? absoluteUrl(src, base) : undefined;
      if (absolute) node.attribs.src = absolute;
    }
    if (node.children.length > 0) absoluteUrls(node.children, base);
  }
}
