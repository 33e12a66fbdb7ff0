/** URL normalisation and the crawl's scope rules. */
import type { PathPattern } from '../../spec/path-patterns.js';

/** The form under which a URL is de-duplicated: no fragment, default port dropped, host lowercased. */
export function normalizeUrl(value: string, ignoreQuery = false): string | undefined {
  return normalizedUrl(value, ignoreQuery)?.href;
}

/** normalizeUrl's URL, parsed: for a caller that reads its parts too, without parsing it again. */
export function normalizedUrl(value: string, ignoreQuery = false): URL | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  if (ignoreQuery) url.search = '';
  if (url.pathname.includes('//')) url.pathname = url.pathname.replace(/\/{2,}/g, '/');
  return url;
}

export interface ScopeOptions {
  allowExternalLinks: boolean;
  allowSubdomains: boolean;
  crawlEntireDomain: boolean;
  includePaths: PathPattern[];
  excludePaths: PathPattern[];
  /** regexOnFullURL: the patterns match the whole URL (`https://example.com/pricing`), not its path and query. */
  fullUrl?: boolean;
}

/** The folder of the root URL: pages below it are in scope unless crawlEntireDomain. */
function rootFolder(root: URL): string {
  return root.pathname.endsWith('/') ? root.pathname : root.pathname.slice(0, root.pathname.lastIndexOf('/') + 1);
}

const registrable = (host: string) => host.split('.').slice(-2).join('.');

/** A host name as a site: `www.example.com` and `example.com` are one. */
export const siteHost = (hostname: string) => hostname.replace(/^www\./, '');

/**
 * The site's roots: the start URL, then the page it was redirected to when that is another site
 * (a redirect between apex and www, or within the host, leaves the start URL's folder the rule).
 */
export function addRoot(roots: URL[], landed: URL): void {
  if (!roots.some((root) => siteHost(root.hostname) === siteHost(landed.hostname))) roots.push(landed);
}

/** The root whose site `candidate` is on (apex and www alike), if any. */
export function rootOf(candidate: URL, roots: readonly URL[]): URL | undefined {
  const host = siteHost(candidate.hostname);
  return roots.find((root) => siteHost(root.hostname) === host);
}

/** `candidate` is on a subdomain of a root's domain. */
export function onSubdomain(candidate: URL, roots: readonly URL[]): boolean {
  return roots.some((root) => candidate.hostname.endsWith(`.${registrable(root.hostname)}`));
}

/**
 * The path patterns let `candidate` in: none of excludePaths, and one of includePaths when there
 * are any. They match the path and query, or the whole URL with `fullUrl` (regexOnFullURL).
 */
export function pathAllowed(candidate: URL, options: Pick<ScopeOptions, 'includePaths' | 'excludePaths' | 'fullUrl'>): boolean {
  const path = options.fullUrl ? candidate.href : candidate.pathname + candidate.search;
  if (options.excludePaths.some((pattern) => pattern.test(path))) return false;
  return options.includePaths.length === 0 || options.includePaths.some((pattern) => pattern.test(path));
}

export function inScope(candidate: URL, roots: readonly URL[], options: ScopeOptions): boolean {
  if (!options.allowExternalLinks) {
    const root = rootOf(candidate, roots);
    const subdomain = options.allowSubdomains && onSubdomain(candidate, roots);
    if (!root && !subdomain) return false;
    if (root && !options.crawlEntireDomain && !candidate.pathname.startsWith(rootFolder(root))) return false;
  }
  return pathAllowed(candidate, options);
}
