/**
 * The HTML-level content filter: always-dropped tags, includeTags / excludeTags (CSS
 * selectors), onlyMainContent (page chrome and common non-main blocks removed, while any
 * element that holds the main content is kept), blockAds, and absolute link and image URLs.
 * Deterministic: no model involved.
 */
import type { CheerioAPI } from 'cheerio/slim';
import type { AnyNode, Element } from 'domhandler';
import { filter, isComment, removeElement, textContent } from 'domutils';
import { findMainContent } from './main-content.js';
import { absoluteUrl, baseUrlOf } from './metadata.js';
import { closest, select, selectIn } from './select.js';

export interface CleanOptions {
  onlyMainContent: boolean;
  includeTags?: readonly string[];
  excludeTags?: readonly string[];
  blockAds: boolean;
}

const ALWAYS_DROPPED = 'head, title, script, style, noscript, meta, link, template, svg, canvas, object, embed, base';

const CHROME_TAGS = 'header, footer, nav, aside, form[role=search], dialog';
const CHROME_ROLES = '[role=navigation], [role=banner], [role=contentinfo], [role=complementary], [role=search], [role=dialog], [role=alertdialog]';

/** Class and id words of page chrome: removed outside the main content, kept inside it. */
const CHROME_WORDS = /(?:^|[\s_-])(?:sidebar|menu|menus|navbar|nav|navigation|masthead|toolbar|footer|header|banner|comments?|disqus)(?:$|[\s_-])/i;

/** Class and id words of blocks that are never content, wherever they sit. */
const CLUTTER_WORDS = /(?:^|[\s_-])(?:breadcrumbs?|cookies?|consent|gdpr|share|sharing|social|newsletter|subscribe|subscription|related|recommended|promo|promotions?|advert|adverts|advertisement|ads?|sponsor|sponsored|popup|modal|overlay|skip|signup|paywall)(?:$|[\s_-])/i;

const AD_SELECTORS = [
  'ins.adsbygoogle', '[id^=google_ads]', '[id^=div-gpt-ad]', '[data-ad]', '[data-ad-slot]', '[data-adunit]',
  'iframe[src*=doubleclick]', 'iframe[src*=googlesyndication]', 'iframe[src*=amazon-adsystem]',
  '[class*=cookie-banner]', '[id*=cookie-banner]', '[class*=cookie-consent]', '[id*=cookie-consent]',
  '#onetrust-consent-sdk', '#CybotCookiebotDialog', '.cc-window',
].join(', ');

const MAIN_CANDIDATES = 'main, [role=main], article, #content, #main, #main-content, .main-content, .post-content, .entry-content, .article-body';

function hasWord(element: Element, words: RegExp): boolean {
  const { class: className = '', id = '' } = element.attribs;
  return words.test(className) || words.test(id);
}

/** The element most likely to hold the main content: the candidate with the most text. */
function mainContent($: CheerioAPI): Element | undefined {
  let best: Element | undefined;
  let bestLength = 0;
  for (const element of selectIn($.root().toArray(), MAIN_CANDIDATES)) {
    const length = textContent(element).length;
    if (length > bestLength) {
      best = element;
      bestLength = length;
    }
  }
  return best;
}

const contains = (ancestor: AnyNode, node: AnyNode) => {
  for (let current: AnyNode | null = node; current; current = current.parent) if (current === ancestor) return true;
  return false;
};

/** Removes `elements` except those that are, or contain, or sit inside `keep`. */
function removeUnlessMain(elements: readonly Element[], keep: Element | undefined, insideKeepToo: boolean) {
  for (const element of elements) {
    if (keep) {
      if (contains(element, keep)) continue;
      if (!insideKeepToo && contains(keep, element)) continue;
    }
    // An element inside one removed before is already gone with it.
    removeElement(element);
  }
}

function keepOnly($: CheerioAPI, selectors: readonly string[]) {
  keepElements($, selectIn($.root().toArray(), selectors.join(', ')));
}

