/** How a response's content type routes it through conversion (light: no parser loads). */
import { isPdf } from '../pdf/detect.js';

/** The bare media type, lower case: `text/html; charset=utf-8` -> `text/html`. */
export const mediaType = (contentType: string | undefined) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

export const isHtml = (type: string) => /^(text\/html|application\/xhtml\+xml)/.test(type) || type === '';
export const isJson = (type: string) => /^application\/(.+\+)?json|^text\/json/.test(type);
export const isText = (type: string) => type.startsWith('text/') || /^application\/(xml|javascript|x-yaml|yaml)/.test(type);

/** Whether a response goes through the HTML pipeline: HTML by its type, and not a PDF by its bytes. */
export function convertsAsHtml(page: { body: Uint8Array; contentType: string | undefined }): boolean {
  const type = mediaType(page.contentType);
  return !isPdf(type, page.body) && isHtml(type);
}
