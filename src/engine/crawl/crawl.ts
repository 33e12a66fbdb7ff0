/**
 * The crawler: from a root URL, pages of the same site found by links and sitemaps, each
 * scraped by the engine's scrape function. Respects robots.txt (unless told not to), keeps
 * per-host concurrency and politeness delays, and streams results: only URLs are kept in
 * memory, never documents.
 */
import { load } from 'cheerio/slim';
import robotsParserModule from 'robots-parser';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import { decodeBody } from '../fetch/decode.js';
import { fetchPage, parseTargetUrl } from '../fetch/fetch-page.js';
import { requestHeaders } from '../fetch/request-headers.js';
import { scrape, type ScrapeContext } from '../scrape/scrape.js';
import { CrawlFrontier, type FrontierItem } from './frontier.js';
import { addRoot, inScope, normalizedUrl, normalizeUrl, pathAllowed } from './urls.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { compilePathPattern, PathPatternError, type PathPattern } from '../../spec/path-patterns.js';
import { CRAWL_DEFAULTS } from './defaults.js';

export interface CrawlOptions {
  limit?: number | undefined;
  maxDepth?: number | undefined;
  includePaths?: string[] | undefined;
  excludePaths?: string[] | undefined;
  allowExternalLinks?: boolean | undefined;
  allowSubdomains?: boolean | undefined;
  crawlEntireDomain?: boolean | undefined;
  ignoreRobotsTxt?: boolean | undefined;
  ignoreQueryParameters?: boolean | undefined;
  sitemap?: 'include' | 'skip' | 'only' | undefined;
  /** Seconds between two requests to the same host. */
  delay?: number | undefined;
  maxConcurrency?: number | undefined;
  /** The path patterns match the whole URL instead of its path and query (the hosted API's option). */
  regexOnFullURL?: boolean | undefined;
}

/**
 * How a crawl's pages are paced beyond its own options (serve: its politeness setting and the
 * team's page slots). Without it, the command line's defaults (CRAWL_DEFAULTS).
 */
export interface CrawlPacing {
  /** Pages of one host at once; a crawl delay (its own or robots.txt's) makes it 1. */
  perHost?: number | undefined;
  /** Waits for a slot before each page is fetched; the slot is given back once the page is. */
  pageSlot?: (() => Promise<() => void>) | undefined;
}

const SITEMAP_FILES_MAX = 20;
/** How long the crawl goes through a page's links before it lets other work run. */
const LINK_WORK_SLICE_MS = 10;
export const ROBOTS_AGENT = 'webwatch';

export type { CrawlPage, CrawlSummary } from '../../contract/crawl.js';
import type { CrawlPage, CrawlSummary } from '../../contract/crawl.js';

export const ROBOTS_BLOCKED_LISTED = 1000;

export interface Robots {
  isAllowed(url: string, agent?: string): boolean | undefined;
  getCrawlDelay(agent?: string): number | undefined;
  getSitemaps(): string[];
}

// A CommonJS module whose type declarations do not describe its default export.
const robotsParser = robotsParserModule as unknown as (url: string, text: string) => Robots;

