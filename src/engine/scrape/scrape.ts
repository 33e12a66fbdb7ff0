/**
 * One scrape on the local engine: fetch, decode, clean, convert, and shape the v2 document.
 * HTML goes through the content pipeline; JSON, plain text and images are handled as
 * themselves (README: "Non-HTML responses").
 */
import { randomUUID } from 'node:crypto';
import { load } from 'cheerio/slim';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { ERROR_MESSAGES } from '../../spec/errors.js';
import { CREDITS, LOCKDOWN_MAX_AGE_DEFAULT_MS, MAX_AGE_DEFAULT_MS, SCRAPE_TIMEOUT_DEFAULT_MS } from '../../spec/limits.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import { cleanHtml } from '../content/clean.js';
import { extractImages, extractLinks } from '../content/links.js';
import { htmlToMarkdown, removeBase64Images } from '../content/markdown.js';
import { extractMetadata, type PageMetadata } from '../content/metadata.js';
import { decodeBody } from '../fetch/decode.js';
import { fetchPage, parseTargetUrl, type FetchedPage } from '../fetch/fetch-page.js';
import { diffMarkdown, sameContent } from '../diff/markdown-diff.js';
import { redactPii } from '../pii/redact.js';
import type { ScrapeStore } from '../store/scrape-cache.js';
import { effectiveThreatRules, NO_THREAT_POLICY, threatGuard, type OrganizationThreatPolicy } from '../threat/threat-protection.js';
import { cacheKey } from './cache-key.js';
import type { ChangeTracking, ScrapeDocument } from './document.js';
import { requestHeaders } from './request-headers.js';
import { unsupportedFeatures } from './unsupported.js';

export interface ScrapeContext {
  version: string;
  now(): Date;
  /** The cache and change-tracking history; without it nothing is cached or tracked. */
  store?: ScrapeStore;
  /** The organisation's threat-protection policy (config); none by default. */
  threatPolicy?: OrganizationThreatPolicy;
  /** Checks the URL and every redirect target; throws to refuse one. */
  checkUrl?: (url: URL) => void | Promise<void>;
  signal?: AbortSignal;
}

export interface ScrapeRequest {
  url: string;
  options: ScrapeOptions;
}

type FormatName = 'markdown' | 'html' | 'rawHtml' | 'rawBase64' | 'links' | 'images' | 'changeTracking';

export function requestedFormats(options: ScrapeOptions): Set<string> {
  const formats = options.formats ?? ['markdown'];
  return new Set(formats.map((format) => (typeof format === 'string' ? format : format.type)));
}

const isHtml = (contentType: string) => /^(text\/html|application\/xhtml\+xml)/.test(contentType) || contentType === '';
const isJson = (contentType: string) => /^application\/(.+\+)?json|^text\/json/.test(contentType);
const isText = (contentType: string) => contentType.startsWith('text/') || /^application\/(xml|javascript|x-yaml|yaml)/.test(contentType);

interface Content {
  markdown: string;
  html?: string;
  rawHtml?: string;
  links: string[];
  images: string[];
  metadata: PageMetadata;
  warning?: string;
}

function htmlContent(page: FetchedPage, options: ScrapeOptions, formats: Set<string>): Content {
  const { text } = decodeBody(page.body, page.contentType, true);
  const $ = load(text);
  const metadata = extractMetadata($, page.finalUrl);
  const links = formats.has('links') ? extractLinks($, page.finalUrl) : [];
  const images = formats.has('images') ? extractImages($, page.finalUrl) : [];
  cleanHtml($, page.finalUrl, {
    onlyMainContent: options.onlyMainContent ?? true,
    blockAds: options.blockAds ?? true,
    ...(options.includeTags && { includeTags: options.includeTags }),
    ...(options.excludeTags && { excludeTags: options.excludeTags }),
  });
  const body = $('body');
  const html = (body.length > 0 ? body.html() : $.root().html()) ?? '';
  return { markdown: htmlToMarkdown(html, page.finalUrl), html: html.trim(), rawHtml: text, links, images, metadata };
}

