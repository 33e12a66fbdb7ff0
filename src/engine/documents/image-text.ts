/**
 * The text of an uploaded image (POST /v2/parse, `webwatch parse scan.png`), read by tesseract
 * as the PDF reader reads a scanned page: a child process with a deadline and a memory cap.
 * The image is checked first by its own header: bytes that are no PNG or JPEG, and an image too
 * large to read (a decompression bomb declares its size up front), are refused before tesseract
 * sees them.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebwatchError } from '../../errors/webwatch-error.js';
import { findTool, runTool, ToolStopped } from '../tools/child-tools.js';

/** A page scanned at 600 dpi is about 35 megapixels. */
export const MAX_IMAGE_PIXELS = 80_000_000;
const TESSERACT_MEMORY_BYTES = 1024 * 1024 * 1024;
const TEXT_MAX_BYTES = 16 * 1024 * 1024;

const unreadable = (why: string) => new WebwatchError(`the image could not be read: ${why}`, { status: 422, code: 'DOCUMENT_UNREADABLE' });

/** Whether this machine reads images: tesseract is installed. */
export function imageTextAvailable(): boolean {
  try {
    findTool('tesseract');
    return true;
  } catch {
    return false;
  }
}

/** Width and height from a PNG's IHDR or a JPEG's first frame header; undefined for anything else. */
export function imageSize(body: Uint8Array): { format: 'png' | 'jpeg'; width: number; height: number } | undefined {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (
    bytes.length >= 24 &&
    bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) &&
    bytes.toString('latin1', 12, 16) === 'IHDR'
  ) {
    return { format: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  // Segments after the start of image, each a marker and its length, until a start of frame.
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = bytes.readUInt16BE(at + 2);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { format: 'jpeg', height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    if (length < 2) return undefined;
    at += 2 + length;
  }
  return undefined;
}

/** The image's text as HTML paragraphs (blank lines part them; a line's end hyphen joins the word). */
export async function imageTextHtml(body: Uint8Array, limits: { deadline: number; signal?: AbortSignal }): Promise<string> {
  const size = imageSize(body);
  if (!size) throw unreadable('it is no PNG or JPEG image (its header is not one)');
  if (size.width === 0 || size.height === 0) throw unreadable('it declares no width or height');
  if (size.width * size.height > MAX_IMAGE_PIXELS) {
    throw unreadable(`it is ${size.width} x ${size.height} pixels, more than the ${MAX_IMAGE_PIXELS / 1_000_000} megapixels read by OCR`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'webwatch-image-'));
  try {
    const input = join(dir, `image.${size.format === 'png' ? 'png' : 'jpg'}`);
    await writeFile(input, body, { mode: 0o600 });
    const result = await runTool('tesseract', [input, 'stdout', '-l', 'eng', '--psm', '3'], {
      deadline: limits.deadline,
      memoryBytes: TESSERACT_MEMORY_BYTES,
      maxOutputBytes: TEXT_MAX_BYTES,
      ...(limits.signal && { signal: limits.signal }),
    }).catch((error: unknown) => {
      if (error instanceof ToolStopped && error.reason !== 'aborted') {
        throw unreadable(error.reason === 'deadline' ? 'OCR took longer than the time left' : 'it became too much text');
      }
      throw error;
    });
    if (/failed loading language|tessdata/i.test(result.stderr)) {
      throw new WebwatchError("OCR needs tesseract's English data, and it is not installed", {
        status: 501,
        code: 'PDF_TOOLS_NOT_FOUND',
        suggestion: 'apt-get install tesseract-ocr-eng',
      });
    }
    if (result.code !== 0)
      throw unreadable(`tesseract failed: ${result.stderr.split('\n').find((line) => line.trim()) ?? `exit ${result.code ?? 'by a signal'}`}`);
    return paragraphsHtml(result.stdout.toString('utf8'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function paragraphsHtml(text: string): string {
  const paragraphs = text
    .replace(/\f/g, '\n\n')
    .split(/\n\s*\n/)
    .map((block) =>
      block
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
        .reduce((joined, line) => (joined.endsWith('-') && /^[a-z]/.test(line) ? joined.slice(0, -1) + line : joined ? `${joined} ${line}` : line), ''),
    )
    .filter(Boolean);
  return `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>${paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('')}</body></html>`;
}
