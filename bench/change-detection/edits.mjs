// Edits: changes a reader sees as new. Each `apply(ctx)` makes one change in the article's own
// prose (paragraphs whose text is in the expected content), its headline or its title, and
// returns a short description, or null when the page has no place for it now.
import { all, ancestors, attr, insertAfter, isElement, newElement, newText, norm, remove, SILENT, textNodes, textOf } from './dom.mjs';
import { flowAnchor, isWord } from './page.mjs';

const attached = (ctx, node) => {
  let n = node;
  while (n.parent) n = n.parent;
  return n === ctx.doc;
};
const liveBlocks = (ctx) => ctx.blocks.filter((b) => attached(ctx, b));
const liveNodes = (ctx) => ctx.editableNodes.filter((n) => attached(ctx, n) && n.data.trim());
const short = (text, n = 70) => (text.length > n ? `${text.slice(0, n)}...` : text);

/** The words of a string, with where they are. */
function wordsIn(ctx, text) {
  return [...ctx.wordSegmenter.segment(text)].filter((s) => s.isWordLike && isWord(s.segment)).map((s) => ({ word: s.segment, index: s.index }));
}
const upper = (w) => w[0] !== w[0].toLowerCase();
/** A word of the page to put in place of `word`: a different one, with the same initial case when there is one. */
function replacementFor(ctx, word, avoid = '') {
  const avoidLower = avoid.toLowerCase();
  const pool = ctx.words.filter((w) => w.toLowerCase() !== word.toLowerCase() && !avoidLower.includes(w.toLowerCase()));
  const sameCase = pool.filter((w) => upper(w) === upper(word));
  const list = sameCase.length ? sameCase : pool;
  return list.length ? ctx.rng.pick(list) : null;
}
const splice = (text, index, length, insert) => text.slice(0, index) + insert + text.slice(index + length);

/** Replace the first whole word `word` of `text` with `replacement`; null when it has no such word. */
function replaceWord(ctx, text, word, replacement) {
  const found = wordsIn(ctx, text).find((w) => w.word === word);
  return found ? splice(text, found.index, word.length, replacement) : null;
}

function bumpNumber(ctx, token) {
  const parts = token.split(/([.,])/);
  if (parts.length === 1) {
    const n = Number(token);
    if (token.length === 4 && n >= 1900 && n <= 2099) return String(n + (ctx.rng.chance(0.5) ? 1 : -1));
    return String(n + ctx.rng.int(1, Math.max(1, Math.ceil(n * 0.3)))).padStart(token.length, '0');
  }
  const last = parts.at(-1);
  const size = 10 ** last.length;
  let value = (Number(last) + ctx.rng.int(1, 8)) % size;
  if (String(value).padStart(last.length, '0') === last) value = (value + 1) % size;
  parts[parts.length - 1] = String(value).padStart(last.length, '0');
  return parts.join('');
}

/** Blocks a new block can go after (not the last), most in the middle first. */
function middleBlocks(ctx) {
  const blocks = liveBlocks(ctx);
  const n = blocks.length;
  return blocks
    .map((block, i) => ({ block, i }))
    .filter(({ i }) => n < 2 || i < n - 1)
    .sort((a, b) => Math.abs(a.i - (n - 1) / 2) - Math.abs(b.i - (n - 1) / 2))
    .map(({ block }) => block);
}

