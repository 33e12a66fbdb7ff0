// DOM helpers for the change-detection bench: parsing and serialising with htmlparser2 and
// dom-serializer (the project's own dependencies), walking, text of elements, and small tree
// edits through domutils. No regular expressions run over raw HTML.
import render from 'dom-serializer';
import { DomHandler, Element, Text } from 'domhandler';
import * as du from 'domutils';
import { Parser } from 'htmlparser2';

/** HTML -> document (htmlparser2, entities decoded). */
export function parse(html) {
  const handler = new DomHandler();
  const parser = new Parser(handler, { decodeEntities: true });
  parser.end(html);
  return handler.root;
}

/** Document -> HTML, only `&`, `<`, `>` (and quotes in attributes) escaped; other characters as UTF-8. */
export const serialize = (node) => render(node, { encodeEntities: 'utf8' });

export const isElement = (node) => node?.type === 'tag' || node?.type === 'script' || node?.type === 'style';
export const isText = (node) => node?.type === 'text';

/** Every element below `node`, in document order. */
export function elements(node) {
  return du.findAll(() => true, node.children ?? []);
}

/** The first element named `name` below `node`. */
export const first = (node, name) => du.findOne((el) => el.name === name, node.children ?? [], true);
export const all = (node, name) => du.findAll((el) => el.name === name, node.children ?? []);

/** Elements whose text is not read: scripts, styles and the like. */
export const SILENT = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'head', 'select', 'textarea']);
/** Elements that start a line of their own. */
export const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'dd',
  'details',
  'dialog',
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
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
  'br',
  'center',
  'caption',
  'summary',
  'legend',
]);

/** Whitespace collapsed and trimmed: the form every comparison of text uses. */
export const norm = (text) => text.replace(/\s+/g, ' ').trim();

/** The text of a node as it reads: scripts and the like skipped, a space at block edges and <br>. */
export function textOf(node) {
  const parts = [];
  const walk = (n) => {
    if (isText(n)) parts.push(n.data);
    else if (isElement(n)) {
      if (SILENT.has(n.name)) return;
      const block = BLOCK.has(n.name);
      if (block) parts.push(' ');
      for (const child of n.children) walk(child);
      if (block) parts.push(' ');
    } else if (n.children) for (const child of n.children) walk(child);
  };
  walk(node);
  return parts.join('');
}

/** Text nodes below `node` that a reader sees (not inside scripts, styles, ...). */
export function textNodes(node) {
  const found = [];
  const walk = (n) => {
    if (isText(n)) found.push(n);
    else if (isElement(n) && SILENT.has(n.name)) return;
    else if (n.children) for (const child of n.children) walk(child);
  };
  walk(node);
  return found;
}

export const ancestors = (node) => {
  const list = [];
  for (let p = node.parent; p; p = p.parent) list.push(p);
  return list;
};

/** The deepest element that contains every node of `nodes`. */
export function commonAncestor(nodes) {
  if (nodes.length === 0) return null;
  let chain = [nodes[0], ...ancestors(nodes[0])];
  for (const node of nodes.slice(1)) {
    const mine = new Set([node, ...ancestors(node)]);
    chain = chain.filter((a) => mine.has(a));
  }
  return chain.find((a) => isElement(a)) ?? null;
}

export const insertAfter = (ref, nodes) => {
  let at = ref;
  for (const node of nodes) {
    du.append(at, node);
    at = node;
  }
};
export const insertBefore = (ref, nodes) => {
  for (const node of nodes) du.prepend(ref, node);
};
export const appendTo = (parent, nodes) => {
  for (const node of nodes) du.appendChild(parent, node);
};
export const prependTo = (parent, nodes) => {
  for (const node of [...nodes].reverse()) du.prependChild(parent, node);
};
export const remove = (node) => du.removeElement(node);

export const attr = (el, name) => el.attribs?.[name];
export const newText = (data) => new Text(data);
export const newElement = (name, attribs = {}, children = []) => {
  const el = new Element(name, { ...attribs }, []);
  appendTo(el, children);
  return el;
};
