/**
 * The words of class and id names that say what a block is, which every step of the
 * main-content finder reads: page chrome, comments, clutter, the content itself, and the
 * article's own asides. Names are split on spaces, dashes, underscores, digits and camelCase;
 * a word matches a stem exactly, or, for a stem marked `*` (long enough to be unambiguous),
 * starts with it (`relatedposts`, `sharedaddy`, `commentlist`).
 */

export interface Stems {
  exact: Set<string>;
  prefixes: string[];
}

function stems(list: string): Stems {
  const words = list.split(/\s+/);
  return { exact: new Set(words.filter((w) => !w.endsWith('*'))), prefixes: words.filter((w) => w.endsWith('*')).map((w) => w.slice(0, -1)) };
}

export const CHROME_STEMS = stems('sidebar menu menus navbar nav navigation masthead toolbar footer banner breadcrumb* pagination* pager skip');
export const COMMENT_STEMS = stems('comment* disqus* respond responses');
export const CLUTTER_STEMS = stems(
  'cookie* consent* gdpr share* social* newsletter* subscribe* subscription* related* recommend* promo* advert* ad ads sponsor* popup* modal overlay signup paywall* outbrain* taboola* trending* popular* shariff* appstore* flyout*',
);
/**
 * Clutter that lies over the page (dialogs, consent boxes): never a layout's wrapper. A
 * paywall's name is not here: `content-behind-paywall` holds the article.
 */
export const OVERLAY_STEMS = stems('cookie* consent* gdpr popup* modal overlay');
export const PAYWALL_STEMS = stems('paywall*');
/** Lists of other stories: however much prose their excerpts hold, never the article's own. */
export const RELATED_STEMS = stems('related* recommend*');
/**
 * Small blocks inside the article that are about it, not of it: photo credits, the author's
 * box and byline, dates and other post metadata, tags, ratings, disclaimers, disclosures,
 * affiliate notes, appendices with a suggested citation, notices, a reviewer's note, contact
 * boxes and appeals.
 * Captions themselves stay (a reader sees them under the picture); their credit line goes.
 */
export const CREDIT_STEMS = stems('credit* copyright* attribution');
export const ABOUT_STEMS = stems(
  'credit* copyright* author* autor* bio biography byline* saboxplugin* meta metadata postmeta* postmetadata metaline utility dateline date timestamp posted* published* updated tags taglist taglinks categories rating* ratings disclaimer disclosure* affiliate* appendix citation* notice reviewed contact* donation* donate* cta',
);
export const CONTENT_STEMS = stems('article* body content entry hentry main post text blog story prose');
/** Class words of a link drawn as a button: a call to act ("Subscribe now", "Print the recipe"). */
export const BUTTON_STEMS = stems('button* btn*');
/** Words that start like a flagged stem but name content. */
const NOT_FLAGGED = new Set(['commentary', 'shared', 'promoted']);

/** A generated name such as `e1ad` or `5ad3f0`: hexadecimal, with digits among the letters. */
const HASH = /^(?=[a-f]*\d)(?=\d*[a-f])[\da-f]{4,}$/i;
/**
 * A generated class name's hash (CSS modules, styled-components: `css-znm2ad`,
 * `button__lz3ad`): a digit followed by a letter in a token of four or more. Split at its
 * digits it would read as words (`ad`), which a rebuild of the site changes at random.
 */
const GENERATED = /^(?=[a-z\d]*\d[a-z])[a-z\d]{4,}$/i;

/** The words of class or id names, generated hashes left out. */
export function nameWords(names: string): string[] {
  const unhashed = /\d/.test(names)
    ? names
        .split(/[\s_-]+/)
        .filter((token) => !/\d/.test(token) || (!HASH.test(token) && !GENERATED.test(token)))
        .join(' ')
    : names;
  return unhashed
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
}

/** Pages of one site repeat their class names: split once per process (bounded). */
const wordsOfNames = new Map<string, string[]>();

/** `nameWords`, remembered. */
export function cachedNameWords(names: string): string[] {
  let words = wordsOfNames.get(names);
  if (!words) {
    words = nameWords(names);
    if (wordsOfNames.size >= 5000) wordsOfNames.clear();
    wordsOfNames.set(names, words);
  }
  return words;
}

export function matches(words: string[], set: Stems): boolean {
  return words.some((word) => !NOT_FLAGGED.has(word) && (set.exact.has(word) || set.prefixes.some((prefix) => word.startsWith(prefix))));
}
