/**
 * How many monitors a definition file holds: one per YAML document, or, for a document whose
 * root is a list, one per item of the list. Each costs the parser and the checks about 0.1 ms
 * however small it is, so a file of too many is refused before the parser runs, for the price
 * of one pass over its characters.
 *
 * `countMonitors` reads the text as the YAML lexer delimits documents and root lists, without
 * parsing it. Documents: a line that starts with `---` followed by a space, a tab or the end of
 * the line always begins one, even inside a quoted scalar or a flow collection, where YAML
 * forbids such lines; between documents (at the start, and after a `...` line) any line other
 * than a blank line, a comment or a `%` directive begins one without `---`, and a `...` line
 * there ends an empty one. A root block list (its first node a `- ` item) has one item per
 * line whose `- ` stands at its column or to the left of it: deeper content cannot reach that
 * column, and the lexer ends any scalar or flow collection that a less indented line breaks
 * into. A root flow list (`[`) is read with the lexer's rules for flow collections (quotes,
 * plain scalars, comments, nesting), counting its non-empty items at the top level. On
 * well-formed YAML the count is the parser's. Broken YAML can fool it (the parser attaches
 * wrongly indented items to the list, for one), so `countParsedMonitors` counts again on the
 * parser's tokens, before any document is built from them.
 */
import type { CST } from 'yaml';

