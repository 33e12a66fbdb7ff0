/**
 * Volatile parts of a page, recognised by their shape: relative times ("3 hours ago", "vor 3
 * Stunden", "3小时前", in the page's language as Unicode's CLDR data in Node.js writes them),
 * clocks (a time of day with seconds, a timestamp), and counters and dates on the short lines
 * that stand next to the headline or right after the last paragraph ("1,234 views", "12
 * comments", "Updated 1 December 2026"). No list of words of any language is kept here: the
 * words of relative times and of month and day names come from the runtime's locale data.
 *
 * Every pattern is built from literals and bounded character classes, so matching a line takes
 * time linear in its length, whatever the page holds.
 */

/** What kind of volatile part a changed line differs by. */
export type VolatileKind = 'relative time' | 'clock' | 'counter';

const UNITS: Intl.RelativeTimeFormatUnit[] = ['second', 'minute', 'hour', 'day', 'week', 'month', 'year'];
/** Counts among which every plural form of the languages CLDR knows has one (one, two, few, many, other). */
const COUNTS = [0, 1, 2, 3, 5, 11, 21, 22, 25, 100, 101];
const DIGITS = '\\p{Nd}{1,6}';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Whitespace of any kind, as the page text is compared: CLDR writes no-break spaces. */
const spaced = (literal: string) => escapeRegExp(literal.replace(/\s+/g, ' ')).replace(/ /g, '\\s');
const letters = (text: string) => (text.match(/\p{L}/gu) ?? []).length;

const relativeTimes = new Map<string, RegExp | null>();

/** Languages whose patterns are kept: a page may say any lang=, and each new one is a new entry. */
const CACHED_LANGUAGES = 32;

/** The languages CLDR is asked about: the page's own (its base language: regions write relative times alike) and English. */
const supportedLanguages = new Map<string, string[]>();

function languagesOf(language: string | undefined): string[] {
  const base = language?.split(/[-_]/)[0]?.toLowerCase() ?? '';
  const known = supportedLanguages.get(base);
  if (known) return known;
  if (supportedLanguages.size >= CACHED_LANGUAGES) supportedLanguages.clear();
  const tags = supportedOf(base);
  supportedLanguages.set(base, tags);
  return tags;
}

function supportedOf(base: string): string[] {
  const tags = new Set<string>();
  for (const tag of [base, 'en']) {
    if (!tag) continue;
    try {
      // A well-formed tag (supportedLocalesOf costs milliseconds); one without data falls back to English, harmlessly.
      const [canonical] = Intl.getCanonicalLocales(tag);
      if (canonical) tags.add(canonical);
    } catch {
      // Not a language tag (a page may say anything in lang=): English alone then.
    }
  }
  return [...tags];
}

/** A bounded cache: when full, it starts over. */
function remembered(cache: Map<string, RegExp | null>, key: string, build: () => RegExp | null): RegExp | null {
  const found = cache.get(key);
  if (found !== undefined) return found;
  if (cache.size >= CACHED_LANGUAGES) cache.clear();
  const built = build();
  cache.set(key, built);
  return built;
}

/** A regular expression of every relative time CLDR writes in these languages, past and future, in every style. */
function relativeTimePattern(language: string | undefined): RegExp | null {
  const tags = languagesOf(language);
  return remembered(relativeTimes, tags.join(','), () => relativeTimesOf(tags));
}

const relativeTimeAlternatives = new Map<string, string[]>();

/** The pattern of one language's relative times, as alternatives: built once per language, English for every page. */
function relativeTimesIn(tag: string): string[] {
  const known = relativeTimeAlternatives.get(tag);
  if (known) return known;
  const alternatives = new Set<string>();
  // One count of each plural form of the language ("1 hour", "2 hours"; Russian's 1, 2, 5).
  const plural = new Intl.PluralRules(tag);
  const counts = [...new Map(COUNTS.map((count) => [plural.select(count), count])).values()];
  // A formatter costs a few milliseconds to build (its locale's data): one per style, and one for the words.
  for (const style of ['long', 'short', 'narrow'] as const) {
    const numeric = new Intl.RelativeTimeFormat(tag, { style, numeric: 'always' });
    for (const unit of UNITS) {
      for (const count of counts) {
        for (const signed of [-count, count]) {
          const parts = numeric.formatToParts(signed, unit);
          const at = parts.findIndex((part) => part.type === 'integer');
          if (at === -1) continue;
          const before = parts
            .slice(0, at)
            .map((part) => part.value)
            .join('');
          const after = parts
            .slice(at)
            .filter((part) => part.type === 'literal')
            .map((part) => part.value)
            .join('');
          // "-3 h" or "+3 h": too little of it is words to tell it from anything else.
          if (letters(before + after) < 2) continue;
          alternatives.add(`${spaced(before.toLowerCase())}${DIGITS}${spaced(after.toLowerCase())}`);
        }
      }
    }
  }
  // Yesterday, today, now, last week: the words CLDR writes without a number.
  const words = new Intl.RelativeTimeFormat(tag, { numeric: 'auto' });
  for (const unit of UNITS) {
    for (const offset of [-1, 0, 1]) {
      const text = words.format(offset, unit);
      if (!/\p{Nd}/u.test(text) && letters(text) >= 2) alternatives.add(spaced(text.toLowerCase()));
    }
  }
  const list = [...alternatives];
  if (relativeTimeAlternatives.size >= CACHED_LANGUAGES) relativeTimeAlternatives.clear();
  relativeTimeAlternatives.set(tag, list);
  return list;
}

