/**
 * YAML definition files -> monitor candidates with source positions. A file holds one monitor
 * (a mapping), a list of monitors, or several `---` documents of either kind.
 */
import { aliasExpansionBeyond, ALIAS_EXPANSION_MAX_VALUES, type AliasExpansion } from './alias-expansion.js';
import { Composer, isMap, isScalar, isSeq, LineCounter, parse as parseYaml, Scalar, visit, type CST, type Document, type Node } from 'yaml';
import { pathBeyondDepth } from '../../spec/depth.js';
import { unstorableTextsIn } from '../../spec/stored-text.js';
import type { PathSegment } from '../../spec/issues.js';
import { DEFINITION_FILE_MAX_MONITORS, MAX_JSON_DEPTH } from '../../spec/limits.js';
import { interpolate } from './interpolate.js';
import { countMonitors, countParsedMonitors } from './monitor-count.js';
import { scanYaml } from './nesting.js';
import type { Env } from '../../lib/env.js';
import { locateIn, pathOf, type SourcePosition } from '../../lib/yaml-paths.js';

export type { SourcePosition };

/** A problem with its place in a file; line and column are null when there is no place. */
export interface LocatedProblem {
  path: PathSegment[];
  line: number | null;
  column: number | null;
  message: string;
}

export interface MonitorCandidate {
  /** The plain value the schemas validate. */
  value: unknown;
  position: SourcePosition;
  /** Problems found before validation (interpolation). */
  problems: LocatedProblem[];
  /** Maps a path inside this monitor to a position in the file. */
  locate(path: readonly PathSegment[], atKey: boolean): SourcePosition;
}

export interface ParsedFile {
  monitors: MonitorCandidate[];
  problems: LocatedProblem[];
}

const NOT_A_DEFINITION = 'a definition file holds a monitor (a mapping of fields) or a list of monitors';
/** Strings of one monitor named for holding text the store cannot keep: enough to show the pattern. */
const UNSTORABLE_TEXTS_SHOWN = 20;
const DUPLICATE_KEY = 'Map keys must be unique';
const TOO_DEEP = `nested more than ${MAX_JSON_DEPTH} levels deep (mappings and lists; the monitor itself is level 1)`;
const aliasExpansionMessage = ({ written, expanded }: AliasExpansion) =>
  `YAML aliases expand this document to ${expanded.toLocaleString('en')} values from the ${written.toLocaleString('en')} written: at most ${ALIAS_EXPANSION_MAX_VALUES.toLocaleString('en')} more are allowed (an alias repeats all its anchor holds: write the values out, or alias smaller parts)`;
const tooManyMonitors = (count: number): LocatedProblem => ({
  path: [],
  line: null,
  column: null,
  message: `the file holds ${count} monitors (as documents or list items), over the limit of ${DEFINITION_FILE_MAX_MONITORS} in a definition file: split it into several files`,
});

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

/** Resolves `${VAR}` in every scalar value (not in keys); plain scalars are typed again. */
function interpolateDocument(doc: Document, env: Env, report: (node: Node, message: string) => void) {
  visit(doc, {
    Scalar(key, node) {
      if (key === 'key' || typeof node.value !== 'string') return;
      const result = interpolate(node.value, env);
      if (!result.ok) return report(node, result.message);
      if (!result.changed) return;
      // `retentionDays: ${DAYS}` should give a number, as if the value had been written there.
      node.value = node.type === Scalar.PLAIN ? retype(result.value) : result.value;
    },
  });
}

/**
 * Where a mapping repeats a key, as the composer's own check finds them (scalar keys of equal
 * value, NaN never equal to itself; other keys are never equal), with a set per mapping. The
 * composer compares each key with every earlier one, so a mapping of 40,000 keys took 39 s.
 * Walked without `visit`, whose bookkeeping per node cost a file of 5,000 small documents 7 %.
 */
function duplicateKeyOffsets(doc: Document): number[] {
  const offsets: number[] = [];
  const pending: unknown[] = [doc.contents];
  while (pending.length > 0) {
    const node = pending.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const { key, value } of node.items) {
        if (isScalar(key) && !Number.isNaN(key.value)) {
          if (seen.has(key.value)) offsets.push(key.range?.[0] ?? 0);
          else seen.add(key.value);
        }
        pending.push(key, value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) pending.push(item);
    }
  }
  return offsets;
}

/**
 * The documents built from the parser's tokens. Keys repeated in a mapping are left to
 * duplicateKeyOffsets. The composer reports each problem as an Error, whose stack is never read:
 * capturing them took 90 % of the time and 75 % of the memory of composing a file of 300,000
 * syntax errors (an 8 MiB file of them ran out of memory after 140 s).
 */
