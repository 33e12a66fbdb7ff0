/**
 * A page's markdown as the scraper makes it from HTML, step by step (parsed as convertPage
 * parses, with htmlparser2; cleaned; rewritten; converted), for tests of the content pipeline.
 */
import type { Document } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { cleanHtml } from '../../src/engine/content/clean.js';
import { htmlToMarkdown } from '../../src/engine/content/markdown.js';
import { prepareForMarkdown, rewriteMaths, serializeForMarkdown } from '../../src/engine/content/markup.js';

/** `n` paragraphs about `topic` that read as prose: long enough, with commas. */
export const prose = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `<p>${topic} paragraph ${i}, with enough words, commas, and detail to read as prose rather than a caption.</p>`).join('');

function bodyChildren(document: Document) {
  const html = document.children.find((node) => 'name' in node && node.name === 'html');
  const body = html && 'children' in html ? html.children.find((node) => 'name' in node && node.name === 'body') : undefined;
  return body && 'children' in body ? body.children : document.children;
}

export function pageMarkdown(html: string, options: { onlyMainContent: boolean; blockAds: boolean } = { onlyMainContent: true, blockAds: true }): string {
  const document = parseDocument(html);
  cleanHtml(document, 'https://example.com/', options);
  rewriteMaths([document]);
  prepareForMarkdown([document]);
  return htmlToMarkdown(serializeForMarkdown(bodyChildren(document)), 'https://example.com/');
}
