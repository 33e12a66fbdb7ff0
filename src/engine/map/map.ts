/**
 * Map: the URLs of a site, fast — from its sitemaps (sitemap.xml, or those robots.txt names)
 * and the links of its start page, without scraping every page. Titles come from the anchors'
 * text where a link was found on the start page (one of 256 KiB or more gives its links only). The site is the start URL's host, with and
 * without `www.`, and the host its start page was redirected to. With a `timeout`, a map that
 * runs out of it fails as the hosted API's does: 408 `Map timed out` (code MAP_TIMEOUT), with
 * none of what it found so far.
 */
import { load } from 'cheerio/slim';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { SCRAPE_TIMEOUT_MAX_MS } from '../../spec/limits.js';
import { loadRobots, sitemapUrls } from '../crawl/crawl.js';
import { addRoot, normalizeUrl, onSubdomain, rootOf } from '../crawl/urls.js';
import { parseTargetUrl } from '../fetch/fetch-page.js';
import { OFF_LOOP_MIN_BYTES } from '../scrape/content-type.js';
import { scrape, type ScrapeContext } from '../scrape/scrape.js';
import type { MapRequest } from '../../spec/map.js';

export type { MapLink } from '../../contract/map.js';
import type { MapLink } from '../../contract/map.js';

const TEXT_MAX = 300;
/** The longest delay a timer takes (2^31 - 1 ms, about 24 days): a longer timeout is, in effect, none. */
const TIMER_MAX_MS = 2 ** 31 - 1;

export async function mapSite(request: MapRequest, context: ScrapeContext): Promise<MapLink[]> {
  if (request.timeout === undefined) return mapWithin(request, context, undefined);
  const timeoutMs = Math.min(Math.ceil(request.timeout), TIMER_MAX_MS);
  const timedOut = () => new WebwatchError(ERROR_MESSAGES.mapTimeout, { status: 408, details: { url: request.url, timeoutMs: request.timeout } });
  // The timer stops every request of the map, and answers at once: reading robots.txt and the
  // sitemaps skips what fails, so a stopped map could otherwise end with part of the site.
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      stop.abort();
      reject(timedOut());
    }, timeoutMs);
  });
  const signal = context.signal ? AbortSignal.any([context.signal, stop.signal]) : stop.signal;
  try {
    return await Promise.race([mapWithin(request, { ...context, signal }, timeoutMs), expired]);
  } catch (error) {
    if (stop.signal.aborted && !context.signal?.aborted) throw timedOut();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

async function mapWithin(request: MapRequest, scoped: ScrapeContext, timeoutMs: number | undefined): Promise<MapLink[]> {
  const root = parseTargetUrl(request.url);
  const ignoreQuery = request.ignoreQueryParameters ?? true;
  const limit = request.limit;
  const roots = [root];
  const onSite = (url: URL) => rootOf(url, roots) !== undefined || (request.includeSubdomains === true && onSubdomain(url, roots));
  const found = new Map<string, MapLink>();
  const add = (value: string, base: string, text?: { title?: string; description?: string }) => {
    let absolute: URL;
    try {
      absolute = new URL(value, base);
    } catch {
      return;
    }
    const url = normalizeUrl(absolute.href, ignoreQuery);
    if (!url || !onSite(new URL(url))) return;
    const known = found.get(url);
    if (known) {
      if (!known.title && text?.title) known.title = text.title;
      return;
    }
    found.set(url, { url, ...(text?.title && { title: text.title }), ...(text?.description && { description: text.description }) });
  };

  // The start page within the map's timeout, and never longer than a scrape may take (§8).
  const pageOptions = {
    formats: ['rawHtml' as const, 'links' as const],
    onlyMainContent: false,
    ...(timeoutMs !== undefined && { timeout: Math.min(timeoutMs, SCRAPE_TIMEOUT_MAX_MS) }),
  };

  const sitemap = request.sitemap ?? 'include';
  // Where the start page landed: the site's sitemap is looked for there.
  let site = root;
  if (sitemap !== 'only') {
    // The start page: itself, with its title and description, and the links it has.
    const document = await scrape({ url: root.href, options: pageOptions }, scoped);
    const base = document.metadata.url || root.href;
    site = new URL(base);
    addRoot(roots, site);
    add(base, base, {
      ...(document.metadata.title && { title: document.metadata.title }),
      ...(document.metadata.description && { description: document.metadata.description }),
    });
    const html = document.rawHtml ?? '';
    if (html.length >= OFF_LOOP_MIN_BYTES) {
      // Parsing a page this large here would hold the thread for seconds: its links as the conversion found them (off the loop on a server), without titles.
      for (const link of document.links ?? []) add(link, base);
    } else {
      const $ = load(html);
      $('a[href]').each((_, element) => {
        const title = $(element).text().replace(/\s+/g, ' ').trim().slice(0, TEXT_MAX) || $(element).attr('title')?.trim().slice(0, TEXT_MAX);
        add($(element).attr('href')!, base, title ? { title } : undefined);
      });
    }
  }
  if (sitemap !== 'skip') {
    const robots = (await loadRobots(site, scoped, {})) ?? (site.origin === root.origin ? undefined : await loadRobots(root, scoped, {}));
    const declared = robots?.getSitemaps() ?? [];
    for (const url of await sitemapUrls(declared.length > 0 ? declared : [new URL('/sitemap.xml', site).href], scoped, {})) {
      add(url, root.href);
      if (found.size >= limit * 4 && !request.search) break;
    }
  }

  let links = [...found.values()];
  if (request.search) {
    // Relevance: the more of the search's words a URL or its title holds, the earlier it comes.
    const words = request.search.toLowerCase().split(/\s+/).filter(Boolean);
    const score = (link: MapLink) => {
      const haystack = `${link.url} ${link.title ?? ''} ${link.description ?? ''}`.toLowerCase();
      return words.filter((word) => haystack.includes(word)).length;
    };
    links = links
      .map((link) => ({ link, score: score(link) }))
      .filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score)
      .map(({ link }) => link);
  }
  return links.slice(0, limit);
}
