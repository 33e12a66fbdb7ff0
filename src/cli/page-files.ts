/** `-o <directory>` of scrape and crawl: files named after each page's URL, one per format. */
import { copyFile, mkdir, stat, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScrapeDocument } from '../contract/scrape.js';
import { UsageError } from '../errors/webwatch-error.js';
import { formatText } from './scrape-output.js';

/** Host, path and query of a URL, made safe for a file name. */
export function pageSlug(url: string): string {
  const { hostname, pathname, search } = new URL(url);
  const slug = `${hostname}${pathname === '/' ? '' : pathname}${search}`.replace(/[^a-zA-Z0-9._-]+/g, '_').replace(/_+$/, '');
  return slug.slice(0, 180) || 'page';
}

/** Slugs kept apart within one command: `/a` and `/a/` would both be `host_a`. */
export function slugNamer(): (url: string) => string {
  const taken = new Set<string>();
  return (url) => {
    const base = pageSlug(url);
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
    taken.add(slug);
    return slug;
  };
}

const EXTENSIONS: Record<string, string> = {
  markdown: 'md',
  html: 'html',
  rawHtml: 'raw.html',
  links: 'links.txt',
  images: 'images.txt',
  summary: 'summary.md',
  json: 'json',
};

/** The file type of rawBase64's bytes; an HTML page's apart from the html format's file. */
const BYTES_EXTENSIONS: Record<string, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/svg+xml': 'svg',
  'application/json': 'json',
  'text/plain': 'txt',
  'text/csv': 'csv',
  'application/xml': 'xml',
  'text/xml': 'xml',
  'text/html': 'bytes.html',
  'application/xhtml+xml': 'bytes.html',
};

export interface PageFile {
  name: string;
  content: string | Uint8Array;
  /** A file the engine kept (video, audio), copied rather than read into memory. */
  copyFrom?: string;
}

/** The engine's file of a media format, when the document names one of this machine. */
export function keptMediaFile(document: ScrapeDocument, format: string): string | undefined {
  const value = format === 'video' ? document.video : format === 'audio' ? document.audio : format === 'screenshot' ? document.screenshot : undefined;
  return value?.startsWith('file:') ? fileURLToPath(value) : undefined;
}

/** A screenshot given inline (`data:image/png;base64,...`): its bytes and extension. */
function inlineImage(value: unknown): { bytes: Buffer; extension: string } | undefined {
  const match = typeof value === 'string' ? /^data:image\/(png|jpeg|webp);base64,(.*)$/s.exec(value) : null;
  return match ? { bytes: Buffer.from(match[2]!, 'base64'), extension: match[1] === 'jpeg' ? 'jpg' : match[1]! } : undefined;
}

/** One page's files: its whole response with --json, else one file per format. */
export function pageFiles(slug: string, document: ScrapeDocument, formats: readonly string[], json: boolean): PageFile[] {
  if (json) return [{ name: `${slug}.json`, content: `${JSON.stringify({ success: true, data: document }, null, 2)}\n` }];
  return formats.map((format) => {
    const kept = keptMediaFile(document, format);
    if (kept) return { name: `${slug}${extname(kept)}`, content: '', copyFrom: kept };
    const image = format === 'screenshot' ? inlineImage(document.screenshot) : undefined;
    if (image) return { name: `${slug}.${image.extension}`, content: image.bytes };
    if (format === 'rawBase64') {
      const extension = BYTES_EXTENSIONS[document.metadata?.contentType?.split(';')[0]?.trim().toLowerCase() ?? ''] ?? 'bin';
      // `logo.png` stays `host_logo.png`, not `host_logo.png.png`.
      return { name: slug.endsWith(`.${extension}`) ? slug : `${slug}.${extension}`, content: Buffer.from(document.rawBase64 ?? '', 'base64') };
    }
    const value = (document as unknown as Record<string, unknown>)[format];
    const structured = typeof value === 'object' && value !== null && !(Array.isArray(value) && value.every((item) => typeof item === 'string'));
    const extension = EXTENSIONS[format] ?? `${format}.${structured && format !== 'changeTracking' ? 'json' : 'txt'}`;
    return { name: `${slug}.${extension}`, content: `${formatText(document, format)}\n` };
  });
}

/** Whether `-o` names a directory: several pages, a trailing slash, or one that exists. */
export async function isDirectoryTarget(path: string, severalPages: boolean): Promise<boolean> {
  if (severalPages || /[\\/]$/.test(path)) return true;
  return stat(path).then(
    (found) => found.isDirectory(),
    () => false,
  );
}

/** Makes the directory `-o` names, or says, before any work, why it cannot be one. */
export async function outputDirectory(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`-o ${path}: ${code === 'EEXIST' || code === 'ENOTDIR' ? 'a file is in the way; give a directory' : (error as Error).message}`);
  }
}

/** Writes a page's files into `directory` and returns their paths. */
export async function writePageFiles(directory: string, files: readonly PageFile[]): Promise<string[]> {
  const paths: string[] = [];
  for (const file of files) {
    const path = join(directory, file.name);
    await (file.copyFrom ? copyFile(file.copyFrom, path) : writeFile(path, file.content));
    paths.push(path);
  }
  return paths;
}
