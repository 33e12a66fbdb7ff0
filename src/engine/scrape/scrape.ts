/**
 * One scrape on the local engine: fetch, decode, clean, convert, and shape the v2 document.
 * HTML goes through the content pipeline; JSON, plain text and images are handled as
 * themselves (README: "Non-HTML responses").
 */
import { randomUUID } from 'node:crypto';
import { load } from 'cheerio/slim';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { SCRAPE_TIMEOUT_DEFAULT_MS } from '../../spec/limits.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import { cleanHtml } from '../content/clean.js';
import { extractImages, extractLinks } from '../content/links.js';
import { htmlToMarkdown, removeBase64Images } from '../content/markdown.js';
import { extractMetadata, type PageMetadata } from '../content/metadata.js';
import { decodeBody } from '../fetch/decode.js';
import { fetchPage, type FetchedPage } from '../fetch/fetch-page.js';
import type { ScrapeDocument } from './document.js';
import { requestHeaders } from './request-headers.js';
import { unsupportedFeatures } from './unsupported.js';

export interface ScrapeContext {
  version: string;
  now(): Date;
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
  const markdown = options.removeBase64Images === false ? content.markdown : removeBase64Images(content.markdown);
  const want = (format: FormatName) => formats.has(format);
  const warning = warnings.filter(Boolean).join('; ');
  return {
    ...(want('markdown') && { markdown }),
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
