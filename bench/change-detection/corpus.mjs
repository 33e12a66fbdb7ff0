// The pages of the change-detection bench: Readability's test pages that have expected.html, and
// a fixed sample of trafilatura's evaluation set; each page decoded to a string, with what its
// expected content is (the text of expected.html, or the `with` and `without` segments), so
// that edits can be kept to the article's own prose.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import sniffHtmlEncoding from 'html-encoding-sniffer';
import iconv from 'iconv-lite';
import { norm, parse, textOf } from './dom.mjs';

/** Length of text for thresholds, a character of a script written without spaces counting as three. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/gu;
export const weight = (text) => text.length + 2 * (text.match(CJK)?.length ?? 0);

export const sha1 = (text) => createHash('sha1').update(text).digest('hex');
/** Half A (tuning) or B (held out), from the last bit of the SHA-1 of the page's id. */
export const halfOf = (id) => (parseInt(sha1(id).slice(-1), 16) % 2 === 0 ? 'A' : 'B');

/** Bytes -> text: BOM or <meta charset> (the standard's prescan), else UTF-8 when valid, else windows-1252. */
export function decodeHtml(bytes) {
  const label = sniffHtmlEncoding(bytes, { defaultEncoding: isUtf8(bytes) ? 'UTF-8' : 'windows-1252' });
  const text = iconv.decode(bytes, iconv.encodingExists(label) ? label : 'utf-8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The pages to use: every Readability page with expected.html (at most 55 % of `count`), the
 * rest from trafilatura's set in the order of the SHA-1 of their file names (a fixed sample,
 * the same for every seed). Returns the candidates in that order; the caller takes them until
 * it has enough usable ones.
 */
export function candidates(corpus, count) {
  const readabilityDir = join(corpus, 'pages');
  const trafilaturaDir = join(corpus, 'trafilatura-eval');
  for (const dir of [readabilityDir, join(trafilaturaDir, 'pages')]) {
    if (!existsSync(dir)) throw new Error(`no ${dir}: give --corpus DIR (the directory with pages/ and trafilatura-eval/)`);
  }
  const readability = readdirSync(readabilityDir)
    .filter((name) => existsSync(join(readabilityDir, name, 'expected.html')) && existsSync(join(readabilityDir, name, 'source.html')))
    .sort();
  const expected = JSON.parse(readFileSync(join(trafilaturaDir, 'expected.json'), 'utf8'));
  const trafilatura = Object.keys(expected)
    .filter((file) => expected[file].with?.length && existsSync(join(trafilaturaDir, 'pages', file)))
    .sort((a, b) => (sha1(`sample:${a}`) < sha1(`sample:${b}`) ? -1 : 1));
  const readabilityWanted = Math.min(readability.length, Math.ceil(count * 0.55));
  return {
    readabilityWanted,
    trafilaturaWanted: count - readabilityWanted,
    readability: readability.map((name) => ({ id: `r-${name}`, set: 'readability', name, dir: join(readabilityDir, name) })),
    trafilatura: trafilatura.map((file) => ({
      id: `t-${file.replace(/\.html\.gz$/, '')}`,
      set: 'trafilatura',
      name: file,
      file: join(trafilaturaDir, 'pages', file),
      expected: expected[file],
    })),
  };
}

/** A candidate read: its HTML as a string, its language, and the test for expected content. */
export function loadPage(entry) {
  if (entry.set === 'readability') {
    // Readability's test pages are stored as UTF-8 whatever their <meta> says (qq's says gb2312).
    const html = readFileSync(join(entry.dir, 'source.html'), 'utf8');
    const metadataFile = join(entry.dir, 'expected-metadata.json');
    const metadata = existsSync(metadataFile) ? JSON.parse(readFileSync(metadataFile, 'utf8')) : {};
    const expectedText = norm(textOf(parse(readFileSync(join(entry.dir, 'expected.html'), 'utf8'))));
    return { ...entry, html, metadataLang: metadata.lang ?? null, expected: readabilityMatcher(expectedText) };
  }
  const html = decodeHtml(gunzipSync(readFileSync(entry.file)));
  return {
    ...entry,
    html,
    metadataLang: null,
    expected: trafilaturaMatcher(entry.expected.with.map(norm).filter(Boolean), (entry.expected.without ?? []).map(norm).filter(Boolean)),
    url: entry.expected.url,
  };
}

/**
 * Expected content as the text of expected.html. `spans(text)` answers where in a piece of text
 * (whitespace-normalised) edits may go: the whole of it when it is part of the expected text.
 * `block(text)` whether a whole block belongs to it.
 */
function readabilityMatcher(expectedText) {
  return {
    kind: 'readability',
    spans: (text) => (weight(text) >= 20 && expectedText.includes(text) ? [[0, text.length]] : []),
    block: (text) => weight(text) >= 40 && expectedText.includes(text),
    item: (text) => weight(text) >= 15 && expectedText.includes(text),
  };
}

/**
 * Expected content as trafilatura's segments (a few short pieces of the main content, often the
 * start of a paragraph): a block is article prose when it contains a `with` segment or lies
 * inside one, and holds no `without` segment (the first such block for each segment). Any
 * text of such a block may be edited.
 */
function trafilaturaMatcher(withSegments, withoutSegments) {
  const clean = (text) => !withoutSegments.some((segment) => segment.length >= 10 && text.includes(segment));
  const segments = withSegments.filter((segment) => segment.length >= 12);
  const inContent = (text, min) => weight(text) >= min && clean(text) && segments.some((segment) => text.includes(segment) || segment.includes(text));
  return {
    kind: 'trafilatura',
    spans: (text) => (weight(text) >= 12 && clean(text) ? [[0, text.length]] : []),
    block: (text) => inContent(text, 30),
    // The segments are short and may recur further down (quoted in a comment, a teaser): each
    // marks the first block, in document order, that holds it or lies inside it.
    pick(texts) {
      const kept = new Set();
      for (const segment of segments) {
        const i = texts.findIndex((text) => text.includes(segment) || segment.includes(text));
        if (i >= 0) kept.add(i);
      }
      return kept;
    },
    item: (text) => inContent(text, 15),
  };
}
