/**
 * HTML -> GitHub-flavoured markdown with @mdream/js, chosen by benchmark on the saved corpus
 * (bench/README.md): several times faster than turndown with its GFM plugin, with pipe tables
 * also for tables without <thead>, fenced code with the language, nested lists and absolute
 * links. (mdream's native build needs Node 22, so the pure-JS engine is used.)
 */
import { htmlToMarkdown as convert } from '@mdream/js';

export const BASE64_IMAGE_PLACEHOLDER = '<Base64-Image-Removed>';

export function htmlToMarkdown(html: string, pageUrl: string): string {
  return convert(html, { origin: pageUrl }).trim();
}

/** `![alt](data:image/...;base64,...)` -> `![alt](<Base64-Image-Removed>)`: alt text stays. */
export function removeBase64Images(markdown: string): string {
  return markdown.replace(/(!\[[^\]]*\])\(\s*data:image\/[^)]*\)/g, `$1(${BASE64_IMAGE_PLACEHOLDER})`);
}
