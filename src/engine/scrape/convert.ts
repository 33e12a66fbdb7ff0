/**
 * The content pipeline of a scrape: a fetched response becomes markdown (and html, links,
 * images, metadata when asked for). HTML is parsed, cleaned and converted; JSON, plain text
 * and images are handled as themselves (README: "Non-HTML responses"). Loaded only when a
 * page has to be converted, so that commands and checks that convert nothing stay light.
 */
import render from 'dom-serializer';
import type { Document, Element } from 'domhandler';
import { isTag } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { WebwatchError } from '../../errors/webwatch-error.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import { cleanHtml } from '../content/clean.js';
import { extractImages, extractLinks } from '../content/links.js';
import { htmlToMarkdown, removeBase64Images } from '../content/markdown.js';
import { prepareForMarkdown, rewriteMaths, serializeForMarkdown } from '../content/markup.js';
import { extractMetadata, type PageMetadata } from '../content/metadata.js';
import { decodeBody } from '../fetch/decode.js';
import { redactPii } from '../pii/redact.js';

/** What conversion needs of a response. */
export interface ConvertInput {
  body: Uint8Array;
  contentType: string | undefined;
  finalUrl: string;
}

export interface Content {
  markdown: string;
  html?: string;
  rawHtml?: string;
  links: string[];
  images: string[];
  metadata: PageMetadata;
  warning?: string;
}

const isHtml = (contentType: string) => /^(text\/html|application\/xhtml\+xml)/.test(contentType) || contentType === '';
const isJson = (contentType: string) => /^application\/(.+\+)?json|^text\/json/.test(contentType);
const isText = (contentType: string) => contentType.startsWith('text/') || /^application\/(xml|javascript|x-yaml|yaml)/.test(contentType);

function htmlContent(page: ConvertInput, options: ScrapeOptions, formats: Set<string>): Content {
  const { text } = decodeBody(page.body, page.contentType, true);
  const document = parseDocument(text);
  const metadata = extractMetadata(document, page.finalUrl);
  const links = formats.has('links') ? extractLinks(document, page.finalUrl) : [];
  const images = formats.has('images') ? extractImages(document, page.finalUrl) : [];
  cleanHtml(document, page.finalUrl, {
    onlyMainContent: options.onlyMainContent ?? true,
    blockAds: options.blockAds ?? true,
    ...(options.includeTags && { includeTags: options.includeTags }),
    ...(options.excludeTags && { excludeTags: options.excludeTags }),
  });
  const kept = bodyElement(document) ?? document;
  const html = formats.has('html') ? render(kept.children).trim() : undefined;
  rewriteMaths([document]);
  prepareForMarkdown([document]);
  return { markdown: htmlToMarkdown(serializeForMarkdown(kept.children), page.finalUrl), ...(html !== undefined && { html }), rawHtml: text, links, images, metadata };
}

function bodyElement(document: Document): Element | undefined {
  for (const node of document.children) {
    if (!isTag(node)) continue;
    if (node.name === 'body') return node;
    if (node.name === 'html') return node.children.find((child): child is Element => isTag(child) && child.name === 'body');
  }
  return undefined;
}

function otherContent(page: ConvertInput, contentType: string): Content {
  const base = { links: [] as string[], images: [] as string[], metadata: {} };
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

/** The page's content as the options and formats ask, base64 images removed and PII redacted as asked. */
export async function convertPage(page: ConvertInput, options: ScrapeOptions, formats: readonly string[]): Promise<Content> {
  const contentType = (page.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const pdfAsFile = contentType === 'application/pdf' && options.parsers?.length === 0;
  const wanted = new Set(formats);
  const content = isHtml(contentType) ? htmlContent(page, options, wanted) : pdfAsFile ? otherContent(page, 'application/octet-stream') : otherContent(page, contentType);
  const warnings = [content.warning];
  const kept = options.removeBase64Images === false ? content.markdown : removeBase64Images(content.markdown);
  const redaction = options.redactPII === true ? {} : options.redactPII || undefined;
  const markdown = redaction ? await redactPii(kept, redaction) : kept;
  const warning = warnings.filter(Boolean).join('; ');
  const { warning: _, ...converted } = content;
  return warning ? { ...converted, markdown, warning } : { ...converted, markdown };
}