const NEWLINE = '\n';
const TAG_CHARACTERS = /[0-9A-Za-z\-#;/?:@&=+$_.!~*'()]/;
const HEX_DIGIT = /[0-9A-Fa-f]/;

/** A space, a tab, a line end or the end of the text: what must follow an indicator. */
const isBlank = (ch: string | undefined) => ch === undefined || ch === ' ' || ch === '\t' || ch === NEWLINE || ch === '\r';
const isFlowIndicator = (ch: string | undefined) => ch === ',' || ch === '[' || ch === ']' || ch === '{' || ch === '}';
/** What ends an anchor or an alias name. */
const endsName = (ch: string | undefined) => ch === undefined || isBlank(ch) || isFlowIndicator(ch);

function lineEndFrom(text: string, start: number): number {
  const newline = text.indexOf(NEWLINE, start);
  return newline === -1 ? text.length : newline;
}

/** Whether `---` or `...` (as `marker` says) stands alone at `start`, the start of a line. */
function isMarkerAt(text: string, start: number, marker: '---' | '...'): boolean {
  return text.startsWith(marker, start) && isBlank(text[start + 3]);
}

/** Lines that do not begin a document between documents: blank, a comment, a directive. */
function isOutsideDocuments(text: string, start: number, end: number): boolean {
  if (text[start] === '%') return true;
  let i = start;
  while (i < end && (text[i] === ' ' || text[i] === '\t')) i++;
  return i === end || text[i] === '#' || (text[i] === '\r' && text[i + 1] === NEWLINE);
}

function skipBlanksInLine(text: string, i: number): number {
  while (text[i] === ' ' || text[i] === '\t') i++;
  return i;
}

/** Past a tag (`!`, `!!str`, `!<tag:x>`, `!e%21`) or an anchor (`&a`), as the lexer reads them. */
function skipProperty(text: string, i: number): number {
  if (text[i] === '&') {
    i++;
    while (!endsName(text[i])) i++;
    return i;
  }
  if (text[i + 1] === '<') {
    i += 2;
    while (!isBlank(text[i]) && text[i] !== '>') i++;
    return text[i] === '>' ? i + 1 : i;
  }
  i++;
  for (;;) {
    const ch = text[i];
    if (ch !== undefined && TAG_CHARACTERS.test(ch)) i++;
    else if (ch === '%' && HEX_DIGIT.test(text[i + 1] ?? '') && HEX_DIGIT.test(text[i + 2] ?? '')) i += 3;
    else return i;
  }
}

/** Past the tags and anchors at `i` and the blanks after each. */
function skipProperties(text: string, i: number): number {
  while (text[i] === '!' || text[i] === '&') i = skipBlanksInLine(text, skipProperty(text, i));
  return i;
}

interface FlowScan {
  items: number;
  /** Where reading line by line goes on: the line after the closing `]`, or a marker line that cut the list short. */
  resume: number;
}

/**
 * The items of a root flow sequence whose `[` is just before `start`, read as the lexer reads
 * flow collections. The sequence ends at its `]`, or, unclosed, at a document marker line or
 * the end of the text. Only items with content count (`[a, , b,]` has two), as the parser
 * builds them.
 */
function scanRootFlowSequence(text: string, start: number): FlowScan {
  let depth = 1;
  let items = 0;
  let itemHasContent = false;
  // Whether `:` right after the last token is a value indicator (`"a":b`, `[x]:y`).
  let afterKey = false;
  let i = start;
  const endItem = () => {
    if (itemHasContent) items++;
    itemHasContent = false;
  };
  const content = () => {
    if (depth === 1) itemHasContent = true;
  };
  const interrupted = (lineStart: number): FlowScan => {
    endItem();
    return { items, resume: lineStart };
  };
  for (;;) {
    const ch = text[i];
    if (ch === undefined) return interrupted(text.length + 1);
    if (ch === ' ' || ch === '\t') {
      i++;
      continue;
    }
    if (ch === NEWLINE || (ch === '\r' && text[i + 1] === NEWLINE)) {
      i += ch === NEWLINE ? 1 : 2;
      if (isMarkerAt(text, i, '---') || isMarkerAt(text, i, '...')) return interrupted(i);
      continue;
    }
    const next = text[i + 1];
    switch (ch) {
      case ',':
        if (depth === 1) endItem();
        afterKey = false;
        i++;
        continue;
      case '#':
        i = lineEndFrom(text, i);
        continue;
      case '!':
      case '&':
        content();
        i = skipProperty(text, i);
        continue;
      case '[':
      case '{':
        content();
        depth++;
        afterKey = false;
        i++;
        continue;
      case ']':
      case '}':
        depth--;
        afterKey = true;
        i++;
        if (depth === 0) {
          endItem();
          return { items, resume: lineEndFrom(text, i) + 1 };
        }
        continue;
      case '*':
        content();
        i++;
        while (!endsName(text[i])) i++;
        continue;
      case '"':
      case "'": {
        content();
        afterKey = true;
        const scanned = skipQuoted(text, i);
        if (scanned.interruptedAt !== undefined) return interrupted(scanned.interruptedAt);
        i = scanned.end;
        continue;
      }
      case '-':
      case '?':
      case ':':
        if (isBlank(next) || isFlowIndicator(next) || (ch === ':' && afterKey)) {
          content();
          afterKey = false;
          i++;
          continue;
        }
    }
    content();
    afterKey = false;
    const scanned = skipPlainInFlow(text, i);
    if (scanned.interruptedAt !== undefined) return interrupted(scanned.interruptedAt);
    i = scanned.end;
  }
}

interface ScalarScan {
  end: number;
  /** The start of a document marker line that ended the scalar and the flow collection. */
  interruptedAt?: number;
}

/** The first line start in `[from, to)` holding a document marker. */
function markerLineWithin(text: string, from: number, to: number): number | undefined {
  for (let newline = text.indexOf(NEWLINE, from); newline !== -1 && newline < to; newline = text.indexOf(NEWLINE, newline + 1)) {
    if (isMarkerAt(text, newline + 1, '---') || isMarkerAt(text, newline + 1, '...')) return newline + 1;
  }
  return undefined;
}

/**
 * Past a quoted scalar at `start`: its closing quote (`''` inside single quotes and `\"` inside
 * double quotes escape one). A document marker line ends it early, and so does the end of the
 * text when it is never closed.
 */
function skipQuoted(text: string, start: number): ScalarScan {
  const quote = text[start]!;
  let close = text.indexOf(quote, start + 1);
  if (quote === "'") {
    while (close !== -1 && text[close + 1] === "'") close = text.indexOf("'", close + 2);
  } else {
    while (close !== -1) {
      let backslashes = 0;
      while (text[close - 1 - backslashes] === '\\') backslashes++;
      if (backslashes % 2 === 0) break;
      close = text.indexOf('"', close + 1);
    }
  }
  const end = close === -1 ? text.length : close + 1;
  const marker = markerLineWithin(text, start, end);
  return marker === undefined ? { end } : { end, interruptedAt: marker };
}

/**
 * Past a plain scalar at `start` inside a flow collection. It ends before a flow indicator, a
 * `:` followed by a blank or a flow indicator, a blank followed by `#` or a flow indicator, and
 * a line that is a document marker; otherwise it runs on over line ends.
 */
function skipPlainInFlow(text: string, start: number): ScalarScan {
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (ch === ':') {
      const next = text[i + 1];
      if (isBlank(next) || isFlowIndicator(next)) return { end: i };
    } else if (isBlank(ch)) {
      let next = text[i + 1];
      if (ch === '\r' && next === NEWLINE) next = text[++i + 1];
      if (next === '#' || isFlowIndicator(next)) return { end: i };
      if (text[i] === NEWLINE && (isMarkerAt(text, i + 1, '---') || isMarkerAt(text, i + 1, '...'))) return { end: i, interruptedAt: i + 1 };
    } else if (isFlowIndicator(ch)) {
      return { end: i };
    }
  }
  return { end: text.length };
}

