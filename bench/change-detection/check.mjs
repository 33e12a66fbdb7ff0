// The self-check of the versions: each version is read back with another parser (cheerio's
// parse5, as a browser builds the tree) into what a reader sees: the title, the text of the
// body (without scripts, styles, hidden elements), the same text without the volatile
// elements the noise kinds insert, the <h1> and the links' targets. Every step must change the
// HTML; noise must leave the reader's text (outside its own volatile element) alone, and
// invisible noise all of it; an edit must change what it says it changes, and nothing else.
import * as cheerio from 'cheerio';
import { VOLATILE_CLASSES } from './noise.mjs';

const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'math', 'iframe', 'object', 'select', 'textarea']);
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'td',
  'th',
  'tr',
  'ul',
]);
const VOLATILE = new Set(Object.values(VOLATILE_CLASSES).flat());
const norm = (text) => text.replace(/\s+/g, ' ').trim();
const hidden = (el) => el.attribs.hidden !== undefined || /display\s*:\s*none/i.test(el.attribs.style ?? '');
const volatile = (el) => (el.attribs.class ?? '').split(/\s+/).some((c) => VOLATILE.has(c));

export function readerView(html) {
  const $ = cheerio.load(html);
  const full = [];
  const steady = [];
  const walk = (node, inVolatile) => {
    if (node.type === 'text') {
      full.push(node.data);
      if (!inVolatile) steady.push(node.data);
      return;
    }
    if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style' && node.type !== 'root') return;
    if (node.name && (SKIP.has(node.name) || hidden(node))) return;
    const isVolatile = inVolatile || (node.attribs ? volatile(node) : false);
    const block = BLOCKS.has(node.name);
    if (block) full.push(' '), steady.push(' ');
    for (const child of node.children ?? []) walk(child, isVolatile);
    if (block) full.push(' '), steady.push(' ');
  };
  const body = $('body')[0];
  if (body) walk(body, false);
  return {
    title: norm($('title').first().text()),
    text: norm(full.join('')),
    steady: norm(steady.join('')),
    h1: $('h1')
      .map((_, el) => norm($(el).text()))
      .get()
      .join(' | '),
    links: $('body a[href]')
      .map((_, el) => $(el).attr('href'))
      .get()
      .join('\n'),
  };
}

/** Whether `after` is `before` with one occurrence of `from` replaced by `to`. */
function oneOccurrence(before, after, from, to) {
  for (let at = before.indexOf(from); from && at >= 0; at = before.indexOf(from, at + 1)) {
    if (before.slice(0, at) + to + before.slice(at + from.length) === after) return true;
  }
  return false;
}

/** What is wrong with step `step` (from `before` to `after`), or an empty list. */
export function checkStep(step, before, after, beforeHtml, afterHtml) {
  const problems = [];
  if (beforeHtml === afterHtml) problems.push('the HTML did not change');
  if (step.type === 'noise') {
    if (before.steady !== after.steady) problems.push('noise changed the text outside its volatile element');
    if (before.title !== after.title) problems.push('noise changed the title');
    if (!step.visible && before.text !== after.text) problems.push('invisible noise changed the visible text');
    return problems;
  }
  switch (step.kind) {
    case 'link-target':
      if (before.links === after.links) problems.push('no link target changed');
      if (before.steady !== after.steady) problems.push('the text changed');
      break;
    case 'title-only':
      if (before.title === after.title) problems.push('the title did not change');
      // A <title> after stray text before <html> ends up in the body, and reads there.
      if (before.steady !== after.steady && !oneOccurrence(before.steady, after.steady, before.title, after.title)) problems.push('the body text changed');
      break;
    case 'headline':
      if (before.h1 === after.h1) problems.push('the h1 did not change');
      if (before.title === after.title && before.title) problems.push('the title did not change');
      break;
    default:
      if (before.steady === after.steady) problems.push('the text did not change');
      if (before.title !== after.title) problems.push('the title changed');
  }
  return problems;
}

/** Whether v0 read back still shows the article: most of its blocks' text in the body text. */
export function showsArticle(view, blockTexts) {
  const found = blockTexts.filter((text) => view.steady.includes(text)).length;
  return found >= Math.max(1, Math.ceil(0.8 * blockTexts.length));
}
