/**
 * HTML -> GitHub-flavoured markdown with mdream's WebAssembly build, chosen by benchmark on the
 * saved corpus (bench/README.md): many times faster than turndown with its GFM plugin, with
 * pipe tables also for tables without <thead>, fenced code (bare <pre> too) with the language,
 * nested lists with their numbering, and links made absolute. mdream's native build needs
 * Node 22; the WebAssembly one ships in the same package and runs anywhere.
 */
import { readFileSync } from 'node:fs';
import type { AnyNode } from 'domhandler';
import { isTag, textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { htmlToMarkdown as convert, initSync } from 'mdream/wasm';
import { LINK_MARK } from './markup.js';

export const BASE64_IMAGE_PLACEHOLDER = '<Base64-Image-Removed>';

/**
 * The WebAssembly glue copies a string into the module one character at a time in JavaScript
 * while it is ASCII, and hands the rest to TextEncoder.encodeInto, which is native: a comment
 * with a non-ASCII character in front sends the whole page that way (a third of the time on
 * 500 pages). Comments produce no markdown.
 */
const ENCODE_AT_ONCE = '<!--\u00a0-->';
const SOFT_HYPHEN = '\u00ad';
/** The mark markup.ts puts before each link, and the space the converter wrote after it, before the link's `[`. */
const CONVERTER_SPACE = new RegExp(`${LINK_MARK}(?: (?=\\[))?`, 'g');

let ready = false;
function ensureReady() {
  if (ready) return;
  initSync({ module: readFileSync(new URL(import.meta.resolve('mdream/wasm/mdream_edge_bg.wasm'))) });
  ready = true;
}

/**
 * Markdown of untrusted HTML. Should the converter fail on some malformed input, the page's
 * text is returned instead, one paragraph per block, rather than failing the scrape. Either is
 * in Unicode's composed form (NFC), without soft hyphens: the same words written with a
 * combining accent or a precomposed letter, or with the invisible break hints a hyphenation
 * script sprinkles in, read, search, compare and diff the same, as they look the same.
 */
export function htmlToMarkdown(html: string, pageUrl: string): string {
  ensureReady();
  let markdown: string;
  try {
    markdown = (convert(ENCODE_AT_ONCE + html, { origin: pageUrl }) as string).trim();
  } catch {
    markdown = textOf(html);
  }
  return markdown.replace(CONVERTER_SPACE, '').replaceAll(SOFT_HYPHEN, '').normalize('NFC');
}

const TEXT_BLOCKS = new Set(['p', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'td', 'th', 'div']);
const NESTING_BLOCKS = new Set(['p', 'li', 'div', 'pre', 'blockquote', 'table']);

function textOf(html: string): string {
  const document = parseDocument(html);
  const blocks: string[] = [];
  // Innermost blocks: those with no block among their children.
  const visit = (nodes: AnyNode[]) => {
    for (const node of nodes) {
      if (!isTag(node)) continue;
      if (TEXT_BLOCKS.has(node.name) && !node.children.some((child) => isTag(child) && NESTING_BLOCKS.has(child.name))) {
        const text = textContent(node).replace(/\s+/g, ' ').trim();
        if (text) blocks.push(text);
      }
      visit(node.children);
    }
  };
  visit(document.children);
  return (blocks.length > 0 ? blocks : [textContent(document).replace(/\s+/g, ' ').trim()]).join('\n\n');
}

/** `![alt](data:image/...;base64,...)` -> `![alt](<Base64-Image-Removed>)`: alt text stays. */
export function removeBase64Images(markdown: string): string {
  return markdown.replace(/(!\[[^\]]*\])\(\s*data:image\/[^)]*\)/g, `$1(${BASE64_IMAGE_PLACEHOLDER})`);
}
