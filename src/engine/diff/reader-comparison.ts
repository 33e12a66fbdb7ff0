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
import { splitPageText } from './page-text.js';
import { hasCurrency, maskClocks, maskCounts, maskTimes, type VolatileKind } from './volatile-parts.js';

/** The diff library loads only when two texts differ. */
let diffLibrary: typeof import('diff') | undefined;
const diffModule = () => (diffLibrary ??= createRequire(import.meta.url)('diff') as typeof import('diff'));

export type { VolatileKind } from './volatile-parts.js';

/** A difference that does not count, as a user is shown it. */
export type NoisePart = PageNoise['parts'][number];

export interface Comparison {
  /** A reader would see something new. */
  changed: boolean;
  /** The texts differ, but only in volatile parts: which, and why they do not count. */
  noise?: { reason: string; parts: NoisePart[] };
}

/** Lines of a page as a reader sees them, and the text they were read from. */
interface ReaderLines {
  headings: string[];
  body: string[];
  /** The same lines before asset addresses were reduced: what the user is shown. */
  shown: string[];
}

const collapse = (line: string) => line.replace(/\s+/g, ' ').trim();

/** A query value that is a token: long letters-and-digits, a long hex or digit run (a timestamp, a session id). */
const isToken = (value: string) =>
  (value.length >= 12 && /^[\w-]+$/.test(value) && /\d/.test(value) && /[a-z]/i.test(value)) || /^\d{9,}$/.test(value) || /^[0-9a-f]{16,}$/i.test(value);

/** A part of a file name that is a content hash or a build id (`app.3f9a1c2b.jpg`, `photo-v1699999999.png`). */
const HASHED_NAME_PART = /(?<=[./_-])(?=[0-9a-z]*\d)(?=[0-9a-z]*[a-z])[0-9a-z]{8,64}(?=[./_-])|(?<=[./_-])v?\d{9,13}(?=[./_-])/gi;

