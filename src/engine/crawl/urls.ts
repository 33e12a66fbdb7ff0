/** URL normalisation and the crawl's scope rules. */
import type { PathPattern } from '../../spec/path-patterns.js';

/** The form under which a URL is de-duplicated: no fragment, default port dropped, host lowercased. */
export function normalizeUrl(value: string, ignoreQuery = false): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  if (ignoreQuery) url.search = '';
  url.pathname = url.pathname.replace(/\/{2,}/g, '/');
  return url.href;
}

export interface ScopeOptions {
  allowExternalLinks: boolean;
  allowSubdomains: boolean;
  crawlEntireDomain: boolean;
  includePaths: PathPattern[];
  excludePaths: PathPattern[];
}

/** The folder of the root URL: pages below it are in scope unless crawlEntireDomain. */
function rootFolder(root: URL): string {
  return root.pathname.endsWith('/') ? root.pathname : root.pathname.slice(0, root.pathname.lastIndexOf('/') + 1);
}

const registrable = (host: string) => host.split('.').slice(-2).join('.');

export function inScope(candidate: URL, root: URL, options: ScopeOptions): boolean {
  if (!options.allowExternalLinks) {
    const sameHost = candidate.hostname === root.hostname;
    const subdomain = options.allowSubdomains && candidate.hostname.endsWith(`.${registrable(root.hostname)}`);
    if (!sameHost && !subdomain) return false;
    if (sameHost && !options.crawlEntireDomain && !candidate.pathname.startsWith(rootFolder(root))) return false;
  }
  const path = candidate.pathname + candidate.search;
  if (options.excludePaths.some((pattern) => pattern.test(path))) return false;
  if (options.includePaths.length > 0 && candidate.href !== root.href && !options.includePaths.some((pattern) => pattern.test(path))) return false;
  return true;
}
