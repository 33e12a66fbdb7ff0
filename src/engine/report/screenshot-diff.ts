/**
 * Two screenshots of a page compared pixel by pixel with pixelmatch: an image of the current
 * screenshot, faded, with the changed pixels marked red, and the share of the page that changed.
 * Screenshots of different sizes (a page that grew) are compared on the larger canvas: what one
 * of them does not cover counts as changed.
 */
import { WebwatchError } from '../../errors/webwatch-error.js';

export interface DecodedImage {
  width: number;
  height: number;
  /** RGBA, four bytes a pixel. */
  data: Uint8Array;
}

export interface ScreenshotComparison {
  /** A PNG: the current screenshot faded, changed pixels red. */
  diffPng: Buffer;
  changedPixels: number;
  totalPixels: number;
  /** changedPixels / totalPixels, 0 to 1. */
  changedShare: number;
  width: number;
  height: number;
}

/**
 * Beyond this many pixels an image is not decoded (a 1280 x 16384 full-page screenshot is 21
 * million): three such canvases are what one comparison holds in memory at once.
 */
export const MAX_COMPARED_PIXELS = 24_000_000;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const unreadable = (why: string) => new WebwatchError(`the screenshot cannot be compared: ${why}`, { status: 422 });

/** Width and height from a PNG's header, read before anything is decoded. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) throw unreadable('not a PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** A JPEG by its first bytes (a kept screenshot is a JPEG or a PNG). */
export const isJpeg = (bytes: Buffer) => bytes[0] === 0xff && bytes[1] === 0xd8;

/** A kept screenshot (PNG or JPEG) as RGBA pixels, refused before decoding when too large. */
export async function decodeScreenshot(bytes: Buffer): Promise<DecodedImage> {
  if (isJpeg(bytes)) {
    const { decode } = await import('jpeg-js');
    try {
      const image = decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: MAX_COMPARED_PIXELS / 1e6, maxMemoryUsageInMB: 256 });
      return { width: image.width, height: image.height, data: image.data };
    } catch (error) {
      throw unreadable((error as Error).message);
    }
  }
  const { width, height } = pngSize(bytes);
  if (width * height > MAX_COMPARED_PIXELS) throw unreadable(`${width} x ${height} pixels is over the ${MAX_COMPARED_PIXELS / 1e6} million compared`);
  const { PNG } = await import('pngjs');
  try {
    const image = PNG.sync.read(bytes);
    return { width: image.width, height: image.height, data: image.data };
  } catch (error) {
    throw unreadable((error as Error).message);
  }
}

/** Where one screenshot does not reach: a colour no page is compared against, so it counts as changed. */
const UNCOVERED = [255, 0, 255, 255];

/** The image on a canvas of the given size, top left; the rest UNCOVERED. */
function onCanvas(image: DecodedImage, width: number, height: number): Uint8Array {
  if (image.width === width && image.height === height) return image.data;
  const canvas = new Uint8Array(width * height * 4);
  // Four bytes at a time: the colour as one 32-bit word (in the machine's byte order).
  new Uint32Array(canvas.buffer).fill(new Uint32Array(Uint8Array.from(UNCOVERED).buffer)[0]!);
  const row = image.width * 4;
  for (let y = 0; y < image.height; y++) canvas.set(image.data.subarray(y * row, (y + 1) * row), y * width * 4);
  return canvas;
}

export async function compareScreenshots(before: Buffer, after: Buffer): Promise<ScreenshotComparison> {
  const [previous, current] = [await decodeScreenshot(before), await decodeScreenshot(after)];
  const width = Math.max(previous.width, current.width);
  const height = Math.max(previous.height, current.height);
  if (width * height > MAX_COMPARED_PIXELS) throw unreadable(`${width} x ${height} pixels is over the ${MAX_COMPARED_PIXELS / 1e6} million compared`);
  const [{ default: pixelmatch }, { PNG }] = await Promise.all([import('pixelmatch'), import('pngjs')]);
  const diff = new PNG({ width, height });
  const changedPixels = pixelmatch(onCanvas(previous, width, height), onCanvas(current, width, height), diff.data, width, height, {
    threshold: 0.1,
    alpha: 0.25,
  });
  const totalPixels = width * height;
  // Without row filters: five times faster to write than pngjs's default (every filter tried on
  // every row), for a file 5 % larger (bench/README.md).
  const diffPng = PNG.sync.write(diff, { filterType: 0, deflateLevel: 6 });
  return { diffPng, changedPixels, totalPixels, changedShare: totalPixels ? changedPixels / totalPixels : 0, width, height };
}