/** An image's address as what identifies the image: its origin and path, any hash in its file name masked. */
function reducedImageAddress(address: string): string {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return address.replace(/[?#].*$/, '');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return address.slice(0, 200);
  const path = url.pathname.split('/').map((segment) => (/^v?\d{9,13}$/.test(segment) ? '' : segment.replace(HASHED_NAME_PART, ''))).join('/');
  return `${url.host}${path}`;
}

/** A link's address with its token-shaped query values masked and tracking parameters dropped. */
function reducedLinkAddress(address: string): string {
  const query = address.indexOf('?');
  if (query === -1) return address;
  const end = address.indexOf('#', query);
  const search = address.slice(query + 1, end === -1 ? undefined : end);
  const kept = search.split('&').filter((pair) => pair && !/^utm_/i.test(pair)).map((pair) => {
    const [name, value = ''] = pair.split('=', 2) as [string, string?];
    return isToken(value) ? `${name}=*` : pair;
  });
  return `${address.slice(0, query)}${kept.length > 0 ? `?${kept.join('&')}` : ''}`;
}

/** Markdown images and links, bounded so that a line of brackets is read in linear time. */
const IMAGE = /!\[((?:[^\]\\\n]|\\.){0,2000})\]\(\s*<?([^()\s<>]{1,4000})>?((?:\s+"[^"\n]{0,2000}")?)\s*\)/g;
const LINK = /(?<!!)\]\(\s*<?([^()\s<>]{1,4000})>?/g;

function readerLine(line: string): string {
  return line
    .replace(IMAGE, (_, alt: string, address: string, title: string) => `![${alt}](${reducedImageAddress(address)}${title})`)
    .replace(LINK, (_, address: string) => `](${reducedLinkAddress(address)}`);
}

function readerLines(text: string, withHeadings: boolean): ReaderLines {
  const { headings, body } = splitPageText(text);
  const shown = body.split('\n').map(collapse).filter(Boolean);
  return {
    headings: withHeadings && headings ? Object.entries(headings).map(([name, value]) => `${name}: ${collapse(value)}`) : [],
    body: shown.map(readerLine),
    shown,
  };
}

const SENTENCE_END = /[.!?。！？؟।…]["'”’»)\]]*$/u;
const words = (text: string) => text.split(' ').filter((word) => /\p{L}/u.test(word)).length;
/** The words of a markdown line, without link and image addresses and markup. */
const visibleText = (line: string) => collapse(line.replace(/!?\[((?:[^\]\\]|\\.)*)\]\([^)]*\)/g, '$1').replace(/[*_`>#|]+/g, ' ').replace(/^\s*(?:[-+]|\d+\.)\s+/, ''));

/** A line of prose: a sentence or more. Numbers in prose are the content, never a counter. */
function isProse(line: string): boolean {
  const text = visibleText(line);
  if (text.length >= 120) return true;
  // Scripts without spaces between words: a sentence of a few characters is prose.
  const spacedWords = words(text);
  return SENTENCE_END.test(text) && (spacedWords >= 6 || (spacedWords <= 2 && text.length >= 24));
}

const isHeading = (line: string) => /^#{1,6}\s/.test(line);
const isTableRow = (line: string) => line.startsWith('|');
const isListItem = (line: string) => /^(?:[-+*]|\d+\.)\s/.test(line);

/**
 * Where a line stands: next to the headline (before the first paragraph of prose, near the
 * top), right after the last paragraph (up to three lines, before any heading), or elsewhere.
 */
function zones(lines: readonly string[]): ('head' | 'tail' | undefined)[] {
  const prose = lines.map(isProse);
  const first = prose.indexOf(true);
  const last = prose.lastIndexOf(true);
  const zone: ('head' | 'tail' | undefined)[] = lines.map(() => undefined);
  if (first === -1) return zone;
  for (let i = 0; i < Math.min(first, 10); i++) zone[i] = 'head';
  for (let i = last + 1; i < Math.min(lines.length, last + 4); i++) {
    if (isHeading(lines[i]!)) break;
    zone[i] = 'tail';
  }
  return zone;
}

/** How two lines that stand for each other differ, when only by a volatile part; undefined when they differ in content. */
function volatileDifference(before: string, after: string, zoneBefore: string | undefined, zoneAfter: string | undefined, language: string | undefined): VolatileKind | undefined {
  if (isHeading(before) || isHeading(after)) return undefined;
  if (isProse(before) || isProse(after)) return undefined;
  if (maskClocks(before) === maskClocks(after)) return 'clock';
  if (maskTimes(before, language) === maskTimes(after, language)) return 'relative time';
  // Numbers and dates count as volatile only on the short lines around the article, never in a table or beside a price.
  if (!zoneBefore || !zoneAfter || isTableRow(before) || isTableRow(after) || hasCurrency(before) || hasCurrency(after)) return undefined;
  const countsBefore = maskCounts(before, language);
  if (countsBefore !== maskCounts(after, language)) return undefined;
  // A list after the article is more likely its last items than a counter, unless it is a word or two.
  if (zoneBefore === 'tail' && (isListItem(before) || isListItem(after)) && words(visibleText(countsBefore)) > 2) return undefined;
  return words(visibleText(countsBefore)) <= 6 ? 'counter' : undefined;
}

/** Runs of lines that differ: removed from the previous text, added in the current one, with their positions. */
interface Hunk {
  removed: number[];
  added: number[];
}

function hunksOf(before: readonly string[], after: readonly string[]): Hunk[] {
  const { diffArrays } = diffModule();
  const hunks: Hunk[] = [];
  let at = { before: 0, after: 0 };
  let open: Hunk | undefined;
  for (const part of diffArrays(before as string[], after as string[])) {
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
  const before = readerLines(previous, withHeadings);
  const after = readerLines(current, withHeadings);
  const beforeAll = [...before.headings, ...before.body];
  const afterAll = [...after.headings, ...after.body];
  if (beforeAll.length === afterAll.length && beforeAll.every((line, i) => line === afterAll[i])) {
    if (before.shown.length === after.shown.length && before.shown.every((line, i) => line === after.shown[i])) return { changed: false };
    const parts = before.shown.flatMap((line, i): NoisePart[] => (line === after.shown[i] ? [] : [{ kind: line.includes('![') ? 'asset address' : 'link token', before: line, after: after.shown[i]! }]));
    return noiseOf(parts);
  }
  if (before.headings.join('\n') !== after.headings.join('\n')) return { changed: true };
  const zoneBefore = zones(before.body);
  const zoneAfter = zones(after.body);
  const parts: NoisePart[] = [];
  for (const hunk of hunksOf(before.body, after.body)) {
    if (hunk.removed.length !== hunk.added.length) return { changed: true };
    for (let i = 0; i < hunk.removed.length; i++) {
      const was = hunk.removed[i]!;
      const now = hunk.added[i]!;
      const kind = volatileDifference(before.body[was]!, after.body[now]!, zoneBefore[was], zoneAfter[now], language);
      if (!kind) return { changed: true };
      parts.push({ kind, before: before.shown[was]!, after: after.shown[now]! });
    }
  }
  return parts.length > 0 ? noiseOf(parts) : { changed: false };
}
