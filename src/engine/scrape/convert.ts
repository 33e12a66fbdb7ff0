/**
 * The content pipeline of a scrape: a fetched response becomes markdown (and html, links,
 * images, metadata when asked for). HTML is parsed, cleaned and converted; JSON, plain text
 * and images are handled as themselves (docs/scraping.md: "Non-HTML responses"). Loaded only when a
 * page has to be converted, so that commands and checks that convert nothing stay light.
 */
import render from 'dom-serializer';
import type { Document, Element } from 'domhandler';
import { isTag } from 'domutils';
import { MAX_ELEMENTS, parseHtml } from '../content/parse-html.js';
import { CREDITS, SCRAPE_TIMEOUT_DEFAULT_MS } from '../../spec/limits.js';
import type { ScrapeOptions } from '../../spec/scrape-options.js';
import { cleanHtml } from '../content/clean.js';
import { withoutControls, withoutControlsDeep } from '../content/control-characters.js';
import { extractImages, extractLinks } from '../content/links.js';
import { htmlToMarkdown, removeBase64Images } from '../content/markdown.js';
import { prepareForMarkdown, rewriteMaths, serializeForMarkdown } from '../content/markup.js';
import { extractPageHead, type PageHeadings, type PageMetadata } from '../content/metadata.js';
import { decodeBody } from '../fetch/decode.js';
import { claimsDocument, type DocumentDetection, detectDocument } from '../documents/detect.js';
import { isPdf } from '../pdf/detect.js';
import type { PdfLimits, PdfPageBlocks } from '../pdf/parse-pdf.js';
import { redactPii } from '../pii/redact.js';
import { isHtml, isJson, isText, mediaType } from './content-type.js';

/** What conversion needs of a response. */
export interface ConvertInput {
  body: Uint8Array;
  contentType: string | undefined;
  finalUrl: string;
  /** An uploaded image is read by OCR; a scraped one stays a link to itself. */
  readImages?: boolean;
}

export interface Content {
  markdown: string;
  html?: string;
  rawHtml?: string;
  links: string[];
  images: string[];
  metadata: PageMetadata;
  /** An HTML page's <title> and first <h1>, wherever its main content starts. */
  headings?: PageHeadings;
  warning?: string;
  /** An office document's kind and size: its pages or sheets, as its metadata's numPages. */
  document?: { kind: string; numPages?: number };
  /** What a parsed PDF adds to the document, and its price (spec §8: a credit a page). */
  pdf?: { numPages?: number; pages?: { pageNumber: number; markdown: string }[]; blocks?: PdfPageBlocks[]; creditsUsed: number };
}

function htmlContent(page: ConvertInput, options: ScrapeOptions, formats: Set<string>): Content {
  const { text } = decodeBody(page.body, page.contentType, true);
  const { document, truncated } = parseHtml(text);
  const { metadata, headings } = extractPageHead(document, page.finalUrl);
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
  return {
    markdown: htmlToMarkdown(serializeForMarkdown(kept.children), page.finalUrl),
    ...(html !== undefined && { html }),
    rawHtml: text,
    links,
    images,
    metadata,
    headings,
    ...(truncated && {
      warning: `the page has more than ${MAX_ELEMENTS.toLocaleString('en')} elements: only the first ${MAX_ELEMENTS.toLocaleString('en')} were read`,
    }),
  };
}

/**
 * An office document (docs/scraping.md, "Documents"): converted to HTML by its reader, then read
 * as an HTML page is, so that onlyMainContent, includeTags and excludeTags and the formats
 * behave as on one; a workbook is a section per sheet. rawHtml is the converted HTML.
 */
async function documentContent(
  page: ConvertInput,
  detection: DocumentDetection,
  options: ScrapeOptions,
  formats: Set<string>,
  deadline: number,
): Promise<Content> {
  const [{ readDocument }, { documentProperties, propertiesHead }] = await Promise.all([
    import('../documents/convert.js'),
    import('../documents/properties.js'),
  ]);
  const { html: converted, workbook } = await readDocument(page.body, detection.kind, { deadline });
  const properties = await documentProperties(page.body, detection.kind);
  // A reader that gives the body alone, and a workbook rewritten to its sheets, get the head of
  // the document's own properties, else the one the converter wrote.
  const convertedHead = /<head[\s>][\s\S]*?<\/head>/i.exec(converted.slice(0, 64 * 1024))?.[0];
  const head = Object.keys(properties).length > 0 ? propertiesHead(properties) : convertedHead;
  const html = !workbook && convertedHead ? converted : `<!DOCTYPE html><html>${head ?? ''}<body>${workbook?.html ?? converted}</body></html>`;
  const numPages = workbook?.sheets ?? properties.pages;
  const content = htmlContent({ body: Buffer.from(html, 'utf8'), contentType: 'text/html; charset=utf-8', finalUrl: page.finalUrl }, options, formats);
  const warnings = [
    ...(detection.claimed ? [`labelled as ${detection.claimed.toUpperCase()}, the file is ${detection.kind.toUpperCase()}: read as what it is`] : []),
    ...(workbook?.warnings ?? []),
    ...(content.warning ? [content.warning] : []),
  ];
  const { warning: _, ...rest } = content;
  return {
    ...rest,
    rawHtml: html,
    document: { kind: detection.kind, ...(numPages !== undefined && { numPages }) },
    ...(warnings.length > 0 && { warning: warnings.join('; ') }),
  };
}

