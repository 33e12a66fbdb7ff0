/**
 * Rewrites of the cleaned DOM so that markdown comes out as text, not as leaked tags: the
 * converter passes through as HTML what markdown cannot say (a heading inside a link, dl,
 * sup, u, a list or a table inside a table cell, details), so those become blocks, emphasis or
 * plain text here. Also: maths once (TeX when the page has it), layout tables as blocks,
 * table parts outside a table, code languages and lazy images.
 */
import render from 'dom-serializer';
import type { AnyNode, Element } from 'domhandler';
import { Element as ElementNode, Text } from 'domhandler';
import { appendChild, hasChildren, isTag, prepend, removeElement, replaceElement } from 'domutils';
import { insertBeforeEach, removeAll, setChildren } from './dom-edit.js';

const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'center',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
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
  'hgroup',
  'hr',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'ul',
]);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const TABLE_PARTS = new Set(['td', 'th', 'tr', 'tbody', 'thead', 'tfoot', 'caption']);
/** Inline tags markdown has no form for: their text stays, the tag goes. */
const PLAIN_INLINE = new Set(['u', 'ins', 'mark', 'sup', 'sub', 'big', 'bdi', 'bdo', 'nobr']);
/** Block tags the converter passes through as HTML: a plain block. */
const PLAIN_BLOCK = new Set(['address', 'details']);

const LAZY_SOURCES = ['data-src', 'data-lazy-src', 'data-original'];

/**
 * The attributes the converter reads (links, images, list start, table cells, code language);
 * the rest (class, style, data-*, ARIA...) only lengthen the HTML it parses.
 */
const MARKDOWN_ATTRIBUTES = new Set(['href', 'src', 'alt', 'title', 'aria-label', 'start', 'align', 'colspan', 'rowspan']);
const CODE_TAGS = new Set(['pre', 'code']);

function keepMarkdownAttributes(element: Element) {
  const attributes = element.attribs;
  let kept: Record<string, string> | undefined;
  for (const name in attributes) {
    if (MARKDOWN_ATTRIBUTES.has(name) || (name === 'class' && CODE_TAGS.has(element.name))) {
      if (kept) kept[name] = attributes[name]!;
    } else if (!kept) {
      // Copied up to here on the first attribute to drop: most elements have none.
      kept = {};
      for (const earlier in attributes) {
        if (earlier === name) break;
        kept[earlier] = attributes[earlier]!;
      }
    }
  }
  if (kept) element.attribs = kept;
}

/** Lazy-loaded images name their real source in a data attribute. */
export function lazySource(attributes: Record<string, string>): string | undefined {
  return LAZY_SOURCES.map((name) => attributes[name]).find((value) => value && !value.startsWith('data:'));
}

function allElements(root: AnyNode[], name?: string): Element[] {
  const found: Element[] = [];
  const visit = (nodes: AnyNode[]) => {
    for (const node of nodes) {
      if (node.type === 'text') continue;
      if (isTag(node)) {
        if (!name || node.name === name) found.push(node);
        visit(node.children);
      } else if (hasChildren(node)) visit(node.children);
    }
  };
  visit(root);
  return found;
}

function closestOf(element: Element, names: Set<string> | string): Element | undefined {
  for (let node = element.parent; node && isTag(node); node = node.parent) {
    if (typeof names === 'string' ? node.name === names : names.has(node.name)) return node;
  }
  return undefined;
}

function textOf(node: AnyNode): string {
  if (node.type === 'text') return (node as Text).data;
  if (!isTag(node)) return '';
  return node.children.map(textOf).join('');
}

function hasBlockInside(element: Element): boolean {
  return element.children.some((child) => isTag(child) && (BLOCK.has(child.name) || TABLE_PARTS.has(child.name) || hasBlockInside(child)));
}

/** Replaces `element` with its children. */
const unwrap = (element: Element) => unwrapAll([element]);

