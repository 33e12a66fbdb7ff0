/**
 * YAML nesting held to MAX_JSON_DEPTH before the document is built. The yaml composer is
 * recursive: a few thousand nested levels exhaust the call stack ("Maximum call stack size
 * exceeded", reported as a syntax error at a meaningless place). Its parser is not, so it is
 * driven lexeme by lexeme here and stopped at the first collection that opens too deep, with
 * the path to it.
 */
import { CST, Lexer, Parser, type LineCounter } from 'yaml';
import type { PathSegment } from '../../spec/issues.js';

export type ScannedTokens = { ok: true; tokens: CST.Token[] } | { ok: false; path: PathSegment[]; offset: number };

type Collection = CST.BlockMap | CST.BlockSequence | CST.FlowCollection;

const isCollection = (token: CST.Token): token is Collection => token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection';

const isSequence = (token: Collection) => token.type === 'block-seq' || (token.type === 'flow-collection' && token.start.source === '[');

/** A key as the path shows it: its scalar value, or `?` for a key that is itself a collection. */
function keySegment(key: CST.Token | null | undefined): PathSegment {
  return CST.resolveAsScalar(key)?.value ?? '?';
}

/**
 * Where a collection still being parsed will sit in `parent`: the parser attaches a collection
 * to its parent only when it is complete, so this reads the parent's last, unfinished item.
 */
function segmentsOf(parent: Collection): PathSegment[] {
  const last = parent.items[parent.items.length - 1];
  if (!isSequence(parent)) return [last?.sep && !last.value ? keySegment(last.key) : '?'];
  if (!last || last.value) return [parent.items.length];
  // `[key: value]`: a pair in a flow sequence is a mapping of one key.
  const pair = last.sep?.some((token) => token.type === 'map-value-ind');
  return pair ? [parent.items.length - 1, keySegment(last.key)] : [parent.items.length - 1];
}

/**
 * The CST tokens of `text`, or the path and offset of the first collection nested deeper than
 * `maxDepth`. A document whose root is a list is a list of monitors: the list is not part of any
 * monitor, so its items count from depth 1 as a single monitor does. A pair in a flow sequence
 * (`[key: value]`) makes a mapping the parser has no collection for; at most it doubles the
 * depth, which the composer bears, and the check of the built value counts it.
 */
export function scanYaml(text: string, lineCounter: LineCounter, maxDepth: number): ScannedTokens {
  const parser = new Parser(lineCounter.addNewLine);
  lineCounter.addNewLine(0);
  const tokens: CST.Token[] = [];
  for (const lexeme of new Lexer().lex(text)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    // The stack holds the document, the open collections and maybe one scalar: cheap to rule out.
    if (parser.stack.length <= maxDepth + 1) continue;
    const open = parser.stack.filter(isCollection);
    const allowed = open[0] && isSequence(open[0]) ? maxDepth + 1 : maxDepth;
    if (open.length <= allowed) continue;
    return { ok: false, path: open.slice(0, allowed).flatMap(segmentsOf), offset: open[allowed]!.offset };
  }
  for (const token of parser.end()) tokens.push(token);
  return { ok: true, tokens };
}
