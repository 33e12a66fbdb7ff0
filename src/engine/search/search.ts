/**
 * Search targets: a provider answers each query; results are filtered by publication window
 * and domains, de-duplicated across queries and capped at maxResults. Providers: SearXNG
 * (self-hosted, JSON API) and the search route of a remote v2 API.
 */
import type { Target } from '../../spec/monitor.js';

export interface SearchResult {
  url: string;
  title: string;
  snippet: string;
  /** ISO-8601, when the provider knows it. */
  publishedAt: string | null;
  /** An image result's image (`url` is then the page that shows it), and its size when known. */
  image?: { url: string; width?: number; height?: number };
}

export type SearchCategory = 'general' | 'news' | 'images';

export interface SearchProvider {
  readonly name: string;
  /**
   * Results published within `window`, or of any time without one (the agent's searches);
   * `category` news asks for news, images for images (results with `image`), `timeRange` for
   * the past day, week, month or year.
   */
  search(
    query: string,
    options: { window?: SearchWindow; limit: number; category?: SearchCategory; timeRange?: 'day' | 'week' | 'month' | 'year'; signal?: AbortSignal },
  ): Promise<SearchResult[]>;
}

export type SearchWindow = '5m' | '15m' | '1h' | '6h' | '24h' | '7d';
export const WINDOW_MS: Record<SearchWindow, number> = {
  '5m': 5 * 60_000,
  '15m': 15 * 60_000,
  '1h': 3_600_000,
  '6h': 6 * 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
};

const SEARCH_TIMEOUT_MS = 30_000;
const SEARXNG_FULL_PAGE = 10;
const SEARXNG_PAGES_MAX = 10;