/**
 * Replaces each of `elements` with its children (theirs too, when nested), in one pass over each
 * parent's children however many it holds: unwrapping them one by one is quadratic.
 */
function unwrapAll(elements: readonly Element[]) {
  if (elements.length === 0) return;
  const gone = new Set<AnyNode>(elements);
  const expand = (node: AnyNode): AnyNode[] => (gone.has(node) ? (node as Element).children.flatMap(expand) : [node]);
  const parents = new Set(elements.map((element) => element.parent).filter((parent): parent is Element => parent !== null && !gone.has(parent)));
  for (const parent of parents) setChildren(parent, parent.children.flatMap(expand));
  for (const element of elements) {
    element.children = [];
    element.parent = null;
  }
}

function newElement(name: string, attributes: Record<string, string> = {}, children: AnyNode[] = []): Element {
  const element = new ElementNode(name, { ...attributes }, []);
  for (const child of children) {
    if (child.parent) removeElement(child);
    appendChild(element, child);
  }
  return element;
}

/**
 * Maths once: a <math> element with a TeX annotation (or alttext) becomes `$tex$` (`$$tex$$`
 * for display maths); without one, its visible text. A fallback image beside it that says the
 * same goes, as does the hidden wrapper the MathML sat in.
 */
export function rewriteMaths(root: AnyNode[]) {
  for (const math of allElements(root, 'math')) {
    if (!math.parent || closestOf(math, 'math')) continue;
    const annotation = allElements(math.children, 'annotation').find((element) => /tex/i.test(element.attribs.encoding ?? ''));
    let tex = (annotation ? textOf(annotation) : (math.attribs.alttext ?? '')).trim();
    const wrapped = /^\{\\(?:display|text)style\s*([\s\S]*)\}$/.exec(tex);
    if (wrapped) tex = wrapped[1]!.trim();
    for (const element of allElements(math.children)) if (element.name === 'annotation' || element.name === 'annotation-xml') removeElement(element);
    const block = math.attribs.display === 'block' || math.attribs.mode === 'display';
    const text = tex ? (block ? `$$${tex}$$` : `$${tex}$`) : textOf(math).replace(/\s+/g, ' ').trim();
    // The outermost wrapper holding nothing but this formula (often a hidden MathML span).
    let target: Element = math;
    for (let level = 0; level < 3; level++) {
      const parent = target.parent;
      if (!parent || !isTag(parent) || BLOCK.has(parent.name)) break;
      if (!parent.children.every((child) => child === target || (child.type === 'text' && !(child as Text).data.trim()))) break;
      target = parent;
    }
    const container = target.parent;
    const replacement = new Text(text);
    replaceElement(target, replacement);
    if (!container || !tex) continue;
    const alternative = (value: string | undefined) => {
      const alt = (value ?? '').trim();
      const inner = /^\{\\(?:display|text)style\s*([\s\S]*)\}$/.exec(alt)?.[1]?.trim() ?? alt;
      return inner === tex;
    };
    for (const image of allElements(container.children, 'img')) if (alternative(image.attribs.alt)) removeElement(image);
  }
}

/**
 * A table is for layout when it nests another table, says so (role), or is a single row or
 * column without headers; its parts then become plain blocks, so that the content reads as
 * text instead of one giant row.
 */
function isLayoutTable(table: Element): boolean {
  const role = (table.attribs.role ?? '').toLowerCase();
  if (role === 'presentation' || role === 'none') return true;
  const rows: Element[] = [];
  let nested = false;
  let headers = false;
  const visit = (element: Element) => {
    for (const child of element.children) {
      if (!isTag(child)) continue;
      if (child.name === 'table') {
        nested = true;
        continue;
      }
      if (child.name === 'tr') rows.push(child);
      if (child.name === 'th' || child.name === 'thead' || child.name === 'caption') headers = true;
      visit(child);
    }
  };
  visit(table);
  if (nested) return true;
  if (headers) return false;
  const columns = Math.max(0, ...rows.map((row) => row.children.filter((cell) => isTag(cell) && (cell.name === 'td' || cell.name === 'th')).length));
  return rows.length < 2 || columns < 2;
}

