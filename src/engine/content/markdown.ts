/**
 * HTML -> GitHub-flavoured markdown with @mdream/js, chosen by benchmark on the saved corpus
 * (bench/README.md): several times faster than turndown with its GFM plugin, with pipe tables
 * also for tables without <thead>, fenced code with the language, nested lists and absolute
 * links. (mdream's native build needs Node 22, so the pure-JS engine is used.)
 */
import { htmlToMarkdown as convert } from '@mdream/js';
import { load } from 'cheerio/slim';

export const BASE64_IMAGE_PLACEHOLDER = '<Base64-Image-Removed>';

/**
 * Markdown of untrusted HTML. Should the converter fail on some malformed input, the page's
 * text is returned instead, one paragraph per block, rather than failing the scrape.
 */
export function htmlToMarkdown(html: string, pageUrl: string): string {
  try {
    return convert(html, { origin: pageUrl }).trim();
  } catch {
    return textOf(html);
  }
}

function textOf(html: string): string {
  const $ = load(html);
  const blocks = $('p, li, h1, h2, h3, h4, h5, h6, pre, blockquote, td, th, div')
    .filter((_, element) => $(element).children('p, li, div, pre, blockquote, table').length === 0)
    .map((_, element) => $(element).text().replace(/\s+/g, ' ').trim())
    .get()
    .filter(Boolean);
  return (blocks.length > 0 ? blocks : [$.root().text().replace(/\s+/g, ' ').trim()]).join('\n\n');
}

/** `![alt](data:image/...;base64,...)` -> `![alt](<Base64-Image-Removed>)`: alt text stays. */
export function removeBase64Images(markdown: string): string {
  return markdown.replace(/(!\[[^\]]*\])\(\s*data:image\/[^)]*\)/g, `$1(${BASE64_IMAGE_PLACEHOLDER})`);
}