async function getJson(
  url: URL,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string; signal?: AbortSignal } = {},
): Promise<unknown> {
  const timeout = AbortSignal.timeout(SEARCH_TIMEOUT_MS);
  // undici loads with the first search, not with every check that might run one.
  const { request } = await import('undici');
  const response = await request(url, {
    method: init.method ?? 'GET',
    headers: { accept: 'application/json', ...init.headers },
    ...(init.body && { body: init.body }),
    signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`the search provider answered HTTP ${response.statusCode}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('the search provider answered with malformed JSON');
  }
}

const isoOrNull = (value: unknown) => {
  if (typeof value !== 'string' || value === '') return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
};

/** A positive whole number of pixels, from a number or a numeric string. */
const pixels = (value: unknown): number | undefined => {
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number > 0 ? number : undefined;
};

/** A SearXNG image result's size: its `resolution` ("1920x1080", "1920 x 1080", "1920×1080"), or width and height fields. */
export function imageSize(result: { resolution?: unknown; img_width?: unknown; img_height?: unknown; width?: unknown; height?: unknown }): {
  width?: number;
  height?: number;
} {
  const match = typeof result.resolution === 'string' ? /^\s*(\d+)\s*[x×X]\s*(\d+)\s*$/.exec(result.resolution) : null;
  const width = pixels(match?.[1]) ?? pixels(result.img_width) ?? pixels(result.width);
  const height = pixels(match?.[2]) ?? pixels(result.img_height) ?? pixels(result.height);
  return { ...(width && { width }), ...(height && { height }) };
}

interface SearxngResult {
  url?: unknown;
  title?: unknown;
  content?: unknown;
  publishedDate?: unknown;
  img_src?: unknown;
  resolution?: unknown;
  img_width?: unknown;
  img_height?: unknown;
  width?: unknown;
  height?: unknown;
}

/** One result of SearXNG's JSON answer; for images, only one with its image's address (`img_src`, made absolute against the page's). */
function searxngResult(result: SearxngResult, images: boolean): SearchResult | undefined {
  if (typeof result.url !== 'string') return undefined;
  const found: SearchResult = {
    url: result.url,
    title: typeof result.title === 'string' ? result.title : '',
    snippet: typeof result.content === 'string' ? result.content : '',
    publishedAt: isoOrNull(result.publishedDate),
  };
  if (!images) return found;
  if (typeof result.img_src !== 'string' || result.img_src === '') return undefined;
  let src: string;
  try {
    src = new URL(result.img_src, result.url).href;
  } catch {
    return undefined;
  }
  return { ...found, image: { url: src, ...imageSize(result) } };
}

/** SearXNG's JSON API (`format=json` must be enabled in its settings). */
export function searxngProvider(baseUrl: string): SearchProvider {
  return {
    name: 'SearXNG',
    async search(query, { window, limit, category, timeRange, signal }) {
      const results: SearchResult[] = [];
      // SearXNG answers about 10 results a page: further pages while full ones come and more are wanted.
      for (let page = 1; page <= SEARXNG_PAGES_MAX; page++) {
        const url = new URL(`${baseUrl.replace(/\/+$/, '')}/search`);
        url.searchParams.set('q', query);
        url.searchParams.set('format', 'json');
        if (page > 1) url.searchParams.set('pageno', String(page));
        // SearXNG's coarsest filter that still covers the window; finer windows are cut here.
        if (window) url.searchParams.set('time_range', window === '7d' ? 'week' : 'day');
        else if (timeRange) url.searchParams.set('time_range', timeRange);
        // News and images are SearXNG categories of their own, as the hosted sources are.
        if (category === 'news' || category === 'images') url.searchParams.set('categories', category);
        const body = (await getJson(url, { ...(signal && { signal }) })) as { results?: unknown };
        const answered: unknown[] = Array.isArray(body.results) ? body.results : [];
        const found = answered
          .map((r) => (r && typeof r === 'object' ? searxngResult(r as SearxngResult, category === 'images') : undefined))
          .filter((r): r is SearchResult => r !== undefined);
        results.push(...found);
        if (answered.length < SEARXNG_FULL_PAGE || results.length >= limit) break;
      }
      return results;
    },
  };
}

/** The search route of a remote v2 API (`POST /v2/search`). */
export function v2SearchProvider(apiUrl: string, apiKey: string | undefined): SearchProvider {
  const tbs: Record<SearchWindow, string> = { '5m': 'qdr:h', '15m': 'qdr:h', '1h': 'qdr:h', '6h': 'qdr:d', '24h': 'qdr:d', '7d': 'qdr:w' };
  return {
    name: 'the v2 API',
    async search(query, { window, limit, category, timeRange, signal }) {
      const base = apiUrl.replace(/\/+$/, '');
      const url = new URL(`${/\/v2$/.test(base) ? base : `${base}/v2`}/search`);
      const range = window ? tbs[window] : timeRange && { day: 'qdr:d', week: 'qdr:w', month: 'qdr:m', year: 'qdr:y' }[timeRange];
      const body = (await getJson(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey && { authorization: `Bearer ${apiKey}` }) },
        body: JSON.stringify({ query, limit, ...(range && { tbs: range }), ...((category === 'news' || category === 'images') && { sources: [category] }) }),
        ...(signal && { signal }),
      })) as {
        data?:
          | {
              web?: { url?: string; title?: string; description?: string; date?: string }[];
              news?: { url?: string; title?: string; snippet?: string; date?: string }[];
              images?: { url?: string; title?: string; imageUrl?: string; imageWidth?: number; imageHeight?: number }[];
            }
          | { url?: string; title?: string; description?: string }[];
      };
      if (category === 'images') {
        const images = Array.isArray(body.data) ? [] : (body.data?.images ?? []);
        return images
          .filter((r) => typeof r.url === 'string' && typeof r.imageUrl === 'string')
          .map((r) => ({
            url: r.url!,
            title: r.title ?? '',
            snippet: '',
            publishedAt: null,
            image: { url: r.imageUrl!, ...imageSize({ width: r.imageWidth, height: r.imageHeight }) },
          }));
      }
      const items = Array.isArray(body.data)
        ? body.data
        : ((category === 'news' ? body.data?.news?.map((n) => ({ ...n, description: n.snippet })) : body.data?.web) ?? []);
      return items
        .filter((r) => typeof r.url === 'string')
        .map((r) => ({ url: r.url!, title: r.title ?? '', snippet: r.description ?? '', publishedAt: isoOrNull((r as { date?: string }).date) }));
    },
  };
}

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return undefined;
  }
};
const inDomains = (host: string, domains: readonly string[]) =>
  domains.some((domain) => host === domain.toLowerCase().replace(/^www\./, '') || host.endsWith(`.${domain.toLowerCase().replace(/^www\./, '')}`));

/** The same page with or without a fragment or trailing slash is one result. */
export const resultKey = (url: string) => url.replace(/#.*$/, '').replace(/\/+$/, '');

/**
 * Every query of a search target, filtered and de-duplicated, at most maxResults in all. Results
 * without a publication date count only for windows of a day or more, which the provider filters.
 */
export async function searchTarget(
  provider: SearchProvider,
  target: Extract<Target, { type: 'search' }>,
  now: Date,
): Promise<{ results: SearchResult[]; errors: { query: string; error: string }[] }> {
  const window = (target.searchWindow ?? '24h') as SearchWindow;
  const maxResults = target.maxResults ?? 10;
  const oldest = now.getTime() - WINDOW_MS[window];
  const seen = new Set<string>();
  const results: SearchResult[] = [];
  const errors: { query: string; error: string }[] = [];
  for (const query of target.queries) {
    let found: SearchResult[];
    try {
      found = await provider.search(query, { window, limit: maxResults });
    } catch (error) {
      errors.push({ query, error: error instanceof Error ? error.message : String(error) });
      continue;
    }
    for (const result of found) {
      const host = hostOf(result.url);
      if (!host || !/^https?:/.test(result.url)) continue;
      if (target.includeDomains?.length && !inDomains(host, target.includeDomains)) continue;
      if (target.excludeDomains?.length && inDomains(host, target.excludeDomains)) continue;
      if (result.publishedAt ? Date.parse(result.publishedAt) < oldest : WINDOW_MS[window] < WINDOW_MS['24h']) continue;
      const key = resultKey(result.url);
      if (seen.has(key) || results.length >= maxResults) continue;
      seen.add(key);
      results.push(result);
    }
  }
  return { results, errors };
}
