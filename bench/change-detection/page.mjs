// One page made ready for mutation: parsed, its charset declared as UTF-8 (it is served so),
// its language, <title>, headline, and the article's blocks: the paragraphs and text blocks
// whose text is in the expected content, with the parts of their text nodes that edits may touch.
import {
  all,
  ancestors,
  attr,
  commonAncestor,
  elements,
  first,
  isElement,
  isText,
  newElement,
  norm,
  parse,
  prependTo,
  SILENT,
  textNodes,
  textOf,
} from './dom.mjs';

/** Block elements that are read as one paragraph when they hold text of their own. */
const TEXT_BLOCKS = new Set(['div', 'td', 'section', 'article', 'font', 'center', 'span', 'blockquote', 'dd', 'main']);
/** A text block with one of these inside is not a leaf paragraph. */
const NESTED_BLOCKS = new Set([
  'p',
  'div',
  'table',
  'ul',
  'ol',
  'dl',
  'section',
  'article',
  'blockquote',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'li',
  'pre',
  'form',
  'header',
  'footer',
  'nav',
  'aside',
  'figure',
]);
/** Parents that cannot take a block between their children (insert after the parent instead). */
const NOT_FLOW = new Set([
  'ul',
  'ol',
  'dl',
  'li',
  'dt',
  'dd',
  'table',
  'tbody',
  'thead',
  'tfoot',
  'tr',
  'td',
  'th',
  'caption',
  'select',
  'p',
  'span',
  'a',
  'font',
  'b',
  'i',
  'em',
  'strong',
  'u',
  'small',
  'label',
  'legend',
  'summary',
  'button',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'picture',
  'figure',
  'figcaption',
  'blockquote',
  'pre',
  'code',
  'time',
  'address',
]);

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
/** A word an edit may take or replace: letters only, 3 or more (2 in scripts written without spaces). */
export const isWord = (text) => /^\p{L}[\p{L}\p{M}]*$/u.test(text) && (text.length >= 3 || (CJK.test(text) && text.length >= 2));

const hidden = (el) => {
  const style = (attr(el, 'style') ?? '').replace(/\s/g, '').toLowerCase();
  return attr(el, 'hidden') !== undefined || attr(el, 'aria-hidden') === 'true' || style.includes('display:none') || style.includes('visibility:hidden');
};
const unreadable = (node) => ancestors(node).some((a) => isElement(a) && (SILENT.has(a.name) || hidden(a)));

/** A BCP 47 tag Intl accepts, from <html lang> or the page's metadata; else en. */
export function languageOf(htmlElement, metadataLang) {
  for (const candidate of [attr(htmlElement, 'lang'), attr(htmlElement, 'xml:lang'), metadataLang]) {
    if (!candidate) continue;
    try {
      const [tag] = Intl.getCanonicalLocales(candidate.trim().replace(/_/g, '-'));
      if (tag && new Intl.NumberFormat(tag).resolvedOptions().locale) return tag;
    } catch {
      // not a tag Intl knows
    }
  }
  return 'en';
}

/** Whitespace collapsed and trimmed, with the index in the raw text of each character kept. */
export function normalizedWithMap(raw) {
  const out = [];
  const map = [];
  let space = false;
  for (let i = 0; i < raw.length; i++) {
    if (/\s/.test(raw[i])) {
      if (out.length && !space) {
        out.push(' ');
        map.push(i);
      }
      space = true;
    } else {
      out.push(raw[i]);
      map.push(i);
      space = false;
    }
  }
  if (out.at(-1) === ' ') {
    out.pop();
    map.pop();
  }
  return { text: out.join(''), map };
}

/** Where in a text node edits may go (raw index ranges), by the expected content. */
export function editableSpans(node, expected) {
  const { text, map } = normalizedWithMap(node.data);
  return expected.spans(text).map(([a, b]) => [map[a], map[b - 1] + 1]);
}

