/**
 * Field paths in a YAML (or JSON) document: the path of a node, and where the node a path names
 * is in the text (line and column, from 1), for messages that point into a file.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';

/** A mapping's key or a list's index. */
export type PathSegment = string | number;

export interface SourcePosition {
  line: number;
  column: number;
}

/*
 * Lists by their items, and mappings by their keys as a path names them (the first of equal
 * keys), indexed on first use: a search of the items for each problem made a file of many
 * problems in one collection (40,000 unknown keys, say) quadratic. Small collections, every
 * monitor among them, are searched: an index for each cost more than it saved.
 */
const INDEXED_FROM_ITEMS = 32;
const itemIndexes = new WeakMap<YAMLSeq, Map<unknown, number>>();
const pairIndexes = new WeakMap<YAMLMap, Map<string, Pair>>();

function indexOfItem(seq: YAMLSeq, item: unknown): number {
  if (seq.items.length < INDEXED_FROM_ITEMS) return seq.items.indexOf(item);
  let index = itemIndexes.get(seq);
  if (!index) {
    index = new Map(seq.items.map((node, i) => [node, i] as const).reverse());
    itemIndexes.set(seq, index);
  }
  return index.get(item) ?? -1;
}

function pairNamed(map: YAMLMap, segment: PathSegment): Pair | undefined {
  const name = String(segment);
  if (map.items.length < INDEXED_FROM_ITEMS) return map.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === name);
  let index = pairIndexes.get(map);
  if (!index) {
    index = new Map();
    for (const pair of map.items) {
      if (!isScalar(pair.key)) continue;
      const key = String(pair.key.value);
      if (!index.has(key)) index.set(key, pair);
    }
    pairIndexes.set(map, index);
  }
  return index.get(name);
}

/** The path from `root` to a node, given the ancestry `visit` reports. */
export function pathOf(root: Node, ancestry: readonly unknown[]): PathSegment[] {
  const path: PathSegment[] = [];
  const chain = ancestry.slice(ancestry.indexOf(root));
  for (let i = 0; i < chain.length; i++) {
    const here = chain[i];
    const next = chain[i + 1];
    if (isSeq(here) && next !== undefined) path.push(indexOfItem(here, next));
    if (isPair(here) && isScalar(here.key)) path.push(here.key.value as string);
  }
  return path;
}

/**
 * Where a field of a YAML or JSON text is (the configuration's files use it; definition files
 * locate in the documents they have parsed already); the start of the text when the path is not there.
 */
export function locateInText(text: string, path: readonly PathSegment[], atKey: boolean): SourcePosition {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: false });
  const position = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  return document.contents ? locateIn(document.contents as Node, path, atKey, position) : { line: 1, column: 1 };
}

export function locateIn(root: Node, path: readonly PathSegment[], atKey: boolean, position: (offset: number) => SourcePosition): SourcePosition {
  let node: unknown = root;
  let key: unknown;
  for (const segment of path) {
    key = undefined;
    if (isMap(node)) {
      const pair = pairNamed(node, segment);
      if (!pair) break;
      key = pair.key;
      node = pair.value ?? pair.key;
    } else if (isSeq(node) && typeof segment === 'number' && node.items[segment] !== undefined) {
      node = node.items[segment];
    } else {
      break;
    }
  }
  const target = (atKey && key ? key : node) as Node | undefined;
  return position(target?.range?.[0] ?? 0);
}