function otherContent(page: FetchedPage, contentType: string): Content {
  const base = { links: [], images: [], metadata: {} };
  if (isJson(contentType)) {
    const { text } = decodeBody(page.body, page.contentType, false);
    let pretty = text;
    try {
      pretty = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // Not valid JSON after all: shown as it came.
    }
    return { ...base, markdown: `\`\`\`json\n${pretty}\n\`\`\``, rawHtml: text };
  }
  if (isText(contentType)) {
    const { text } = decodeBody(page.body, page.contentType, false);
    return { ...base, markdown: text, rawHtml: text };
  }
  if (contentType.startsWith('image/')) {
    return { ...base, markdown: `![](${page.finalUrl})`, images: [page.finalUrl] };
  }
  if (contentType.startsWith('application/pdf')) {
    throw new WebwatchError('this URL is a PDF, and the local engine cannot parse PDFs yet; request rawBase64 with parsers: [] to get the file itself', {
      status: 400,
      code: 'UNSUPPORTED_BY_LOCAL_ENGINE',
    });
  }
  return { ...base, markdown: '', warning: `the content type ${contentType} has no text form; request rawBase64 for the bytes` };
}

/** The changeTracking format's options, when it is asked for. */
function changeTrackingFormat(options: ScrapeOptions): { tag: string } | undefined {
  for (const format of options.formats ?? []) {
    if (format === 'changeTracking') return { tag: '' };
    if (typeof format !== 'string' && format.type === 'changeTracking') return { tag: format.tag ?? '' };
  }
  return undefined;
}

/** Compares with the previous scrape of the same URL and tag, then remembers this one. */
function trackChanges(store: ScrapeStore, url: string, tag: string, document: ScrapeDocument, now: number): ChangeTracking {
  const previous = store.getTracked(url, tag);
  const markdown = document.markdown ?? '';
  const gone = document.metadata.statusCode === 404 || document.metadata.statusCode === 410;
  store.putTracked(url, tag, markdown, now);
  const previousScrapeAt = previous ? new Date(previous.scrapedAt).toISOString() : null;
  if (gone) return { previousScrapeAt, changeStatus: 'removed', visibility: 'visible' };
  if (!previous) return { previousScrapeAt, changeStatus: 'new', visibility: 'visible' };
  if (sameContent(previous.markdown, markdown)) return { previousScrapeAt, changeStatus: 'same', visibility: 'visible' };
  return { previousScrapeAt, changeStatus: 'changed', visibility: 'visible', diff: diffMarkdown(previous.markdown, markdown) };
}