function composeDocuments(tokens: CST.Token[]): Document[] {
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return Array.from(new Composer({ merge: true, uniqueKeys: false }).compose(tokens));
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

function retype(text: string): unknown {
  try {
    const value: unknown = parseYaml(text);
    return value === null || ['string', 'number', 'boolean'].includes(typeof value) ? (value ?? text) : text;
  } catch {
    return text;
  }
}

export function parseDefinitionFile(text: string, env: Env): ParsedFile {
  const lineCounter = new LineCounter();
  const position = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const problems: LocatedProblem[] = [];
  const monitors: MonitorCandidate[] = [];
  // Counted before parsing: refusing a file of too many monitors must not cost their parsing.
  const counted = countMonitors(text);
  if (counted > DEFINITION_FILE_MAX_MONITORS) return { monitors, problems: [tooManyMonitors(counted)] };
  // Too deep a file is refused whole: building any of its documents could exhaust the stack.
  const scanned = scanYaml(text, lineCounter, MAX_JSON_DEPTH);
  if (!scanned.ok) return { monitors, problems: [{ path: scanned.path, ...position(scanned.offset), message: TOO_DEEP }] };
  // On broken YAML the count of lines can fall short of the items the parser puts in a list
  // (it takes in wrongly indented ones), and building them is most of their cost.
  const parsedCount = countParsedMonitors(scanned.tokens);
  if (parsedCount > DEFINITION_FILE_MAX_MONITORS) return { monitors, problems: [tooManyMonitors(parsedCount)] };
  const docs = composeDocuments(scanned.tokens);

  for (const doc of docs) {
    const syntaxErrors = [
      ...doc.errors.map((error) => ({ offset: error.pos[0], message: firstLine(error.message) })),
      ...duplicateKeyOffsets(doc).map((offset) => ({ offset, message: DUPLICATE_KEY })),
    ].sort((a, b) => a.offset - b.offset);
    if (syntaxErrors.length > 0) {
      for (const { offset, message } of syntaxErrors) problems.push({ path: [], ...position(offset), message: `YAML syntax: ${message}` });
      continue;
    }
    const root = doc.contents;
    if (root === null || (isScalar(root) && root.value === null)) continue; // empty document
    const items: Node[] = isSeq(root) ? (root.items as Node[]) : [root as Node];
    if (!isMap(root) && !isSeq(root)) {
      const at = position(root.range?.[0] ?? 0);
      problems.push({ path: [], ...at, message: NOT_A_DEFINITION });
      continue;
    }

    const interpolationProblems = new Map<Node, string>();
    interpolateDocument(doc, env, (node, message) => interpolationProblems.set(node, message));
    // What aliases repeat is bounded before anything is built: a small file can stand for millions of values.
    const expansion = aliasExpansionBeyond(doc);
    if (expansion) {
      problems.push({ path: [], ...position(expansion.offset), message: aliasExpansionMessage(expansion) });
      continue;
    }
    let values: unknown[];
    try {
      // Converted as a whole so that aliases resolve. What they repeat was bounded above
      // (aliasExpansionBeyond), "billion laughs" included: the parser's count of aliases would
      // refuse a file that aliases one small block in every monitor, and let a large one through.
      const js: unknown = doc.toJS({ maxAliasCount: -1 });
      values = isSeq(root) ? (js as unknown[]) : [js];
    } catch (error) {
      problems.push({ path: [], ...position(root.range?.[0] ?? 0), message: `YAML: ${firstLine((error as Error).message)}` });
      continue;
    }

    for (const [index, item] of items.entries()) {
      const candidateProblems: LocatedProblem[] = [];
      const locate = (path: readonly PathSegment[], atKey: boolean): SourcePosition => locateIn(item, path, atKey, position);
      if (!isMap(item)) {
        candidateProblems.push({ path: [], ...position(item?.range?.[0] ?? 0), message: 'a monitor must be a mapping of fields' });
      }
      visit(item, {
        Scalar(_key, node, path) {
          const message = interpolationProblems.get(node);
          if (message) {
            // The ancestry stops at the list that holds the scalar: the scalar completes it, for its index.
            candidateProblems.push({ path: pathOf(item, [...path, node]), ...position(node.range?.[0] ?? 0), message });
          }
        },
      } as Parameters<typeof visit>[1]);
      // The file nests within the limit (scanYaml), but aliases can nest deeper than it.
      const tooDeep = pathBeyondDepth(values[index]);
      if (tooDeep) candidateProblems.push({ path: tooDeep, ...locate(tooDeep, false), message: TOO_DEEP });
      // YAML's escapes can write NUL and halves of surrogate pairs ("\0", "\ud800"): text the API refuses too.
      for (const unstorable of unstorableTextsIn(values[index], UNSTORABLE_TEXTS_SHOWN)) {
        candidateProblems.push({ path: unstorable.path, ...locate(unstorable.path, unstorable.message.startsWith('the key')), message: unstorable.message });
      }
      monitors.push({
        value: values[index],
        position: position(item?.range?.[0] ?? 0),
        problems: candidateProblems,
        locate,
      });
    }
  }
  return { monitors, problems };
}