function keepElements($: CheerioAPI, elements: Element[]) {
  // An element inside another kept one comes along with its ancestor.
  const keptSet = new Set<AnyNode>(elements);
  const outermost = elements.filter((element) => {
    for (let parent = element.parent; parent; parent = parent.parent) if (keptSet.has(parent)) return false;
    return true;
  });
  const clones = outermost.map((element) => $(element).clone());
  const body = select($, 'body');
  if (body.length > 0) {
    body.empty();
    for (const clone of clones) body.append(clone);
  } else {
    $.root().empty();
    for (const clone of clones) $.root().append(clone);
  }
}

const LAZY_SOURCES = ['data-src', 'data-lazy-src', 'data-original'];

/** Lazy-loaded images name their real source in a data attribute. */
export function lazySource(attributes: Record<string, string>): string | undefined {
  return LAZY_SOURCES.map((name) => attributes[name]).find((value) => value && !value.startsWith('data:'));
}

/**
 * Fixes that make markdown come out right: table parts outside a table become blocks (the
 * converter would emit stray pipes), `lang-x` and a language on <pre> reach <code>, and lazy
 * images get their real source.
 */
function prepareForMarkdown($: CheerioAPI) {
  for (const element of selectIn($.root().toArray(), 'td, th, tr, tbody, thead, tfoot, caption')) {
    if (!closest(element, 'table')) element.name = 'div';
  }
  select($, 'pre').each((_, pre) => {
    const code = $(pre).children('code').first();
    const language = /(?:^|\s)(?:lang|language)-([\w+#.-]+)/.exec(`${code.attr('class') ?? ''} ${pre.attribs.class ?? ''}`)?.[1];
    if (language && code.length > 0 && !/(?:^|\s)language-/.test(code.attr('class') ?? '')) code.addClass(`language-${language}`);
  });
  for (const element of selectIn($.root().toArray(), 'img')) {
    const lazy = lazySource(element.attribs);
    const src = element.attribs.src;
    if (lazy && (!src || src.startsWith('data:'))) element.attribs.src = lazy;
  }
}

export function cleanHtml($: CheerioAPI, pageUrl: string, options: CleanOptions): void {
  const root = () => $.root().toArray();
  const base = baseUrlOf(root(), pageUrl);
  for (const element of selectIn(root(), ALWAYS_DROPPED)) removeElement(element);
  for (const comment of filter(isComment, root(), true)) removeElement(comment);

  if (options.includeTags && options.includeTags.length > 0) keepOnly($, options.includeTags);
  if (options.excludeTags && options.excludeTags.length > 0) for (const element of selectIn(root(), options.excludeTags.join(', '))) removeElement(element);
  if (options.blockAds) for (const element of selectIn(root(), AD_SELECTORS)) removeElement(element);

  if (options.onlyMainContent) {
    const main = mainContent($);
    // Page chrome inside the main content (an article's own header) stays; outside, it goes.
    removeUnlessMain(selectIn(root(), `${CHROME_TAGS}, ${CHROME_ROLES}`), main, false);
    const named = selectIn(root(), '[class], [id]');
    removeUnlessMain(named.filter((element) => hasWord(element, CHROME_WORDS)), main, false);
    removeUnlessMain(named.filter((element) => hasWord(element, CLUTTER_WORDS)), main, true);
    // What is left around the scored main content (teasers, link lists) goes too.
    const kept = findMainContent($);
    if (kept) keepElements($, kept);
  }

  prepareForMarkdown($);

  for (const element of selectIn(root(), 'a[href]')) {
    const href = absoluteUrl(element.attribs.href, base);
    if (href) element.attribs.href = href;
  }
  for (const element of selectIn(root(), 'img[src]')) {
    const src = element.attribs.src!;
    if (src.startsWith('data:')) continue;
    const absolute = absoluteUrl(src, base);
    if (absolute) element.attribs.src = absolute;
  }
}
