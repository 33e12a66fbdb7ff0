/**
 * What a document's YAML aliases expand to. An alias repeats everything its anchor holds: 99
 * aliases of a list of 200,000 addresses are 19.8 million values in a file of 1.5 MB, which the
 * parser's own alias count (of aliases, not of what they repeat) lets through. Counted on the
 * parsed tree, before anything is built, in time linear in the document.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, visit, type Document, type Node } from 'yaml';

/** Values that aliases may add to a document beyond those written in it. */
export const ALIAS_EXPANSION_MAX_VALUES = 100_000;

export interface AliasExpansion {
  /** Values of the document as written (an alias counts as one). */
  written: number;
  /** Values once every alias is replaced by what it repeats. */
  expanded: number;
  /** Where the alias that repeats the most begins (an offset into the text). */
  offset: number;
}

/** The expansion of a document whose aliases add more than `limit` values; undefined when they do not. */
export function aliasExpansionBeyond(document: Document, limit = ALIAS_EXPANSION_MAX_VALUES): AliasExpansion | undefined {
  // Each alias repeats the last node anchored with its name before it, as the parser resolves it.
  const anchors = new Map<string, unknown>();
  const targets = new Map<unknown, unknown>();
  let written = 0;
  visit(document, {
    Node(_key, node) {
      written++;
      if (isAlias(node)) targets.set(node, anchors.get(node.source));
      else if ((node as { anchor?: string }).anchor) anchors.set((node as { anchor: string }).anchor, node);
    },
    Pair() {
      // A pair is no value of its own: its key and its value are counted.
    },
  });
  if (targets.size === 0) return undefined;
  const sizes = new Map<unknown, number>();
  const counting = new Set<unknown>();
  const sizeOf = (node: unknown): number => {
    if (node === null || node === undefined) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    // An alias inside what it repeats is the parser's error to report; here it counts once.
    if (counting.has(node)) return 1;
    counting.add(node);
    let size = 1;
    if (isAlias(node)) size = sizeOf(targets.get(node));
    else if (isMap(node)) for (const pair of node.items) size += isPair(pair) ? sizeOf(pair.key) + sizeOf(pair.value) : 0;
    else if (isSeq(node)) for (const item of node.items) size += sizeOf(item);
    else if (!isScalar(node)) size = 1;
    counting.delete(node);
    sizes.set(node, size);
    return size;
  };
  const expanded = sizeOf(document.contents as Node | null);
  if (expanded - written <= limit) return undefined;
  let largest: { offset: number; size: number } = { offset: 0, size: -1 };
  for (const alias of targets.keys()) {
    const size = sizeOf(alias);
    if (size > largest.size) largest = { offset: (alias as Node).range?.[0] ?? 0, size };
  }
  return { written, expanded, offset: largest.offset };
}