type DocumentRoot =
  /** Nothing but comments and properties yet. */
  | { kind: 'unknown' }
  /** A block list whose first `- ` stands at `column`. */
  | { kind: 'block-sequence'; column: number }
  /** A flow list, whose items have been counted. */
  | { kind: 'flow-sequence' }
  | { kind: 'other' };

export function countMonitors(text: string): number {
  let monitors = 0;
  let inDocument = false;
  // Set by the closures below: typed so that the checks after calling them are not narrowed away.
  let root = { kind: 'unknown' } as DocumentRoot;
  let items = 0;
  const beginDocument = () => {
    endDocument();
    inDocument = true;
    root = { kind: 'unknown' };
    items = 0;
  };
  const endDocument = () => {
    if (inDocument) monitors += Math.max(1, items);
    inDocument = false;
  };

  /**
   * Reads the start of a document's root node from `from` on the line that starts at
   * `lineStart`, or notes that the line holds only comments and properties. Returns where
   * reading goes on: the next line start.
   */
  const readRoot = (lineStart: number, from: number, end: number): number => {
    const i = skipProperties(text, skipBlanksInLine(text, from));
    const ch = text[i];
    if ((ch === '-' || ch === '?' || ch === ':') && isBlank(text[i + 1])) {
      if (ch === '-') {
        root = { kind: 'block-sequence', column: i - lineStart };
        items = 1;
      } else root = { kind: 'other' };
    } else if (ch === '[') {
      root = { kind: 'flow-sequence' };
      const scanned = scanRootFlowSequence(text, i + 1);
      items = scanned.items;
      return scanned.resume;
    } else if (i < end && ch !== '#' && !(ch === '\r' && i + 1 === end)) {
      root = { kind: 'other' };
    }
    return end + 1;
  };

  let start = text.startsWith('\ufeff') ? 1 : 0;
  while (start <= text.length) {
    const end = lineEndFrom(text, start);
    let next = end + 1;
    if (isMarkerAt(text, start, '---')) {
      beginDocument();
      next = readRoot(start, start + 3, end);
    } else if (isMarkerAt(text, start, '...')) {
      if (!inDocument) beginDocument();
      endDocument();
    } else if (!inDocument) {
      if (!isOutsideDocuments(text, start, end)) {
        beginDocument();
        next = readRoot(start, start, end);
      }
    } else if (root.kind === 'unknown') {
      next = readRoot(start, start, end);
    } else if (root.kind === 'block-sequence') {
      let indent = 0;
      while (text[start + indent] === ' ') indent++;
      const i = skipBlanksInLine(text, start + indent);
      if (indent <= root.column && text[i] === '-' && isBlank(text[i + 1])) items++;
    }
    start = next;
  }
  endDocument();
  return monitors;
}

/** Items of a list as the parser delimits them: those with a node, or at least a `-`, a property or an indicator. */
function listItems(items: ReadonlyArray<CST.CollectionItem>): number {
  const trivia = new Set(['space', 'newline', 'comment', 'comma']);
  return items.filter((item) => item.value || item.key || item.sep || item.start.some((token) => !trivia.has(token.type))).length;
}

/**
 * Monitors as the parser sees them, from its tokens, before any document is built: one per
 * document, or the items of a document whose root is a list. Never fewer than the documents'
 * lists will hold, however broken the YAML.
 */
export function countParsedMonitors(tokens: readonly CST.Token[]): number {
  let monitors = 0;
  for (const token of tokens) {
    if (token.type !== 'document') continue;
    const root = token.value;
    const isList = root?.type === 'block-seq' || (root?.type === 'flow-collection' && root.start.source === '[');
    monitors += isList ? Math.max(1, listItems(root.items)) : 1;
  }
  return monitors;
}