/** Inside a data table's cell, line breaks and lists become "; " so that the row stays one line. */
function flattenCell(cell: Element) {
  for (const element of allElements(cell.children)) {
    if (element.name === 'br') replaceElement(element, new Text('; '));
  }
  for (const list of allElements(cell.children).filter((element) => element.name === 'ul' || element.name === 'ol')) {
    const items = list.children.filter((child): child is Element => isTag(child) && child.name === 'li');
    items.forEach((item, index) => {
      item.name = 'span';
      if (index < items.length - 1) appendChild(item, new Text('; '));
    });
    list.name = 'span';
  }
  for (const element of allElements(cell.children)) {
    if (BLOCK.has(element.name) && element.name !== 'table') {
      appendChild(element, new Text(' '));
      element.name = 'span';
    }
  }
}

/** `<a href><h2>Title</h2></a>` -> `<h2><a href>Title</a></h2>`: the link goes inside each block. */
function linkInsideBlocks(link: Element) {
  const wrap = (nodes: AnyNode[]) => newElement('a', link.attribs, nodes);
  const pushInside = (container: Element) => {
    const run: AnyNode[] = [];
    const flush = (before: AnyNode | null) => {
      if (run.length === 0) return;
      const anchor = wrap([]);
      if (before) prepend(before, anchor);
      else appendChild(container, anchor);
      for (const node of run.splice(0)) {
        removeElement(node);
        appendChild(anchor, node);
      }
    };
    for (const child of [...container.children]) {
      if (isTag(child) && (BLOCK.has(child.name) || hasBlockInside(child))) {
        flush(child);
        if (!['ul', 'ol', 'dl', 'table'].includes(child.name)) pushInside(child);
      } else run.push(child);
    }
    flush(null);
  };
  pushInside(link);
  unwrap(link);
}

/** dt -> a bold paragraph, dd -> its text as a paragraph (or block), dl -> a block. */
function rewriteDefinitionList(list: Element) {
  for (const child of list.children) {
    if (!isTag(child)) continue;
    if (child.name === 'dt') {
      const strong = newElement('strong', {}, [...child.children]);
      appendChild(child, strong);
      child.name = 'p';
    } else if (child.name === 'dd') {
      child.name = hasBlockInside(child) ? 'div' : 'p';
    } else if (child.name === 'div') {
      // <dl><div><dt/><dd/></div></dl> is allowed grouping.
      rewriteDefinitionList(child);
    }
  }
  list.name = 'div';
}

const MARKUP_IN_TEXT = /<\/?[a-z][^>]*>/i;

const FILE_NAME = /^[\w\s().,~+-]+\.(?:jpe?g|png|gif|webp|avif|svg|bmp|tiff?|heic)$/i;
const normalized = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * The alt text worth writing: markup inside it (escaped in the page) would come out as tags;
 * a bare file name describes nothing; the caption of the same figure says it right after.
 */
function altText(image: Element): string {
  let alt = image.attribs.alt ?? '';
  if (MARKUP_IN_TEXT.test(alt)) alt = alt.replace(new RegExp(MARKUP_IN_TEXT, 'gi'), ' ');
  alt = alt.replace(/\s+/g, ' ').trim();
  if (FILE_NAME.test(alt)) return '';
  const figure = closestOf(image, 'figure');
  const caption = figure && allElements(figure.children, 'figcaption')[0];
  if (caption && alt && normalized(textOf(caption)).includes(normalized(alt))) return '';
  return alt;
}

