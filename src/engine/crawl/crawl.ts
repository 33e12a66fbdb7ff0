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
import { requestHeaders } from '../scrape/request-headers.js';
import { scrape, type ScrapeContext } from '../scrape/scrape.js';
import { inScope, normalizeUrl } from './urls.js';
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

async function fetchText(url: string, context: ScrapeContext, options: ScrapeOptions): Promise<string | undefined> {
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
    return page.statusCode < 400 ? decodeBody(page.body, page.contentType, false).text : undefined;
  } catch {
    return undefined;
  }
}

export async function loadRobots(root: URL, context: ScrapeContext, options: ScrapeOptions): Promise<Robots | undefined> {
  const url = new URL('/robots.txt', root).href;
  const text = await fetchText(url, context, options);
  return text === undefined ? undefined : robotsParser(url, text);
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
    const xml = await fetchText(url, context, options);
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

export async function crawl(
  rootUrl: string,
  crawlOptions: CrawlOptions,
  scrapeOptions: ScrapeOptions,
  context: ScrapeContext,
  onPage: (page: CrawlPage) => void | Promise<void>,
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
  };
  const robots = crawlOptions.ignoreRobotsTxt ? undefined : await loadRobots(root, context, scrapeOptions);
  const delayMs = Math.max(crawlOptions.delay ?? 0, robots?.getCrawlDelay(ROBOTS_AGENT) ?? 0) * 1000;
  const perHost = delayMs > 0 ? 1 : CRAWL_DEFAULTS.perHostConcurrency;
  const maxConcurrency = crawlOptions.maxConcurrency ?? CRAWL_DEFAULTS.maxConcurrency;

  const seen = new Set<string>();
  const queue: { url: string; depth: number }[] = [];
  const summary: CrawlSummary = { pages: 0, errors: 0, skippedByRobots: 0, robotsBlocked: [] };
  let scheduled = 0;
  const enqueue = (value: string, depth: number) => {
    const url = normalizeUrl(value, ignoreQuery);
    if (!url || seen.has(url) || scheduled >= limit || depth > maxDepth) return;
    const parsed = new URL(url);
    if (url !== normalizeUrl(root.href, ignoreQuery) && !inScope(parsed, root, scope)) return;
    seen.add(url);
    if (robots && robots.isAllowed(url, ROBOTS_AGENT) === false) {
      summary.skippedByRobots++;
      if (summary.robotsBlocked.length < ROBOTS_BLOCKED_LISTED) summary.robotsBlocked.push(url);
      return;
    }
    scheduled++;
    queue.push({ url, depth });
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

  const sitemapMode = crawlOptions.sitemap ?? 'include';
  if (sitemapMode !== 'only') enqueue(root.href, 0);
  if (sitemapMode !== 'skip') {
    const declared = robots?.getSitemaps() ?? [];
    const found = await sitemapUrls(declared.length > 0 ? declared : [new URL('/sitemap.xml', root).href], context, scrapeOptions);
    // Sitemap entries are seeds, like the start URL.
    await enqueueLinks(found, 0);
  }

  // Links are needed to go on, whatever formats were asked for.
  const formats = scrapeOptions.formats ?? ['markdown'];
  const wantsLinks = formats.some((format) => (typeof format === 'string' ? format : format.type) === 'links');
  const pageOptions: ScrapeOptions = { ...scrapeOptions, formats: wantsLinks ? formats : [...formats, 'links'] };

  const activePerHost = new Map<string, number>();
  const lastStart = new Map<string, number>();
  let active = 0;

  async function visit(item: { url: string; depth: number }) {
    const host = new URL(item.url).host;
    const wait = (lastStart.get(host) ?? -Infinity) + delayMs - Date.now();
    lastStart.set(host, Date.now() + Math.max(0, wait));
    if (wait > 0) await sleep(wait, undefined, context.signal ? { signal: context.signal } : undefined);
    let result: CrawlPage;
    try {
      const document = await scrape({ url: item.url, options: pageOptions }, context);
      const isHtml = /html/.test(document.metadata.contentType ?? 'text/html');
      if (isHtml && item.depth < maxDepth) await enqueueLinks(document.links ?? [], item.depth + 1);
      if (!wantsLinks) delete document.links;
      result = { url: item.url, depth: item.depth, document };
      summary.pages++;
    } catch (error) {
      result = { url: item.url, depth: item.depth, error };
      summary.errors++;
    }
    await onPage(result);
  }

  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      if (context.signal?.aborted) return reject(context.signal.reason);
      for (let i = 0; i < queue.length && active < maxConcurrency; ) {
        const host = new URL(queue[i]!.url).host;
        if ((activePerHost.get(host) ?? 0) >= perHost) {
          i++;
          continue;
        }
        const [item] = queue.splice(i, 1);
        active++;
        activePerHost.set(host, (activePerHost.get(host) ?? 0) + 1);
        visit(item!)
          .then(() => {
            active--;
            activePerHost.set(host, activePerHost.get(host)! - 1);
            pump();
          })
          .catch(reject);
      }
      if (active === 0 && queue.length === 0) resolve();
    };
    pump();
  });
  return summary;
}