function relativeTimesOf(tags: readonly string[]): RegExp | null {
  const alternatives = new Set(tags.flatMap(relativeTimesIn));
  // Longest first, so that "3 hours ago" is masked whole rather than as "3 hours".
  const sorted = [...alternatives].sort((a, b) => b.length - a.length);
  // Matched against the lowercased line: a case-insensitive pattern this long takes V8 milliseconds to compile.
  return sorted.length > 0 ? new RegExp(`(?<![\\p{L}\\p{N}])(?:${sorted.join('|')})(?![\\p{L}])`, 'gu') : null;
}

/** A time of day with seconds, or a timestamp: what a page's render clock prints. */
const CLOCK =
  /\p{Nd}{4}-\p{Nd}{2}-\p{Nd}{2}[T ]\p{Nd}{2}:\p{Nd}{2}(?::\p{Nd}{2}(?:[.,]\p{Nd}{1,9})?)?(?:Z|[+-]\p{Nd}{2}:?\p{Nd}{2})?|(?<!\p{Nd})\p{Nd}{1,2}:\p{Nd}{2}:\p{Nd}{2}(?:[.,]\p{Nd}{1,9})?(?!\p{Nd})/gu;

const monthsAndDays = new Map<string, RegExp | null>();

/** Month and weekday names of these languages, long and short, as CLDR writes them. */
function calendarWordPattern(language: string | undefined): RegExp | null {
  const tags = languagesOf(language);
  return remembered(monthsAndDays, tags.join(','), () => calendarWordsOf(tags));
}

function calendarWordsOf(tags: readonly string[]): RegExp | null {
  const names = new Set<string>();
  for (const tag of tags) {
    for (const width of ['long', 'short'] as const) {
      const months = new Intl.DateTimeFormat(tag, { month: width, timeZone: 'UTC' });
      const days = new Intl.DateTimeFormat(tag, { weekday: width, timeZone: 'UTC' });
      for (let month = 0; month < 12; month++) names.add(months.format(Date.UTC(2026, month, 15)).toLowerCase());
      for (let day = 0; day < 7; day++) names.add(days.format(Date.UTC(2026, 10, 1 + day)).toLowerCase());
    }
  }
  const words = [...names]
    .filter((name) => letters(name) >= 3 && !/\p{Nd}/u.test(name))
    .sort((a, b) => b.length - a.length)
    .map(spaced);
  return words.length > 0 ? new RegExp(`(?<![\\p{L}])(?:${words.join('|')})(?![\\p{L}])`, 'gu') : null;
}

/** A number (grouped, with decimals) and the word that follows it: "1,234 views", "3 hours", "1.2k". */
const COUNT_AND_WORD = /\p{Nd}{1,12}(?:[.,'\u00a0\u202f ]\p{Nd}{3}){0,6}(?:[.,]\p{Nd}{1,6})?(?: ?\p{L}{1,40})?/gu;

const MASK = '\u29bf';

/** The line with its clocks (times of day with seconds, timestamps) masked. */
export const maskClocks = (line: string) => line.replace(CLOCK, MASK);

/** The line with its relative times and clocks masked, lowercased: only masked lines are compared. */
export function maskTimes(line: string, language: string | undefined): string {
  const relative = relativeTimePattern(language);
  return maskClocks(relative ? line.toLowerCase().replace(relative, MASK) : line);
}

/** The line with every number (and the word after it), month and weekday name masked (lowercased, as maskTimes leaves it). */
export function maskCounts(line: string, language: string | undefined): string {
  const calendar = calendarWordPattern(language);
  const masked = maskTimes(line, language);
  return (calendar ? masked.replace(calendar, MASK) : masked).replace(COUNT_AND_WORD, MASK);
}

/** A currency sign: an amount next to it is a price, which a reader wants to know changed. */
export const hasCurrency = (line: string) => /\p{Sc}/u.test(line);
