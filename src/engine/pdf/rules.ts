/**
 * Table borders and other long rules erased from a page image before OCR: tesseract's page
 * layout analysis takes a ruled table for a picture and reads nothing inside it. A rule is a run
 * of dark pixels, across or down, far longer than any stroke of a letter.
 */

/** A binary greyscale PGM (P5, 8 bits) as its header and pixels. */
interface Pgm {
  width: number;
  height: number;
  headerLength: number;
}

function readHeader(image: Buffer): Pgm | undefined {
  // "P5", width, height, maxval, each after white space, then one white space byte.
  const match = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(image.subarray(0, 64).toString('latin1'));
  if (!match || Number(match[3]) !== 255) return undefined;
  const width = Number(match[1]);
  const height = Number(match[2]);
  if (image.length < match[0].length + width * height) return undefined;
  return { width, height, headerLength: match[0].length };
}

const DARK = 160;

/**
 * Whitens, in place, every horizontal or vertical run of dark pixels at least `minRun` long
 * (at 300 dpi, 0.4 inch is far longer than a letter's stroke). Returns whether it could read
 * the image; an image it cannot read is left as it is.
 */
export function eraseRules(image: Buffer, minRun: number): boolean {
  const pgm = readHeader(image);
  if (!pgm) return false;
  const { width, height, headerLength } = pgm;
  const pixels = image.subarray(headerLength, headerLength + width * height);
  // Marked first (value 1, which no pixel keeps), erased after: a crossing of two rules must be
  // seen by both passes, and the image is not copied.
  const MARK = 1;
  for (let i = 0; i < pixels.length; i++) if (pixels[i]! <= MARK) pixels[i] = MARK + 1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let start = -1;
    for (let x = 0; x <= width; x++) {
      const dark = x < width && pixels[row + x]! < DARK;
      if (dark && start < 0) start = x;
      else if (!dark && start >= 0) {
        if (x - start >= minRun) pixels.fill(MARK, row + start, row + x);
        start = -1;
      }
    }
  }
  for (let x = 0; x < width; x++) {
    let start = -1;
    for (let y = 0; y <= height; y++) {
      const dark = y < height && pixels[y * width + x]! < DARK;
      if (dark && start < 0) start = y;
      else if (!dark && start >= 0) {
        if (y - start >= minRun) for (let k = start; k < y; k++) pixels[k * width + x] = MARK;
        start = -1;
      }
    }
  }
  for (let i = 0; i < pixels.length; i++) if (pixels[i] === MARK) pixels[i] = 255;
  return true;
}