/** An uploaded image's text, by OCR, read on as a page of paragraphs. */
async function imageContent(page: ConvertInput, options: ScrapeOptions, formats: Set<string>, deadline: number, signal?: AbortSignal): Promise<Content> {
  const { imageTextHtml } = await import('../documents/image-text.js');
  const html = await imageTextHtml(page.body, { deadline, ...(signal && { signal }) });
  const content = htmlContent({ body: Buffer.from(html, 'utf8'), contentType: 'text/html; charset=utf-8', finalUrl: page.finalUrl }, options, formats);
  return { ...content, rawHtml: html };
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
  const claimed = claimsDocument(contentType, page.finalUrl);
  if (claimed && !isText(contentType) && !contentType.startsWith('image/')) {
    return {
      ...base,
      markdown: '',
      warning: `labelled as ${claimed.toUpperCase()}, the file is not one (its bytes are no ${claimed.toUpperCase()}): request rawBase64 for them`,
    };
  }
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
  return { ...base, markdown: '', warning: `the content type ${contentType} has no text form; request rawBase64 for the bytes` };
}

/**
 * A PDF as the `parsers` ask: parsed to markdown by the first `pdf` parser (default `[pdf]`),
 * or, with `parsers: []`, the file itself base64-encoded in `markdown` (and `html`) for 1 credit.
 */
async function pdfContent(page: ConvertInput, options: ScrapeOptions, limits: PdfLimits): Promise<Content> {
  const base = { links: [] as string[], images: [] as string[] };
  const parser = (options.parsers ?? ['pdf']).map((p) => (typeof p === 'string' ? { type: p } : p)).find((p) => p.type === 'pdf');
  if (!parser) {
    const encoded = Buffer.from(page.body.buffer, page.body.byteOffset, page.body.byteLength).toString('base64');
    return { ...base, markdown: encoded, html: encoded, metadata: {}, pdf: { creditsUsed: CREDITS.pdfBase64Flat } };
  }
  const { parsePdf } = await import('../pdf/parse-pdf.js');
  // Redacted block by block, so that the pages and the blocks' spans agree with the markdown.
  const redaction = options.redactPII === true ? {} : options.redactPII || undefined;
  const parsed = await parsePdf(
    page.body,
    {
      mode: parser.mode ?? 'auto',
      pageMarkers: parser.pageMarkers ?? false,
      ...(parser.maxPages && { maxPages: parser.maxPages }),
      ...(redaction && { rewrite: (text: string) => redactPii(text, redaction) }),
    },
    limits,
  );
  return {
    ...base,
    markdown: parsed.markdown,
    metadata: parsed.title ? { title: parsed.title } : {},
    ...(parsed.warnings.length > 0 && { warning: parsed.warnings.join('; ') }),
    pdf: {
      numPages: parsed.numPages,
      ...(parser.pages && { pages: parsed.pages }),
      ...(parser.blocks && { blocks: parsed.blocks }),
      creditsUsed: Math.max(1, parsed.pagesParsed) * CREDITS.pdfPerPage,
    },
  };
}

/** The page's content as the options and formats ask, base64 images removed and PII redacted as asked. */
export async function convertPage(page: ConvertInput, options: ScrapeOptions, formats: readonly string[], limits?: PdfLimits): Promise<Content> {
  return readableText(await convertContent(page, options, formats, limits));
}

/** A page's text as it leaves the conversion: its markdown, its PDF pages', its metadata and headings, without control characters. */
function readableText(content: Content): Content {
  return {
    ...content,
    markdown: withoutControls(content.markdown),
    metadata: withoutControlsDeep(content.metadata),
    ...(content.headings && { headings: withoutControlsDeep(content.headings) }),
    ...(content.pdf?.pages && { pdf: { ...content.pdf, pages: content.pdf.pages.map((entry) => ({ ...entry, markdown: withoutControls(entry.markdown) })) } }),
  };
}

async function convertContent(page: ConvertInput, options: ScrapeOptions, formats: readonly string[], limits?: PdfLimits): Promise<Content> {
  const contentType = mediaType(page.contentType);
  const wanted = new Set(formats);
  const timeoutMs = options.timeout ?? SCRAPE_TIMEOUT_DEFAULT_MS;
  const deadline = limits?.deadline ?? Date.now() + timeoutMs;
  const document = isPdf(contentType, page.body) ? undefined : detectDocument(contentType, page.body, page.finalUrl);
  const content = isPdf(contentType, page.body)
    ? await pdfContent(page, options, limits ?? { deadline, timeoutMs })
    : document
      ? await documentContent(page, document, options, wanted, deadline)
      : isHtml(contentType)
        ? htmlContent(page, options, wanted)
        : page.readImages && contentType.startsWith('image/')
          ? await imageContent(page, options, wanted, deadline, limits?.signal)
          : otherContent(page, contentType);
  // A PDF's markdown has no inline images and was redacted as it was read; the file itself is not markdown.
  if (content.pdf) return content;
  const warnings = [content.warning];
  const kept = options.removeBase64Images === false ? content.markdown : removeBase64Images(content.markdown);
  const redaction = options.redactPII === true ? {} : options.redactPII || undefined;
  const markdown = redaction ? await redactPii(kept, redaction) : kept;
  const warning = warnings.filter(Boolean).join('; ');
  const { warning: _, ...converted } = content;
  return warning ? { ...converted, markdown, warning } : { ...converted, markdown };
}
