/**
 * Strict UTF-8, for definition files and request bodies. Node's 'utf8' decoding turns invalid
 * bytes into U+FFFD without a word, so a file damaged by a bad editor or a Latin-1 export would validate with
 * altered names and URLs; here it is an error that says where the first bad byte is.
 */

export type DecodedText = { ok: true; text: string } | { ok: false; message: string; line: number; column: number };

const strict = new TextDecoder('utf-8', { fatal: true });

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence, or -1. */
export function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    // The continuation bytes a lead byte needs, and the range its first one must fall in:
    // narrower after E0, ED, F0 and F4, which rules out overlong forms, surrogates and
    // code points above U+10FFFF.
    let needed: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) needed = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      needed = 2;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      needed = 3;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= needed; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < low || next > high) return i;
      low = 0x80;
      high = 0xbf;
    }
    i += needed + 1;
  }
  return -1;
}

/** `bytes` as text (a leading byte order mark dropped), or where the first invalid byte is. */
export function decodeUtf8(bytes: Uint8Array): DecodedText {
  try {
    return { ok: true, text: strict.decode(bytes) };
  } catch {
    // The fast native decoder says only that the bytes are bad; find where.
    const offset = firstInvalidUtf8Byte(bytes);
    const lineStart = offset === 0 ? 0 : bytes.lastIndexOf(0x0a, offset - 1) + 1;
    let line = 1;
    for (let i = 0; i < lineStart; i++) if (bytes[i] === 0x0a) line++;
    // Columns count UTF-16 units, as the positions of YAML problems do.
    const column = strict.decode(bytes.subarray(lineStart, offset)).length + 1;
    return { ok: false, message: `invalid UTF-8 at byte ${offset} (line ${line}, column ${column})`, line, column };
  }
}