export const EDITS = [
  {
    name: 'words',
    apply(ctx) {
      const nodes = ctx.rng.shuffle(liveNodes(ctx));
      for (const node of nodes) {
        const words = wordsIn(ctx, node.data);
        if (words.length < 3) continue;
        const count = words.length >= 6 && ctx.rng.chance(0.5) ? 2 : 1;
        const at = ctx.rng.int(0, words.length - count);
        const chosen = words.slice(at, at + count);
        const replacements = chosen.map((w) => replacementFor(ctx, w.word, node.data));
        if (replacements.some((r) => !r)) continue;
        const before = node.data;
        for (let i = chosen.length - 1; i >= 0; i--) node.data = splice(node.data, chosen[i].index, chosen[i].word.length, replacements[i]);
        return `"${chosen.map((w) => w.word).join(' ')}" -> "${replacements.join(' ')}" in "${short(norm(before))}"`;
      }
      return null;
    },
  },
  {
    name: 'number',
    apply(ctx) {
      const nodes = ctx.rng.shuffle(liveNodes(ctx));
      for (const node of nodes) {
        const numbers = [...node.data.matchAll(/\d+(?:[.,]\d+)*/g)];
        if (!numbers.length) continue;
        const match = ctx.rng.pick(numbers);
        const changed = bumpNumber(ctx, match[0]);
        const before = node.data;
        node.data = splice(node.data, match.index, match[0].length, changed);
        return `"${match[0]}" -> "${changed}" in "${short(norm(before))}"`;
      }
      // No number in the article's prose: one goes into a sentence, before a word.
      for (const node of nodes) {
        const words = wordsIn(ctx, node.data);
        if (words.length < 4) continue;
        const word = words[ctx.rng.int(1, words.length - 2)];
        const inserted = String(ctx.rng.int(2, 99));
        const before = node.data;
        node.data = splice(node.data, word.index, 0, ctx.spaced ? `${inserted} ` : inserted);
        return `"${inserted}" inserted before "${word.word}" in "${short(norm(before))}"`;
      }
      return null;
    },
  },
  {
    name: 'paragraph-added',
    apply(ctx) {
      if (ctx.sentences.length < 2) return null;
      // After a paragraph, not inside a caption or a table cell.
      const middle = middleBlocks(ctx);
      const anchors = [...middle.filter((b) => b.name === 'p'), ...middle.filter((b) => b.name !== 'p')];
      if (!anchors.length) return null;
      const picked = ctx.rng.shuffle(ctx.sentences).slice(0, ctx.rng.int(2, 3));
      if (new Set(picked.map((s) => s.block)).size < 2 && ctx.sentences.length > 2)
        picked.push(ctx.sentences.find((s) => s.block !== picked[0].block) ?? picked[0]);
      const text = ctx.rng.shuffle(picked.map((s) => s.sentence)).join(ctx.spaced ? ' ' : '');
      insertAfter(flowAnchor(anchors[0]), [newElement('p', {}, [newText(text)])]);
      return `new paragraph after "${short(norm(textOf(anchors[0])), 40)}": "${short(text)}"`;
    },
  },
  {
    name: 'paragraph-removed',
    apply(ctx) {
      const blocks = liveBlocks(ctx);
      if (blocks.length < 3) return null;
      const removable = blocks.slice(1, -1).filter((b) => ['p', 'div', 'blockquote', 'dd', 'section', 'article', 'center', 'font'].includes(b.name));
      if (!removable.length) return null;
      const block = ctx.rng.pick(removable);
      const text = norm(textOf(block));
      remove(block);
      return `removed "${short(text)}"`;
    },
  },
  {
    name: 'sentence-added',
    apply(ctx) {
      const blocks = ctx.rng.shuffle(liveBlocks(ctx));
      for (const block of blocks) {
        const last = textNodes(block)
          .filter((t) => t.data.trim())
          .at(-1);
        if (!last) continue;
        const own = norm(textOf(block));
        const sentence = ctx.rng.shuffle(ctx.sentences).find((s) => !own.includes(s.sentence));
        if (!sentence) return null;
        const trailing = last.data.match(/\s*$/)[0];
        last.data = `${last.data.slice(0, last.data.length - trailing.length)}${ctx.spaced ? ' ' : ''}${sentence.sentence}${trailing}`;
        return `appended "${short(sentence.sentence)}" to "${short(own, 40)}"`;
      }
      return null;
    },
  },
  {
    name: 'list-item',
    apply(ctx) {
      const lists = [...all(ctx.body, 'ul'), ...all(ctx.body, 'ol')].filter((list) => {
        if (ancestors(list).some((a) => isElement(a) && (SILENT.has(a.name) || ['nav', 'header', 'footer', 'aside', 'menu'].includes(a.name)))) return false;
        const items = list.children.filter((c) => isElement(c) && c.name === 'li');
        const inContent = items.filter((li) => ctx.expected.item(norm(textOf(li))));
        // A list of links (a table of contents, related stories) is not prose.
        const text = norm(textOf(list)).length;
        const linked = all(list, 'a').reduce((n, a) => n + norm(textOf(a)).length, 0);
        return items.length >= 2 && inContent.length >= Math.max(2, items.length / 2) && linked < 0.5 * text;
      });
      if (!lists.length || !ctx.sentences.length) return null;
      const list = ctx.rng.pick(lists);
      const items = list.children.filter((c) => isElement(c) && c.name === 'li');
      const after = ctx.rng.pick(items);
      const sentence = ctx.rng.pick(ctx.sentences).sentence;
      const words = wordsIn(ctx, sentence);
      const cut = ctx.spaced ? words[Math.min(words.length - 1, ctx.rng.int(5, 10))] : null;
      const text = cut ? sentence.slice(0, cut.index + cut.word.length) : sentence.slice(0, 24);
      insertAfter(after, [newElement('li', {}, [newText(text)])]);
      return `item "${short(text)}" added after "${short(norm(textOf(after)), 40)}"`;
    },
  },
  {
    name: 'link-target',
    apply(ctx) {
      const linkable = (href) => href && !/^\s*(#|javascript:|mailto:|tel:)/i.test(href);
      const links = liveBlocks(ctx)
        .flatMap((b) => all(b, 'a'))
        .filter((a) => linkable(attr(a, 'href')) && norm(textOf(a)).length >= 2);
      if (!links.length) return null;
      const link = ctx.rng.pick(links);
      const others = [
        ...new Set(
          all(ctx.body, 'a')
            .map((a) => attr(a, 'href'))
            .filter((h) => linkable(h) && h !== attr(link, 'href')),
        ),
      ];
      const before = attr(link, 'href');
      link.attribs.href = others.length ? ctx.rng.pick(others) : `https://example.org/${ctx.rng.base36(8)}`;
      return `"${short(norm(textOf(link)), 40)}" now links to ${short(link.attribs.href)} (was ${short(before)})`;
    },
  },
  {
    name: 'headline',
    apply(ctx) {
      const h1 = ctx.headline;
      if (!h1 || !attached(ctx, h1)) return null;
      const titleText = ctx.title ? textOf(ctx.title) : '';
      const inTitle = new Set(wordsIn(ctx, titleText).map((w) => w.word));
      const candidates = textNodes(h1).flatMap((node) => wordsIn(ctx, node.data).map((w) => ({ ...w, node })));
      if (!candidates.length) return null;
      const shared = candidates.filter((c) => inTitle.has(c.word));
      const chosen = ctx.rng.pick(shared.length ? shared : candidates);
      const replacement = replacementFor(ctx, chosen.word, textOf(h1));
      if (!replacement) return null;
      const before = norm(textOf(h1));
      chosen.node.data = splice(chosen.node.data, chosen.index, chosen.word.length, replacement);
      const changed = [`h1 "${short(before, 50)}" -> "${short(norm(textOf(h1)), 50)}"`];
      // The <title> and og:title / twitter:title change with it: the same word, or else one of theirs.
      const retitle = (text) => {
        const same = replaceWord(ctx, text, chosen.word, replacement);
        if (same !== null) return same;
        const words = wordsIn(ctx, text);
        if (!words.length) return null;
        const w = ctx.rng.pick(words);
        return splice(text, w.index, w.word.length, replacement);
      };
      if (ctx.title) {
        const node = textNodes(ctx.title)[0] ?? ctx.title.children[0];
        const next = node && retitle(node.data);
        if (next !== null && next !== undefined) {
          node.data = next;
          changed.push('title');
        }
      }
      for (const meta of all(ctx.head, 'meta')) {
        const key = attr(meta, 'property') ?? attr(meta, 'name');
        if (key !== 'og:title' && key !== 'twitter:title') continue;
        const next = retitle(attr(meta, 'content') ?? '');
        if (next !== null) {
          meta.attribs.content = next;
          changed.push(key);
        }
      }
      return `${changed.join(', ')} ("${chosen.word}" -> "${replacement}")`;
    },
  },
  {
    name: 'title-only',
    apply(ctx) {
      if (!ctx.title) return null;
      const node = ctx.title.children.find((c) => c.type === 'text' && c.data.trim());
      if (!node) return null;
      const words = wordsIn(ctx, node.data);
      if (!words.length) return null;
      const before = norm(node.data);
      if (words.length >= 2 && ctx.rng.chance(0.4)) {
        const i = ctx.rng.int(0, words.length - 2);
        const [a, b] = [words[i], words[i + 1]];
        node.data =
          node.data.slice(0, a.index) + b.word + node.data.slice(a.index + a.word.length, b.index) + a.word + node.data.slice(b.index + b.word.length);
      } else {
        const w = ctx.rng.pick(words);
        const replacement = replacementFor(ctx, w.word, node.data);
        if (!replacement) return null;
        node.data = splice(node.data, w.index, w.word.length, replacement);
      }
      if (norm(node.data) === before) return null;
      return `title "${short(before, 60)}" -> "${short(norm(node.data), 60)}"`;
    },
  },
];

export const EDITS_BY_NAME = Object.fromEntries(EDITS.map((kind) => [kind.name, kind]));
