/**
 * One web search (POST /v2/search, `webwatch search`): the configured provider's results for
 * each source asked, filtered by domain and time, de-duplicated, numbered, and, with scrape
 * options, each scraped, a few at a time. Image results (source `images`, the provider's images
 * category) are filtered by the domain of the page that shows them, de-duplicated by image, and
 * not scraped; a search that asks for them answers web, news and images, each a list, empty when
 * it was not asked for or nothing was found.
 */
import { inParallel } from '../../lib/in-parallel.js';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { SEARCH_SCRAPE_CONCURRENCY } from '../../spec/limits.js';
import { SEARCH_TBS, type SearchRequest, type SearchSource } from '../../spec/search.js';
import type { ScrapeDocument } from '../../contract/scrape.js';
import { resultKey, type SearchProvider, type SearchResult } from './search.js';

export type { ImageResult, NewsResult, SearchAnswer, WebResult, WithDocument } from '../../contract/search.js';
import type { NewsResult, SearchAnswer, WebResult, WithDocument } from '../../contract/search.js';

export const SEARCH_NOT_CONFIGURED = 'no search provider is configured';
export const SEARCH_CONFIG_HINT =
  'add to the config: search: {provider: searxng, baseUrl: http://127.0.0.1:8888} (a SearXNG with the JSON format enabled), or search: {provider: v2, apiUrl: https://...} with WEBWATCH_SEARCH_API_KEY';

const hostOf = (url: string) => new URL(url).hostname.toLowerCase().replace(/^www\./, '');
const inDomains = (host: string, domains: readonly string[]) =>
  domains.some((domain) => {
    const d = domain.toLowerCase().replace(/^www\./, '');
    return host === d || host.endsWith(`.${d}`);
  });

export interface SearchDeps {
  provider: SearchProvider | undefined;
  /** Scrapes one result with the request's scrape options (the team's engine and rules). */
  scrape?: (url: string, signal: AbortSignal) => Promise<ScrapeDocument>;
  now(): Date;
  signal?: AbortSignal;
}

export async function webSearch(request: SearchRequest, deps: SearchDeps): Promise<SearchAnswer> {
  const { provider } = deps;
  if (!provider)
    throw new WebwatchError(SEARCH_NOT_CONFIGURED, {
      status: 501,
      code: 'SEARCH_NOT_CONFIGURED',
      details: { reason: SEARCH_CONFIG_HINT },
      suggestion: SEARCH_CONFIG_HINT,
    });
  const timeout = request.timeout ? AbortSignal.timeout(request.timeout) : undefined;
  const signal = [deps.signal, timeout].filter((s): s is AbortSignal => s !== undefined);
  const combined = signal.length > 0 ? AbortSignal.any(signal) : new AbortController().signal;
  const range = request.tbs ? SEARCH_TBS[request.tbs] : undefined;
  const oldest = range === 'hour' ? deps.now().getTime() - 3_600_000 : undefined;

  const sources: SearchSource[] = request.sources ? [...new Set(request.sources)] : ['web'];
  let answer: SearchAnswer = {};
  const warnings: string[] = [];
  if (request.location || request.country) warnings.push('location and country are not used: the search provider answers for its own region');

  for (const source of sources) {
    let found: SearchResult[];
    try {
      found = await provider.search(request.query, {
        limit: request.limit,
        category: source === 'web' ? 'general' : source,
        ...(range && { timeRange: range === 'hour' ? 'day' : range }),
        signal: combined,
      });
    } catch (error) {
      if (combined.aborted && timeout?.aborted)
        throw new WebwatchError('Request timed out', {
          status: 408,
          code: 'SEARCH_TIMEOUT',
          details: { reason: `the search took longer than its timeout (${request.timeout} ms)` },
        });
      throw new WebwatchError(`the search provider (${provider.name}) failed: ${error instanceof Error ? error.message : String(error)}`, {
        status: 502,
        code: 'SEARCH_PROVIDER_FAILED',
      });
    }
    const seen = new Set<string>();
    const kept: SearchResult[] = [];
    for (const result of found) {
      let host: string;
      try {
        if (!/^https?:\/\//i.test(result.url)) continue;
        host = hostOf(result.url);
      } catch {
        continue;
      }
      // An image is one whose address the client can fetch (no data: or other inline images).
      if (source === 'images' && !/^https?:\/\//i.test(result.image?.url ?? '')) continue;
      if (request.includeDomains?.length && !inDomains(host, request.includeDomains)) continue;
      if (request.excludeDomains?.length && inDomains(host, request.excludeDomains)) continue;
      if (oldest !== undefined && result.publishedAt && Date.parse(result.publishedAt) < oldest) continue;
      const key = source === 'images' ? result.image!.url : resultKey(result.url);
      if (seen.has(key) || kept.length >= request.limit) continue;
      seen.add(key);
      kept.push(result);
    }
    if (source === 'web') {
      answer.web = kept.map((r, i) => ({ url: r.url, ...(r.title && { title: r.title }), ...(r.snippet && { description: r.snippet }), position: i + 1 }));
    } else if (source === 'news') {
      answer.news = kept.map((r, i) => ({
        url: r.url,
        ...(r.title && { title: r.title }),
        ...(r.snippet && { snippet: r.snippet }),
        ...(r.publishedAt && { date: r.publishedAt }),
        position: i + 1,
      }));
    } else {
      answer.images = kept.map((r, i) => ({
        ...(r.title && { title: r.title }),
        imageUrl: r.image!.url,
        ...(r.image!.width && { imageWidth: r.image!.width }),
        ...(r.image!.height && { imageHeight: r.image!.height }),
        url: r.url,
        position: i + 1,
      }));
    }
  }
  // With images asked, all three lists, in the SDK's order, empty where nothing was asked or found.
  if (sources.includes('images')) answer = { web: answer.web ?? [], news: answer.news ?? [], images: answer.images ?? [] };

  if (deps.scrape) {
    const scrapeOne = deps.scrape;
    const all = [...(answer.web ?? []), ...(answer.news ?? [])] as WithDocument<WebResult | NewsResult>[];
    await inParallel(all, SEARCH_SCRAPE_CONCURRENCY, async (result) => {
      try {
        Object.assign(result, await scrapeOne(result.url, combined), { url: result.url });
      } catch (error) {
        const failure = error instanceof WebwatchError ? error : undefined;
        Object.assign(result, {
          metadata: {
            sourceURL: result.url,
            url: result.url,
            error: error instanceof Error ? error.message : String(error),
            ...(failure?.code && { errorCode: failure.code }),
          },
        });
      }
    });
  }
  if (warnings.length > 0) answer.warning = warnings.join('; ');
  return answer;
}
