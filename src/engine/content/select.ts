/**
 * CSS selection with each selector compiled once. cheerio compiles a selector string on every
 * call; over the many passes of cleaning and scoring, compiling cost more than matching.
 */
import type { Cheerio, CheerioAPI } from 'cheerio/slim';
import { compile, is, selectAll } from 'css-select';
import type { AnyNode, Element } from 'domhandler';
import { isTag } from 'domutils';

type Query = ReturnType<typeof compile>;

/** Bounds what a long-running process remembers of user-given selectors (includeTags). */
const COMPILED_MAX = 500;
const compiled = new Map<string, Query>();

function query(selector: string): Query {
  let result = compiled.get(selector);
  if (!result) {
    result = compile(selector);
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(selector, result);
  }
  return result;
}

/** Elements under `root` (not `root` itself) that match, in document order. */
export function selectIn(root: AnyNode | AnyNode[], selector: string): Element[] {
  return selectAll(query(selector), root) as Element[];
}

/** `$(selector)`, with the selector compiled once. */
export function select($: CheerioAPI, selector: string): Cheerio<Element> {
  return $(selectIn($.root().toArray(), selector));
}

export function matches(element: Element, selector: string): boolean {
  return is(element, query(selector));
}

/** The element itself or its nearest ancestor that matches. */
export function closest(element: Element, selector: string): Element | undefined {
  for (let node: AnyNode | null = element; node && isTag(node); node = node.parent) {
    if (matches(node, selector)) return node;
  }
  return undefined;
}
