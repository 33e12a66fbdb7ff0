/**
 * The cache key of a scrape: the URL and every option that changes what comes back. Options
 * that only change how long we wait or what is kept (timeout, maxAge, minAge, storeInCache,
 * lockdown, auditMetadata, threatProtection) are left out.
 */
import { createHash } from 'node:crypto';
import type { ScrapeOptions } from '../../spec/scrape-options.js';

const CONTENT_OPTIONS = [
  'formats',
  'onlyMainContent',
  'includeTags',
  'excludeTags',
  'headers',
  'blockAds',
  'removeBase64Images',
  'skipTlsVerification',
  'mobile',
  'waitFor',
  'proxy',
  'location',
  'parsers',
  'redactPII',
  'actions',
  'onlyCleanContent',
] as const;

/** JSON with sorted keys, so that equal options give equal keys. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Options that make a request private (spec §2.7: they force storeInCache to false): what the
 * page shows with them is never stored in the cache, nor compared with a request without them.
 */
const SENSITIVE_OPTIONS = ['headers', 'actions', 'profile'] as const;

export function isSensitive(options: ScrapeOptions): boolean {
  return (options.actions?.length ?? 0) > 0 || Object.keys(options.headers ?? {}).length > 0 || options.profile !== undefined;
}

/** '' for a request without sensitive options; else a hash of them, naming its own history. */
export function privateScope(options: ScrapeOptions): string {
  if (!isSensitive(options)) return '';
  const sensitive = Object.fromEntries(SENSITIVE_OPTIONS.map((name) => [name, options[name]]));
  return createHash('sha256').update(canonicalJson(sensitive)).digest('hex');
}

/**
 * The canonical JSON of each options object's content options: a check or a batch asks for
 * hundreds of URLs with one. Options are never changed once made, so what is remembered holds.
 */
const contentJson = new WeakMap<ScrapeOptions, string>();

export function cacheKey(url: string, options: ScrapeOptions): string {
  let json = contentJson.get(options);
  if (json === undefined) {
    json = canonicalJson(Object.fromEntries(CONTENT_OPTIONS.map((name) => [name, options[name]])));
    contentJson.set(options, json);
  }
  return createHash('sha256').update(`${url}\n${json}`).digest('hex');
}