export async function scrape(request: ScrapeRequest, context: ScrapeContext): Promise<ScrapeDocument> {
  const { options } = request;
  const missing = unsupportedFeatures(options);
  if (missing.length > 0) {
    throw new WebwatchError(`the local engine cannot do ${missing.join(', ')} yet; use a remote v2 API for these`, {
      status: 400,
      code: 'UNSUPPORTED_BY_LOCAL_ENGINE',
      details: { unsupported: missing },
    });
  }
  const { store } = context;
  const now = context.now().getTime();
  // Threat protection judges the URL before the cache or the network is touched.
  const rules = effectiveThreatRules(context.threatPolicy ?? NO_THREAT_POLICY, options.threatProtection);
  const threatWarnings: string[] = [];
  const guard = rules && threatGuard(rules, threatWarnings);
  if (guard) guard(parseTargetUrl(request.url));
  const checkUrl = guard || context.checkUrl
    ? async (url: URL) => {
        await context.checkUrl?.(url);
        guard?.(url);
      }
    : undefined;
  const warned = (document: ScrapeDocument): ScrapeDocument => {
    const warning = [document.warning, ...threatWarnings].filter(Boolean).join('; ');
    return warning ? { ...document, warning } : document;
  };
  const tracking = changeTrackingFormat(options);
  const cacheOnly = options.lockdown === true || options.minAge !== undefined;
  const key = cacheKey(request.url, options);
  const withTracking = (document: ScrapeDocument): ScrapeDocument =>
    warned(tracking && store ? { ...document, changeTracking: trackChanges(store, request.url, tracking.tag, document, now) } : document);

  // A change-tracking scrape wants the page as it is now, unless only the cache may answer.
  if (store && (cacheOnly || !tracking)) {
    const maxAge = options.maxAge ?? (options.lockdown ? LOCKDOWN_MAX_AGE_DEFAULT_MS : MAX_AGE_DEFAULT_MS);
    const hit = store.getCached(key);
    const age = hit ? now - hit.cachedAt : Infinity;
    const usable = hit && age < maxAge && (options.minAge === undefined || age >= options.minAge);
    if (usable) {
      return withTracking({
        ...hit.document,
        metadata: {
          ...hit.document.metadata,
          scrapeId: randomUUID(),
          cacheState: 'hit',
          cachedAt: new Date(hit.cachedAt).toISOString(),
          creditsUsed: options.lockdown ? CREDITS.lockdownHit : 1,
        },
      });
    }
  }
  if (options.lockdown) {
    // Lockdown counts as zero data retention: the error does not carry the URL.
    throw new WebwatchError(ERROR_MESSAGES.lockdownCacheMiss, { status: 404, code: ERROR_MESSAGES.lockdownCacheMiss });
  }
  if (options.minAge !== undefined) {
    throw new WebwatchError(ERROR_MESSAGES.noCachedData, { status: 404, code: ERROR_MESSAGES.noCachedData, details: { url: request.url } });
  }

  const document = await fetchAndConvert(request, { ...context, ...(checkUrl && { checkUrl }) });
  // Sensitive options (actions, headers) are never stored, nor are server errors.
  const sensitive = (options.actions?.length ?? 0) > 0 || Object.keys(options.headers ?? {}).length > 0;
  if (store && (options.storeInCache ?? true) && !sensitive && document.metadata.statusCode < 500) {
    store.putCached(key, request.url, document, now);
  }
  return withTracking(document);
}

async function fetchAndConvert(request: ScrapeRequest, context: ScrapeContext): Promise<ScrapeDocument> {
  const { options } = request;
  const formats = requestedFormats(options);
  const page = await fetchPage({
    url: request.url,
    timeoutMs: options.timeout ?? SCRAPE_TIMEOUT_DEFAULT_MS,
    headers: requestHeaders(options, context.version),
    skipTlsVerification: options.skipTlsVerification ?? true,
    ...(context.checkUrl && { checkUrl: context.checkUrl }),
    ...(context.signal && { signal: context.signal }),
  });
  const contentType = (page.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const pdfAsFile = contentType === 'application/pdf' && options.parsers?.length === 0;
  const content = isHtml(contentType) ? htmlContent(page, options, formats) : pdfAsFile ? otherContent(page, 'application/octet-stream') : otherContent(page, contentType);

  const warnings = [content.warning];
  if (options.waitFor) warnings.push('waitFor has no effect on the local engine, which fetches pages without a browser');
  const kept = options.removeBase64Images === false ? content.markdown : removeBase64Images(content.markdown);
  const redaction = options.redactPII === true ? {} : options.redactPII || undefined;
  const markdown = redaction ? await redactPii(kept, redaction) : kept;
  const want = (format: FormatName) => formats.has(format);
  const warning = warnings.filter(Boolean).join('; ');
  return {
    // Change tracking compares markdown, so it comes along.
    ...((want('markdown') || formats.has('changeTracking')) && { markdown }),
    ...(want('html') && { html: content.html ?? content.rawHtml ?? '' }),
    ...(want('rawHtml') && { rawHtml: content.rawHtml ?? '' }),
    ...(want('rawBase64') && { rawBase64: page.body.toString('base64') }),
    ...(want('links') && { links: content.links }),
    ...(want('images') && { images: content.images }),
    ...(warning && { warning }),
    metadata: {
      ...content.metadata,
      sourceURL: request.url,
      url: page.finalUrl,
      statusCode: page.statusCode,
      ...(page.contentType && { contentType: page.contentType }),
      scrapeId: randomUUID(),
      cacheState: 'miss',
      creditsUsed: 1,
    },
  };
}
