/**
 * Would a reader see something new? The comparison behind a check's `same` and `changed`.
 *
 * What is compared is what a reader sees of the page: its title and headline (page-text.ts),
 * then its markdown line by line, whitespace aside, with the addresses of images reduced to
 * what identifies the image (no query string, no hash in a file name) and the tokens in link
 * addresses (session ids, timestamps) masked. Two texts that differ only there are the same
 * page, with the difference said in `noise`. Otherwise the lines that differ are looked at in
 * pairs: a line that differs from its counterpart only by a relative time or a clock, or, on a
 * short line next to the headline or right after the last paragraph, only by its numbers and
 * dates (a counter, an "updated" date), is volatile (volatile-parts.ts). A page whose every
 * difference is volatile is `same`, with the reason; any other difference is a change.
 */
import { createRequire } from 'node:module';
import type { PageNoise } from '../../contract/checks.js';
import type { PageDiff } from '../../contract/diff.js';
import { isHeadingLine, splitPageText } from './page-text.js';
import { hasCurrency, maskClocks, maskCounts, maskTimes, type VolatileKind } from './volatile-parts.js';

/** The diff library loads only when two texts differ. */
let diffLibrary: typeof import('diff') | undefined;
const diffModule = () => (diffLibrary ??= createRequire(import.meta.url)('diff') as typeof import('diff'));

/** A difference that does not count, as a user is shown it. */
export type NoisePart = PageNoise['parts'][number];

export interface Comparison {
  /** A reader would see something new. */
  changed: boolean;
  /** The texts differ, but only in volatile parts: which, and why they do not count. */
  noise?: { reason: string; parts: NoisePart[] };
  /**
   * Changed only in boxes of links or images replaced in place (a "most read" box, an ad): where
   * they are, and the volatile parts found besides. The page's history may still settle them
   * (settledByHistory).
   */
  unsettled?: { places: Place[]; boxes: NoisePart[]; parts: NoisePart[] };
}

/** Where a run of lines changed: the unchanged lines before and after it ('' for the start or end of the text). */
export interface Place {
  before: string;
  after: string;
}

/**
 * Lines of a page as a reader sees them: each line read closely (readLine) only when asked,
 * since most lines of two texts of a page are equal and need nothing more.
 */
class ReaderLines {
  readonly headings: string[];
  /** The lines, whitespace collapsed, blank lines left out: what the user is shown. */
  readonly shown: string[];
  private readonly lines: (ReadLine | undefined)[] = [];
  private readonly prose: (boolean | undefined)[] = [];
  private zoneBounds: { first: number; last: number } | undefined;

  constructor(text: string, withHeadings: boolean) {
    const { headings, body } = splitPageText(text);
    this.headings = withHeadings && headings ? Object.entries(headings).map(([name, value]) => `${name}: ${collapse(value)}`) : [];
    this.shown = [];
    for (const line of body.split('\n')) {
      const collapsed = collapse(line);
      if (collapsed) this.shown.push(collapsed);
    }
  }

  read(i: number): ReadLine {
    return (this.lines[i] ??= readLine(this.shown[i]!));
  }

  /** The line with its addresses reduced: what is compared. */
  reduced(i: number): string {
    return this.read(i).reduced;
  }

  /** Every line reduced: for texts whose shown lines differ too much to diff them first. */
  allReduced(): string[] {
    return this.shown.map((_, i) => this.reduced(i));
  }

  isProse(i: number): boolean {
    return (this.prose[i] ??= isProse(this.read(i)));
  }

  /**
   * Where line i stands: next to the headline (before the first paragraph of prose, near the
   * top), right after the last paragraph (up to three lines, before any heading), or elsewhere.
   */
  zone(i: number): 'head' | 'tail' | undefined {
    if (!this.zoneBounds) {
      let first = 0;
      while (first < this.shown.length && !this.isProse(first)) first++;
      let last = this.shown.length - 1;
      while (last > first && !this.isProse(last)) last--;
      this.zoneBounds = first === this.shown.length ? { first: -1, last: -1 } : { first, last };
    }
    const { first, last } = this.zoneBounds;
    if (first === -1) return undefined;
    if (i < Math.min(first, 10)) return 'head';
    if (i <= last || i >= last + 4) return undefined;
    for (let j = last + 1; j <= i; j++) if (isHeading(this.shown[j]!)) return undefined;
    return 'tail';
  }
}

