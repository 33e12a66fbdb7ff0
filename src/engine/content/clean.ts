/**
 * The HTML-level content filter: always-dropped tags, includeTags / excludeTags (CSS
 * selectors), onlyMainContent (page chrome and common non-main blocks removed, while any
 * element that holds the main content is kept), blockAds, and absolute link and image URLs.
 * Deterministic: no model involved.
 */
import type { Cheerio, CheerioAPI } from 'cheerio/slim';
import type { AnyNode, Element } from 'domhandler';
import { findMainContent } from './main-content.js';
import { absoluteUrl, baseUrlOf } from './metadata.js';

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
  $(MAIN_CANDIDATES).each((_, element) => {
    const length = $(element).text().length;
    if (length > bestLength) {
      best = element;
      bestLength = length;
    }
  });
  return best;
}

/** Removes `elements` except those that are, or contain, or sit inside `keep`. */
function removeUnlessMain($: CheerioAPI, elements: Cheerio<AnyNode>, keep: Element | undefined, insideKeepToo: boolean) {
  elements.each((_, element) => {
    if (keep) {
      if (element === keep || $(element).find(keep as never).length > 0) return;
      if (!insideKeepToo && $(keep).find(element as never).length > 0) return;
    }
    $(element).remove();
  });
}

function keepOnly($: CheerioAPI, selectors: readonly string[]) {
  keepElements($, $(selectors.join(', ')).toArray() as Element[]);
}

function keepElements($: CheerioAPI, elements: Element[]) {
  const kept = $(elements);
  // An element inside another kept one comes along with its ancestor.
  const outermost = kept.filter((_, element) => $(element).parents().filter((__, parent) => kept.is(parent as never)).length === 0);
  const clones = outermost.toArray().map((element) => $(element).clone());
  const body = $('body');
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
  $('td, th, tr, tbody, thead, tfoot, caption')
    .filter((_, element) => $(element).closest('table').length === 0)
    .each((_, element) => void ((element as Element).name = 'div'));
  $('pre').each((_, pre) => {
    const code = $(pre).children('code').first();
    const language = /(?:^|\s)(?:lang|language)-([\w+#.-]+)/.exec(`${code.attr('class') ?? ''} ${pre.attribs.class ?? ''}`)?.[1];
    if (language && code.length > 0 && !/(?:^|\s)language-/.test(code.attr('class') ?? '')) code.addClass(`language-${language}`);
  });
  $('img').each((_, element) => {
    const lazy = lazySource(element.attribs);
    const src = element.attribs.src;
    if (lazy && (!src || src.startsWith('data:'))) element.attribs.src = lazy;
  });
}

export function cleanHtml($: CheerioAPI, pageUrl: string, options: CleanOptions): void {
  const base = baseUrlOf($, pageUrl);
  $(ALWAYS_DROPPED).remove();
  $('*').contents().filter((_, node) => node.type === 'comment').remove();

  if (options.includeTags && options.includeTags.length > 0) keepOnly($, options.includeTags);
  if (options.excludeTags && options.excludeTags.length > 0) $(options.excludeTags.join(', ')).remove();
  if (options.blockAds) $(AD_SELECTORS).remove();

  if (options.onlyMainContent) {
    const main = mainContent($);
    // Page chrome inside the main content (an article's own header) stays; outside, it goes.
    removeUnlessMain($, $(`${CHROME_TAGS}, ${CHROME_ROLES}`), main, false);
    removeUnlessMain($, $('[class], [id]').filter((_, element) => hasWord(element as Element, CHROME_WORDS)), main, false);
    removeUnlessMain($, $('[class], [id]').filter((_, element) => hasWord(element as Element, CLUTTER_WORDS)), main, true);
    // What is left around the scored main content (teasers, link lists) goes too.
    const kept = findMainContent($);
    if (kept) keepElements($, kept);
  }

  prepareForMarkdown($);

  $('a[href]').each((_, element) => {
    const href = absoluteUrl(element.attribs.href, base);
    if (href) element.attribs.href = href;
  });
  $('img[src]').each((_, element) => {
    const src = element.attribs.src!;
    if (src.startsWith('data:')) return;
    const absolute = absoluteUrl(src, base);
    if (absolute) element.attribs.src = absolute;
  });
}