export function prepareForMarkdown(root: AnyNode[]) {
  for (const table of allElements(root, 'table')) {
    if (isLayoutTable(table)) {
      for (const part of [table, ...allElements(table.children)]) {
        if ((TABLE_PARTS.has(part.name) || part === table) && closestOf(part, 'table') === closestOf(table, 'table')) part.name = 'div';
      }
    }
  }
  for (const element of allElements(root)) {
    const name = element.name;
    if (TABLE_PARTS.has(name) && !closestOf(element, 'table')) element.name = 'div';
    else if ((name === 'td' || name === 'th') && hasBlockInsideOrBreak(element)) flattenCell(element);
  }
  const scriptLinks: Element[] = [];
  const gone: Element[] = [];
  for (const element of allElements(root)) {
    const name = element.name;
    if (name === 'a' && element.parent && isEmptyLink(element)) gone.push(element);
    // A link that runs script leads nowhere a reader can follow: its text stays, never the URL.
    else if (name === 'a' && element.parent && /^\s*javascript:/i.test(element.attribs.href ?? '')) scriptLinks.push(element);
    // Ruby: the text, not its reading aids (furigana), which markdown would run into it ("子こども").
    else if ((name === 'rt' || name === 'rp') && element.parent) gone.push(element);
    else if (name === 'a' && element.parent && hasBlockInside(element)) linkInsideBlocks(element);
    else if (name === 'dl') rewriteDefinitionList(element);
    else if (name === 'summary') element.name = 'p';
    else if (PLAIN_BLOCK.has(name)) element.name = 'div';
    else if (PLAIN_INLINE.has(name)) element.name = 'span';
    else if (HEADINGS.has(name)) {
      for (const br of allElements(element.children, 'br')) replaceElement(br, new Text(' '));
    } else if (name === 'pre') {
      const code = element.children.find((child): child is Element => isTag(child) && child.name === 'code');
      const language = /(?:^|\s)(?:lang|language)-([\w+#.-]+)/.exec(`${code?.attribs.class ?? ''} ${element.attribs.class ?? ''}`)?.[1];
      if (language && code && !/(?:^|\s)language-/.test(code.attribs.class ?? ''))
        code.attribs.class = `${code.attribs.class ?? ''} language-${language}`.trim();
    } else if (name === 'img') {
      const lazy = lazySource(element.attribs);
      const src = element.attribs.src;
      if (lazy && (!src || src.startsWith('data:'))) element.attribs.src = lazy;
      if (element.attribs.alt) element.attribs.alt = altText(element);
    }
    keepMarkdownAttributes(element);
  }
  removeAll(gone);
  unwrapAll(scriptLinks);
  // The converter writes a space before every link that follows text, which the page does not
  // show: "中文<a>链接</a>" would read "中文 [链接](...)". A mark before each link tells
  // htmlToMarkdown which spaces are the converter's own, to take them out.
  // Once per parent (dom-edit.ts): a page of 40,000 links side by side took seconds, a mark at a time.
  insertBeforeEach(
    allElements(root, 'a').filter((link) => link.attribs.href !== undefined),
    () => new Text(LINK_MARK),
  );
}

/** A Unicode noncharacter, never in a page's text: markdown.ts takes it out, with the converter's space after it. */
export const LINK_MARK = '\ufdd0';

/**
 * The HTML the converter reads: characters as themselves (the default escapes every non-ASCII
 * one as an entity, for the converter to decode again).
 */
export function serializeForMarkdown(nodes: AnyNode[]): string {
  return render(nodes, { encodeEntities: 'utf8' });
}

/** A link with nothing to read or see (an icon anchor beside a heading): the converter would name it by its aria-label. */
function isEmptyLink(link: Element): boolean {
  return (
    textOf(link).trim() === '' &&
    !allElements(link.children).some((element) => element.name === 'img' || element.name === 'picture' || element.name === 'video')
  );
}

function hasBlockInsideOrBreak(cell: Element): boolean {
  return cell.children.some((child) => isTag(child) && (child.name === 'br' || BLOCK.has(child.name) || hasBlockInsideOrBreak(child)));
}