/** Checks in a row in which a part must have changed, with nothing around it, to count as rotating. */
export const ROTATION_CHECKS = 2;

const collapse = (line: string) => (/\s\s|[^\S ]|^ | $/.test(line) ? line.replace(/\s+/g, ' ').trim() : line);

/** A part of a slug: a word (lower case, upper case or capitalised) or a number. */
const SLUG_PART = /^(?:[a-z]+|[A-Z]+|[A-Z][a-z]+|\d+)$/;

/**
 * A query value that is a token (a session or click id, a timestamp): twelve or more letters,
 * digits, `-` and `_` (base64url), unless every part between its `-` and `_` is a word or a
 * number (a slug such as `blue-widget-12345` is an address's words; `QrPufRlN6QhY` and
 * `a8f3k29dj4k2` are not); a UUID; a run of nine digits or more; sixteen hex digits or more.
 */
const isToken = (value: string) =>
  (/^[\w-]{12,}$/.test(value) && !value.split(/[-_]+/).every((part) => SLUG_PART.test(part))) ||
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) ||
  /^\d{9,}$/.test(value) ||
  /^[0-9a-f]{16,}$/i.test(value);

/**
 * A part of a file name that is a content hash (hex, as build tools and CDNs write it:
 * `app.3f9a1c2b.jpg`) or a build number (`photo-v1699999999.png`); `chart2024q1.png` is a name.
 */
