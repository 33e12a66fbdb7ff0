/**
 * CSS selection for what users name (includeTags, excludeTags) and for the links and images
 * formats, each selector compiled once: cheerio compiles a selector string on every call.
 */
import { compile, selectAll } from 'css-select';
import type { AnyNode, Element } from 'domhandler';

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