export function preparePage(page) {
  const doc = parse(page.html);
  const htmlElement = first(doc, 'html');
  let head = first(doc, 'head');
  if (!head) {
    head = newElement('head');
    prependTo(htmlElement ?? doc, [head]);
  }
  const body = first(doc, 'body') ?? htmlElement ?? doc;
  // Served as UTF-8, so declared as UTF-8.
  let declared = false;
  for (const meta of all(doc, 'meta')) {
    if (attr(meta, 'charset') !== undefined) {
      meta.attribs.charset = 'utf-8';
      declared = true;
    } else if ((attr(meta, 'http-equiv') ?? '').toLowerCase() === 'content-type') {
      meta.attribs.content = 'text/html; charset=utf-8';
      declared = true;
    }
  }
  if (!declared) prependTo(head, [newElement('meta', { charset: 'utf-8' })]);
  const lang = languageOf(htmlElement, page.metadataLang);
  const title = first(head, 'title') ?? first(doc, 'title');
  const titleText = title ? norm(textOf(title)) : '';

  const blocks = [];
  const walk = (n) => {
    for (const child of n.children ?? []) {
      if (!isElement(child)) continue;
      if (SILENT.has(child.name) || hidden(child)) continue;
      if (isArticleBlock(child, page.expected)) blocks.push(child);
      else walk(child);
    }
  };
  walk(body);
  if (page.expected.pick) {
    const kept = page.expected.pick(blocks.map((b) => norm(textOf(b))));
    blocks.splice(0, blocks.length, ...blocks.filter((_, i) => kept.has(i)));
  }
  const editableNodes = [];
  for (const block of blocks) {
    for (const node of textNodes(block)) {
      if (unreadable(node)) continue;
      const spans = editableSpans(node, page.expected);
      if (spans.length) editableNodes.push(node);
    }
  }
  const headline = findHeadline(body, titleText, blocks[0]);
  let container = commonAncestor(blocks);
  if (container && blocks.includes(container)) container = container.parent;
  return { doc, head, body, htmlElement, lang, title, titleText, blocks, editableNodes, headline, container };
}

function isArticleBlock(el, expected) {
  if (el.name === 'p') {
    if (el.children.some((c) => isElement(c) && NESTED_BLOCKS.has(c.name))) return false;
  } else if (TEXT_BLOCKS.has(el.name)) {
    const ownText = el.children
      .filter(isText)
      .map((t) => t.data)
      .join('');
    if (norm(ownText).length < 20) return false;
    if (elements(el).some((d) => NESTED_BLOCKS.has(d.name))) return false;
  } else return false;
  return expected.block(norm(textOf(el)));
}

/** The <h1> of the article: the one whose words are most in the title (at least half), nearest before the article. */
function findHeadline(body, titleText, firstBlock) {
  const words = (text) =>
    norm(text)
      .toLowerCase()
      .split(/[\s\p{P}]+/u)
      .filter(Boolean);
  const titleWords = new Set(words(titleText));
  let best = null;
  let bestScore = 0;
  for (const h1 of all(body, 'h1')) {
    if (unreadable(h1)) continue;
    const own = words(textOf(h1));
    if (own.length === 0 || !textNodes(h1).some((t) => t.data.trim())) continue;
    const score = own.filter((w) => titleWords.has(w)).length / own.length;
    if (score >= 0.5 && score >= bestScore) {
      best = h1;
      bestScore = score;
    }
  }
  // A headline after the article's first block is not its headline.
  if (best && firstBlock && !precedes(best, firstBlock)) return null;
  return best;
}

/** Whether `a` comes before `b` in document order (false when one holds the other). */
export function precedes(a, b) {
  const chainA = [a, ...ancestors(a)];
  const chainB = [b, ...ancestors(b)];
  const common = chainA.find((n) => chainB.includes(n));
  const childA = chainA[chainA.indexOf(common) - 1];
  const childB = chainB[chainB.indexOf(common) - 1];
  if (!childA || !childB) return false;
  return common.children.indexOf(childA) < common.children.indexOf(childB);
}

/** The node to insert a block after or before, next to `node`: `node`, or its ancestor that sits in flow content. */
export function flowAnchor(node) {
  let at = node;
  while (at.parent && isElement(at.parent) && NOT_FLOW.has(at.parent.name)) at = at.parent;
  return at;
}

/** The sentences of the article (for added paragraphs and sentences), whitespace-normalised. */
export function sentencesOf(texts, lang) {
  const segmenter = new Intl.Segmenter(lang, { granularity: 'sentence' });
  const words = new Intl.Segmenter(lang, { granularity: 'word' });
  const sentences = [];
  texts.forEach((text, block) => {
    for (const { segment } of segmenter.segment(text)) {
      const sentence = segment.trim();
      const count = [...words.segment(sentence)].filter((s) => s.isWordLike).length;
      if (sentence.length >= 30 && sentence.length <= 320 && count >= 5 && /[.!?。！？]$/u.test(sentence)) sentences.push({ sentence, block });
    }
  });
  return sentences;
}

/** The words of the article, for replacements. */
export function wordsOf(texts, lang) {
  const segmenter = new Intl.Segmenter(lang, { granularity: 'word' });
  const found = new Set();
  for (const text of texts) for (const { segment, isWordLike } of segmenter.segment(text)) if (isWordLike && isWord(segment)) found.add(segment);
  return [...found];
}