const HASHED_NAME_PART = /(?<=[./_-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,64}(?=[./_-])|(?<=[./_-])v?\d{9,13}(?=[./_-])/gi;

/** An image's address as what identifies the image: its origin and path, any hash in its file name masked. */
function reducedImageAddress(address: string): string {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return address.replace(/[?#].*$/, '');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return address.slice(0, 200);
  const path = url.pathname
    .split('/')
    .map((segment) => (/^v?\d{9,13}$/.test(segment) ? '' : segment.replace(HASHED_NAME_PART, '')))
    .join('/');
  return `${url.host}${path}`;
}

/** A link's address with its token-shaped query values masked and tracking parameters dropped. */
function reducedLinkAddress(address: string): string {
  const query = address.indexOf('?');
  if (query === -1) return address;
  const end = address.indexOf('#', query);
  const search = address.slice(query + 1, end === -1 ? undefined : end);
  const kept = search
    .split('&')
    .filter((pair) => pair && !/^utm_/i.test(pair))
    .map((pair) => {
      const [name, value = ''] = pair.split('=', 2) as [string, string?];
      return isToken(value) ? `${name}=*` : pair;
    });
  return `${address.slice(0, query)}${kept.length > 0 ? `?${kept.join('&')}` : ''}`;
}

/** Longest link or image address read: past it, the rest of a line is text. */
const MAX_ADDRESS = 4000;
/** Open brackets remembered: a line of thousands of `[` keeps only the latest. */
const ADDRESS_END = /[\s)>(]/;
const MAX_OPEN = 256;

/** A markdown line read once: its visible text, and the line with its addresses reduced. */
interface ReadLine {
  /** What a reader sees: link texts and alt texts, without addresses and brackets. */
  visible: string;
  /** The line with image addresses reduced to the image and link tokens masked. */
  reduced: string;
  /** The reduced addresses, in order. */
  addresses: string[];
  /** Characters of the visible text inside brackets: a link's text, an image's alt. */
  bracketed: number;
}

/**
 * One pass over the line, left to right, with a bounded stack of open brackets: each `](`
 * closes the nearest `[` (an image when it is `![`), and its address runs to a space, `>` or
 * `)`. Time linear in the line, whatever brackets it holds.
 */
function readLine(line: string): ReadLine {
  const open: boolean[] = [];
  let visible = '';
  let reduced = '';
  const addresses: string[] = [];
  let bracketed = 0;
  // Where the next `"` is, found once for every search that starts before it: linear.
  let quoteAt = -2;
  const nextQuote = (from: number) => {
    if (quoteAt !== -1 && quoteAt < from) quoteAt = line.indexOf('"', from);
    return quoteAt;
  };
  let i = 0;
  while (i < line.length) {
    const char = line[i]!;
    if (char === '[' || (char === '!' && line[i + 1] === '[')) {
      // A line of thousands of brackets: the far ones are forgotten, in constant time.
      if (open.length === MAX_OPEN) open.length = 0;
      open.push(char === '!');
      reduced += char === '!' ? '![' : '[';
      i += char === '!' ? 2 : 1;
      continue;
    }
    if (char === ']' && open.length > 0) {
      const image = open.pop()!;
      if (line[i + 1] !== '(') {
        reduced += char;
        i++;
        continue;
      }
      let start = i + 2;
      while (start < line.length && line[start] === ' ') start++;
      // `<...>` holds an address with spaces or parentheses (`/filters:format(jpg)/`).
      const angled = line[start] === '<';
      if (angled) start++;
      let end = start;
      const limit = Math.min(line.length, start + MAX_ADDRESS);
      while (end < limit && !(angled ? line[end] === '>' : ADDRESS_END.test(line[end]!))) end++;
      const shown = image ? reducedImageAddress(line.slice(start, end)) : reducedLinkAddress(line.slice(start, end));
      addresses.push(shown);
      // The link's title and closing parenthesis belong to it, not to what a reader sees.
      let close = end;
      while (close < line.length && (line[close] === ' ' || line[close] === '>')) close++;
      if (line[close] === '"') {
        const quote = nextQuote(close + 1);
        close = quote !== -1 && quote - close <= MAX_ADDRESS ? quote + 1 : close;
      }
      const closed = line[close] === ')';
      if (closed) end = close + 1;
      reduced += `](${shown}${closed ? ')' : ''}`;
      i = end;
      continue;
    }
    if (char !== ']') {
      visible += char;
      if (open.length > 0 && char !== ' ') bracketed++;
    }
    reduced += char;
    i++;
  }
  return { visible: collapse(visible.replace(/[*_`>#|]+/g, ' ').replace(/^\s*(?:[-+]|\d+\.)\s+/, '')), reduced, addresses, bracketed };
}

const SENTENCE_END = /[.!?。！？؟।…]["'”’»)\]]*$/u;
const words = (text: string) => text.split(' ').filter((word) => /\p{L}/u.test(word)).length;
/** A line of prose: a sentence or more. Numbers in prose are the content, never a counter. */
function isProse(line: ReadLine): boolean {
  const text = line.visible;
  if (text.length >= 120) return true;
  // Scripts without spaces between words: a sentence of a few characters is prose.
  const spacedWords = words(text);
  return SENTENCE_END.test(text) && (spacedWords >= 6 || (spacedWords <= 2 && text.length >= 24));
}

const isHeading = (line: string) => /^#{1,6}\s/.test(line);
const isTableRow = (line: string) => line.startsWith('|');
const isListItem = (line: string) => /^(?:[-+*]|\d+\.)\s/.test(line);

interface Placed {
  shown: string;
  read: ReadLine;
  prose: boolean;
  zone: 'head' | 'tail' | undefined;
}

/** How two lines that stand for each other differ, when only by a volatile part; undefined when they differ in content. */
function volatileDifference(before: Placed, after: Placed, language: string | undefined): VolatileKind | undefined {
  if (isHeading(before.shown) || isHeading(after.shown)) return undefined;
  if (before.prose || after.prose) return undefined;
  // A link or an image that now leads elsewhere is content, whatever its words.
  if (before.read.addresses.join('\n') !== after.read.addresses.join('\n')) return undefined;
  const [was, now] = [before.read.visible, after.read.visible];
  if (maskClocks(was) === maskClocks(now)) return 'clock';
  if (maskTimes(was, language) === maskTimes(now, language)) return 'relative time';
  // Numbers and dates count as volatile only on the short lines around the article, never in a table or beside a price.
  if (!before.zone || !after.zone || isTableRow(before.shown) || isTableRow(after.shown) || hasCurrency(was) || hasCurrency(now)) return undefined;
  const counts = maskCounts(was, language);
  if (counts !== maskCounts(now, language)) return undefined;
  // A list after the article is more likely its last items than a counter, unless it is a word or two.
  if (before.zone === 'tail' && (isListItem(before.shown) || isListItem(after.shown)) && words(counts) > 2) return undefined;
  return words(counts) <= 6 ? 'counter' : undefined;
}

/** Runs of lines that differ: removed from the previous text, added in the current one, with their positions. */
interface Hunk {
  removed: number[];
  added: number[];
}

const MAX_EDIT_LINES = 200;

/** The hunks between two texts' lines; undefined when they differ in more than MAX_EDIT_LINES lines. */
function hunksOf(before: readonly string[], after: readonly string[]): Hunk[] | undefined {
  const { diffArrays } = diffModule();
  const hunks: Hunk[] = [];
  let at = { before: 0, after: 0 };
  let open: Hunk | undefined;
  // Volatile parts are a few lines: an edit longer than this is a change, found without the cost of its whole diff.
  const parts = diffArrays(before as string[], after as string[], { maxEditLength: MAX_EDIT_LINES });
  if (!parts) return undefined;
  for (const part of parts) {
    const count = part.value.length;
    if (!part.added && !part.removed) {
      open = undefined;
      at = { before: at.before + count, after: at.after + count };
      continue;
    }
    if (!open) hunks.push((open = { removed: [], added: [] }));
    if (part.removed) for (let i = 0; i < count; i++) open.removed.push(at.before++);
    else for (let i = 0; i < count; i++) open.added.push(at.after++);
  }
  return hunks;
}

const KIND_TEXT: Record<NoisePart['kind'], string> = {
  'relative time': 'a relative time',
  clock: 'a clock',
  counter: 'a counter or date beside the article',
  'asset address': 'the address of an image (a cache-busting query string or file name)',
  'link token': 'a token in a link address',
  'rotating part': `a box of links or images that changed at each of the last ${ROTATION_CHECKS} checks too, with nothing around it`,
};

function noiseOf(parts: NoisePart[]): Comparison {
  const kinds = [...new Set(parts.map((part) => part.kind))];
  const first = parts[0]!;
  const example = `"${first.before.slice(0, 80)}" → "${first.after.slice(0, 80)}"`;
  const reason = `only volatile parts changed: ${kinds.map((kind) => KIND_TEXT[kind]).join(', ')} (${example}${parts.length > 1 ? `, and ${parts.length - 1} more` : ''})`;
  return { changed: false, noise: { reason, parts: parts.slice(0, 10) } };
}

/**
 * Compares the previous and the current text of a page (as page-text.ts writes them) as a
 * reader would. `language` is the page's (its `lang`), for the words of its relative times.
 * A text kept before headings were kept is compared without them.
 */
export function comparePages(previous: string, current: string, language?: string): Comparison {
  const withHeadings = splitPageText(previous).headings !== undefined && splitPageText(current).headings !== undefined;
  const before = new ReaderLines(previous, withHeadings);
  const after = new ReaderLines(current, withHeadings);
  if (before.headings.join('\n') !== after.headings.join('\n')) return { changed: true };
  // The lines as shown first: where they are equal, nothing more is read. Past MAX_EDIT_LINES of
  // them (a page whose every image address changed), the reduced lines are compared whole.
  const hunks = hunksOf(before.shown, after.shown) ?? hunksOf(before.allReduced(), after.allReduced());
  if (!hunks) return { changed: true };
  const parts: NoisePart[] = [];
  const boxes: NoisePart[] = [];
  const places: Place[] = [];
  for (const hunk of hunks) {
    const volatile =
      hunk.removed.length === hunk.added.length &&
      hunk.removed.every((was, i) => {
        const now = hunk.added[i]!;
        const kind =
          before.reduced(was) === after.reduced(now)
            ? before.shown[was]!.includes('![')
              ? 'asset address'
              : 'link token'
            : volatileDifference(
                { shown: before.shown[was]!, read: before.read(was), prose: before.isProse(was), zone: before.zone(was) },
                { shown: after.shown[now]!, read: after.read(now), prose: after.isProse(now), zone: after.zone(now) },
                language,
              );
        if (kind) parts.push({ kind, before: before.shown[was]!, after: after.shown[now]! });
        return kind !== undefined;
      });
    if (volatile) continue;
    // A box of links or images replaced in place, line for line: the page's history may tell it rotates.
    // A single line must be an image (an ad's creative): one link replaced is more likely the news itself.
    const box =
      hunk.removed.length === hunk.added.length &&
      hunk.removed.every((i) => isBoxLine(before.read(i))) &&
      hunk.added.every((i) => isBoxLine(after.read(i))) &&
      (hunk.added.length >= 2 ||
        hunk.added.every((i) => after.read(i).visible.replace(/\s/g, '').length === after.read(i).bracketed && after.shown[i]!.includes('![')));
    if (!box) return { changed: true };
    const edge = (i: number) => (i >= 0 && i < after.shown.length ? after.reduced(i) : '');
    places.push({ before: edge(hunk.added[0]! - 1), after: edge(hunk.added.at(-1)! + 1) });
    boxes.push({ kind: 'rotating part', before: before.shown[hunk.removed[0]!]!, after: after.shown[hunk.added[0]!]! });
  }
  if (places.length > 0) return { changed: true, unsettled: { places, boxes, parts } };
  return parts.length > 0 ? noiseOf(parts) : { changed: false };
}

/** A line that is a link or an image, or mostly links: what boxes of teasers and ads are made of. */
function isBoxLine(line: ReadLine): boolean {
  if (line.addresses.length === 0) return false;
  const visible = line.visible.replace(/\s/g, '').length;
  return visible === 0 || line.bracketed >= 0.6 * visible;
}

/** The places where a stored diff changed, its context lines read as the comparison reads them. */
function placesOf(diff: PageDiff): Place[] {
  const places: Place[] = [];
  const anchor = (content: string) => {
    const line = collapse(content);
    return line === '' || isHeadingLine(line) ? undefined : readLine(line).reduced;
  };
  for (const file of diff.json.files) {
    for (const chunk of file.chunks) {
      let before: string | undefined = chunk.oldStart <= 1 && chunk.newStart <= 1 ? '' : undefined;
      let changedSinceAnchor = false;
      for (const change of chunk.changes) {
        if (change.type !== 'normal') {
          changedSinceAnchor = true;
          continue;
        }
        const line = anchor(change.content);
        if (line === undefined) continue;
        if (changedSinceAnchor && before !== undefined) places.push({ before, after: line });
        changedSinceAnchor = false;
        before = line;
      }
      // A run that reaches the chunk's end without context after it ends the text.
      if (changedSinceAnchor && before !== undefined) places.push({ before, after: '' });
    }
  }
  return places;
}

/**
 * Whether the page's last checks settle a comparison's boxes as rotating: each of the last
 * ROTATION_CHECKS results of the page changed at every one of the same places (its diff, or the
 * raw diff of its noise). A result that did not change there, or is missing, settles nothing.
 */
export function settledByHistory(comparison: Comparison, recent: readonly (PageDiff | null)[]): Comparison {
  const unsettled = comparison.unsettled;
  if (!unsettled || recent.length < ROTATION_CHECKS) return comparison;
  const key = (place: Place) => `${place.before}\u0000${place.after}`;
  for (const diff of recent.slice(0, ROTATION_CHECKS)) {
    if (!diff) return comparison;
    const changedAt = new Set(placesOf(diff).map(key));
    if (!unsettled.places.every((place) => changedAt.has(key(place)))) return comparison;
  }
  return noiseOf([...unsettled.boxes, ...unsettled.parts]);
}