/** The text of a robots.txt or sitemap, and the URL it was served from after redirects; undefined when it could not be read. */
async function fetchText(url: string, context: ScrapeContext, options: ScrapeOptions): Promise<{ text: string; finalUrl: string } | undefined> {
  try {
    const page = await fetchPage({
      url,
      timeoutMs: 15_000,
      headers: requestHeaders(options, context.version),
      skipTlsVerification: options.skipTlsVerification ?? true,
      maxBytes: 10 * 1024 * 1024,
      ...(context.checkUrl && { checkUrl: context.checkUrl }),
      ...(context.publicAddressesOnly && { publicAddressesOnly: true }),
      ...(context.signal && { signal: context.signal }),
    });
    return page.statusCode < 400 ? { text: decodeBody(page.body, page.contentType, false).text, finalUrl: page.finalUrl } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The robots.txt of `root`'s origin. Its rules apply to the origin it was served from: an apex
 * whose robots.txt redirects to www's has www's rules, for www's pages.
 */
export async function loadRobots(root: URL, context: ScrapeContext, options: ScrapeOptions): Promise<Robots | undefined> {
  const fetched = await fetchText(new URL('/robots.txt', root).href, context, options);
  return fetched && robotsParser(fetched.finalUrl, fetched.text);
}

/** The robots.txt files of a crawl's site, read once per origin, each judging the pages of its own origin. */
function siteRobots(context: ScrapeContext, options: ScrapeOptions) {
  const files: Robots[] = [];
  const asked = new Set<string>();
  return {
    /** Reads the robots.txt of `url`'s origin unless one read already covers it. */
    async read(url: URL): Promise<void> {
      if (asked.has(url.origin) || files.some((robots) => robots.isAllowed(url.href, ROBOTS_AGENT) !== undefined)) return;
      asked.add(url.origin);
      const robots = await loadRobots(url, context, options);
      if (robots) files.push(robots);
    },
    blocks: (url: string) => files.some((robots) => robots.isAllowed(url, ROBOTS_AGENT) === false),
    crawlDelay: () => Math.max(0, ...files.map((robots) => robots.getCrawlDelay(ROBOTS_AGENT) ?? 0)),
    sitemaps: () => [...new Set(files.flatMap((robots) => robots.getSitemaps()))],
  };
}

/** URLs of a sitemap, following sitemap indexes (bounded). */
export async function sitemapUrls(start: string[], context: ScrapeContext, options: ScrapeOptions): Promise<string[]> {
  const queue = [...start];
  const seen = new Set<string>();
  const pages: string[] = [];
  while (queue.length > 0 && seen.size < SITEMAP_FILES_MAX) {
    const url = queue.shift()!;
    if (seen.has(url)) continue;
    seen.add(url);
    const xml = (await fetchText(url, context, options))?.text;
    if (!xml) continue;
    const $ = load(xml, { xml: true });
    $('sitemap > loc').each((_, element) => void queue.push($(element).text().trim()));
    $('url > loc').each((_, element) => void pages.push($(element).text().trim()));
  }
  return pages;
}

/**
 * The crawl's path patterns, compiled by the linear-time engine. Requests were validated, but a
 * monitor stored by an older webwatch may hold a pattern only JavaScript's engine took: its
 * check fails with the field named instead of running it on a backtracking engine.
 */
function compilePathPatterns(sources: readonly string[] | undefined, field: 'includePaths' | 'excludePaths'): PathPattern[] {
  return (sources ?? []).map((source, index) => {
    try {
      return compilePathPattern(source);
    } catch (error) {
      if (!(error instanceof PathPatternError)) throw error;
      throw new WebwatchError(ERROR_MESSAGES.badRequest, { status: 400, details: [{ path: `crawlOptions.${field}[${index}]`, message: error.message }] });
    }
  });
}

/**
 * The site is the start URL's host, with and without `www.`, and the host the start page was
 * redirected to: its pages are crawled by the scope rules, by its robots.txt, from its sitemap.
 * The start page is always read for its links, but returned only when the path patterns let in
 * the page it landed on.
 */
export async function crawl(
  rootUrl: string,
  crawlOptions: CrawlOptions,
  scrapeOptions: ScrapeOptions,
  context: ScrapeContext,
  onPage: (page: CrawlPage) => void | Promise<void>,
  pacing: CrawlPacing = {},
): Promise<CrawlSummary> {
  const root = parseTargetUrl(rootUrl);
  const limit = crawlOptions.limit ?? CRAWL_DEFAULTS.limit;
  const maxDepth = crawlOptions.maxDepth ?? CRAWL_DEFAULTS.maxDepth;
  const ignoreQuery = crawlOptions.ignoreQueryParameters ?? false;
  const scope = {
    allowExternalLinks: crawlOptions.allowExternalLinks ?? false,
    allowSubdomains: crawlOptions.allowSubdomains ?? false,
    crawlEntireDomain: crawlOptions.crawlEntireDomain ?? false,
    includePaths: compilePathPatterns(crawlOptions.includePaths, 'includePaths'),
    excludePaths: compilePathPatterns(crawlOptions.excludePaths, 'excludePaths'),
    fullUrl: crawlOptions.regexOnFullURL === true,
  };
  const roots = [root];
  const startUrl = normalizeUrl(root.href, ignoreQuery);
  const robots = crawlOptions.ignoreRobotsTxt ? undefined : siteRobots(context, scrapeOptions);
  await robots?.read(root);
  let delayMs = 0;
  const politeness = pacing.perHost ?? CRAWL_DEFAULTS.perHostConcurrency;
  let perHost = politeness;
  const pace = () => {
    delayMs = Math.max(crawlOptions.delay ?? 0, robots?.crawlDelay() ?? 0) * 1000;
    perHost = delayMs > 0 ? 1 : politeness;
  };
  pace();
  const maxConcurrency = crawlOptions.maxConcurrency ?? CRAWL_DEFAULTS.maxConcurrency;

  const seen = new Set<string>();
  const queue = new CrawlFrontier();
  const summary: CrawlSummary = { pages: 0, errors: 0, skippedByRobots: 0, robotsBlocked: [] };
  let scheduled = 0;
  const enqueue = (value: string, depth: number) => {
    const parsed = normalizedUrl(value, ignoreQuery);
    if (!parsed) return;
    const url = parsed.href;
    if (seen.has(url) || scheduled >= limit || depth > maxDepth) return;
    if (url !== startUrl && !inScope(parsed, roots, scope)) return;
    seen.add(url);
    if (robots?.blocks(url)) {
      summary.skippedByRobots++;
      if (summary.robotsBlocked.length < ROBOTS_BLOCKED_LISTED) summary.robotsBlocked.push(url);
      return;
    }
    scheduled++;
    queue.push({ url, depth, host: parsed.host });
  };

  /**
   * Matching links against path patterns takes linear time, yet a page of many thousand long
   * links still takes a while: the event loop is given back every few milliseconds, so that a
   * server goes on answering its other requests meanwhile.
   */
  const enqueueLinks = async (links: readonly string[], depth: number) => {
    let since = performance.now();
    for (const link of links) {
      enqueue(link, depth);
      if (performance.now() - since < LINK_WORK_SLICE_MS) continue;
      await new Promise(setImmediate);
      since = performance.now();
    }
  };

  // Links are needed to go on, whatever formats were asked for.
  const formats = scrapeOptions.formats ?? ['markdown'];
  const wantsLinks = formats.some((format) => (typeof format === 'string' ? format : format.type) === 'links');
  const pageOptions: ScrapeOptions = { ...scrapeOptions, formats: wantsLinks ? formats : [...formats, 'links'] };

  const activePerHost = new Map<string, number>();
  const lastStart = new Map<string, number>();
  let active = 0;

  /** A page scraped: what the crawl returns for it, and the links to go on with. */
  async function scrapeItem(item: FrontierItem): Promise<{ result: CrawlPage; links: readonly string[] }> {
    const { host } = item;
    const wait = (lastStart.get(host) ?? -Infinity) + delayMs - Date.now();
    lastStart.set(host, Date.now() + Math.max(0, wait));
    if (wait > 0) await sleep(wait, undefined, context.signal ? { signal: context.signal } : undefined);
    // Taken after the pause: a page waiting out a crawl delay holds no slot.
    const release = await pacing.pageSlot?.();
    try {
      const document = await scrape({ url: item.url, options: pageOptions }, context);
      const isHtml = /html/.test(document.metadata.contentType ?? 'text/html');
      const links = isHtml && item.depth < maxDepth ? (document.links ?? []) : [];
      if (!wantsLinks) delete document.links;
      return { result: { url: item.url, depth: item.depth, document }, links };
    } catch (error) {
      return { result: { url: item.url, depth: item.depth, error }, links: [] };
    } finally {
      release?.();
    }
  }

  async function report(result: CrawlPage) {
    if ('document' in result) summary.pages++;
    else summary.errors++;
    await onPage(result);
  }

  async function visit(item: FrontierItem) {
    const { result, links } = await scrapeItem(item);
    // A page that redirected out of the crawl's scope (another site, a path includePaths or
    // excludePaths rule out) is not returned, as the hosted API drops it: it is listed among the
    // crawl's errors, and its links are not followed.
    const landed = 'document' in result ? result.document.metadata.url : undefined;
    if (landed && !inScope(new URL(landed), roots, scope)) {
      const error = new WebwatchError(`redirected to ${landed}, outside the crawl's scope`, { code: 'CRAWL_REDIRECT_OUT_OF_SCOPE' });
      await report({ url: item.url, depth: item.depth, error });
      return;
    }
    await enqueueLinks(links, item.depth + 1);
    await report(result);
  }

  const sitemapMode = crawlOptions.sitemap ?? 'include';
  // The start page first, alone: where it lands is the site too, for its links and sitemap.
  let site = root;
  let startLinks: readonly string[] = [];
  if (sitemapMode !== 'only') enqueue(root.href, 0);
  const start = queue.take();
  if (start) {
    if (context.signal?.aborted) throw context.signal.reason;
    const { result, links } = await scrapeItem(start);
    startLinks = links;
    if ('document' in result) {
      site = new URL(result.document.metadata.url || start.url);
      addRoot(roots, site);
      // Its links lead back to it under the address it landed on.
      const landed = normalizeUrl(site.href, ignoreQuery);
      if (landed) seen.add(landed);
      await robots?.read(site);
      pace();
    }
    if ('error' in result || pathAllowed(site, scope)) await report(result);
    // Read for its links only: it does not take a page of the limit.
    else scheduled--;
  }
  if (sitemapMode !== 'skip') {
    const declared = robots?.sitemaps() ?? [];
    const found = await sitemapUrls(declared.length > 0 ? declared : [new URL('/sitemap.xml', site).href], context, scrapeOptions);
    // Sitemap entries are seeds, like the start URL.
    await enqueueLinks(found, 0);
  }
  if (start) await enqueueLinks(startLinks, start.depth + 1);

  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      if (context.signal?.aborted) return reject(context.signal.reason);
      const hasRoom = (host: string) => (activePerHost.get(host) ?? 0) < perHost;
      while (active < maxConcurrency) {
        const item = queue.take(hasRoom);
        if (!item) break;
        const { host } = item;
        active++;
        activePerHost.set(host, (activePerHost.get(host) ?? 0) + 1);
        visit(item)
          .then(() => {
            active--;
            activePerHost.set(host, activePerHost.get(host)! - 1);
            pump();
          })
          .catch(reject);
      }
      if (active === 0 && queue.size === 0) resolve();
    };
    pump();
  });
  return summary;
}
