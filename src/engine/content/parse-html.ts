/**
 * HTML -> DOM with htmlparser2, the same tree as `parseDocument`, parsed faster.
 *
 * htmlparser2's tokenizer looks at every character through its state machine, even inside
 * text and attribute values, where only `<`, `&` or the closing quote mean anything (with
 * entities decoded, as here). Half of a page's conversion went into that loop. The tokenizer
 * below skips those runs in one tight loop and finds the end of comments and scripts with
 * `indexOf`; and the parser lower-cases only names that need it (below). Everything else, and
 * every callback, stays htmlparser2's own. What is replaced are internals of htmlparser2 10
 * (pinned in package-lock.json): should they be missing, parsing falls back to the stock parser.
 */
import { DomHandler, Element, type Document } from 'domhandler';
import { Parser, Tokenizer } from 'htmlparser2';

const LT = 0x3c;
const AMP = 0x26;

/** The tokenizer's own fields and states that the faster one reads and replaces. */
interface TokenizerInternals {
  buffer: string;
  index: number;
  offset: number;
  decodeEntities: boolean;
  stateText(c: number): void;
  handleInAttributeValue(c: number, quote: number): void;
  fastForwardTo(c: number): boolean;
}

const stock = Tokenizer.prototype as unknown as TokenizerInternals;

/**
 * Moves the tokenizer to the character before the next `stop` or `alsoStop` (the parse loop
 * steps onto it), or to the buffer's last character when there is none: what stepping through
 * the characters in between one by one would have done, as they change nothing.
 */
function skipTo(tokenizer: TokenizerInternals, stop: number, alsoStop: number) {
  const { buffer } = tokenizer;
  const end = buffer.length;
  let i = tokenizer.index - tokenizer.offset + 1;
  while (i < end) {
    const c = buffer.charCodeAt(i);
    if (c === stop || c === alsoStop) break;
    i++;
  }
  tokenizer.index = i - 1 + tokenizer.offset;
}

class SkippingTokenizer extends Tokenizer {}

const skipping = SkippingTokenizer.prototype as unknown as TokenizerInternals;
skipping.stateText = function stateText(this: TokenizerInternals, c: number) {
  if (c !== LT && c !== AMP && this.decodeEntities) skipTo(this, LT, AMP);
  else stock.stateText.call(this, c);
};
skipping.handleInAttributeValue = function handleInAttributeValue(this: TokenizerInternals, c: number, quote: number) {
  if (c !== quote && c !== AMP && this.decodeEntities) skipTo(this, quote, AMP);
  else stock.handleInAttributeValue.call(this, c, quote);
};
skipping.fastForwardTo = function fastForwardTo(this: TokenizerInternals, c: number) {
  const found = this.buffer.indexOf(String.fromCharCode(c), this.index - this.offset + 1);
  // Not found: the buffer's last character, for the parse loop to step past (as htmlparser2 does).
  this.index = (found < 0 ? this.buffer.length - 1 : found) + this.offset;
  return found >= 0;
};

/** Whether `name` is its own lower case: ASCII without capitals (nearly every tag and attribute). */
function isLowerAscii(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 128 || (c >= 0x41 && c <= 0x5a)) return false;
  }
  return true;
}

/** The parser's own fields and handlers that the faster one reads and wraps. */
interface ParserInternals {
  lowerCaseTagNames: boolean;
  lowerCaseAttributeNames: boolean;
  getSlice(start: number, end: number): string;
  onopentagname(start: number, endIndex: number): void;
  onclosetag(start: number, endIndex: number): void;
  onattribname(start: number, endIndex: number): void;
  onopentagend(endIndex: number): void;
  closeCurrentTag(isOpenImplied: boolean): void;
  stack: string[];
  endIndex: number;
  startIndex: number;
}

const stockParser = Parser.prototype as unknown as ParserInternals;

/**
 * htmlparser2 lower-cases every tag and attribute name with toLowerCase, which for a page held
 * as a two-byte string (any page with a character beyond Latin-1) is a call into ICU, 8 times
 * slower than for one-byte text: 0.3 ms of an average page. A name that is already lower-case
 * ASCII is taken as it is; any other goes through toLowerCase as before.
 */
class SkippingParser extends Parser {}

const skippingParser = SkippingParser.prototype as unknown as ParserInternals;
type NameFlag = 'lowerCaseTagNames' | 'lowerCaseAttributeNames';

/** The stock handler of a name, told not to lower-case a name that already is. */
function takingLowerCaseAsIs(method: 'onopentagname' | 'onclosetag' | 'onattribname', flag: NameFlag) {
  return function handleName(this: ParserInternals, start: number, endIndex: number) {
    if (!this[flag] || !isLowerAscii(this.getSlice(start, endIndex))) return stockParser[method].call(this, start, endIndex);
    this[flag] = false;
    try {
      stockParser[method].call(this, start, endIndex);
    } finally {
      this[flag] = true;
    }
  };
}
skippingParser.onopentagname = takingLowerCaseAsIs('onopentagname', 'lowerCaseTagNames');
skippingParser.onclosetag = takingLowerCaseAsIs('onclosetag', 'lowerCaseTagNames');
skippingParser.onattribname = takingLowerCaseAsIs('onattribname', 'lowerCaseAttributeNames');

/**
 * Past MAX_DEPTH open elements, an element is closed where it opens, as if written self-closed,
 * and what follows goes to its parent. htmlparser2 keeps its open elements in an array it
 * shifts and unshifts: on a page of 100,000 unclosed `<div>`s that is quadratic (3 s for 1 MB).
 */
skippingParser.onopentagend = function onopentagend(this: ParserInternals, endIndex: number) {
  if (this.stack.length <= MAX_DEPTH) return stockParser.onopentagend.call(this, endIndex);
  this.endIndex = endIndex;
  this.closeCurrentTag(false);
  this.startIndex = endIndex + 1;
};

const present = (prototype: object, names: string[]) => names.every((name) => typeof (prototype as Record<string, unknown>)[name] === 'function');
const INTERNALS_PRESENT =
  present(stock, ['stateText', 'handleInAttributeValue', 'fastForwardTo']) &&
  present(stockParser, ['getSlice', 'onopentagname', 'onclosetag', 'onattribname', 'onopentagend', 'closeCurrentTag']);

/**
 * Elements nested deeper than this go beside the deepest one rather than inside it, as Chromium's
 * parser places them (its limit is 512): a page of 200,000 unclosed `<div>`s otherwise makes a
 * tree that every recursive walk overflows the stack on.
 */
export const MAX_DEPTH = 512;

/**
 * Elements read of one page; the rest of it is not. Real pages hold a few thousand (a long
 * encyclopedia article some 60,000); a tree of 200,000 takes about 200 MB to convert, and a 20 MB
 * page of empty tags would otherwise make 2.6 million (2.2 GB), enough to end the process.
 */
export const MAX_ELEMENTS = 200_000;

/** DomHandler within MAX_DEPTH and MAX_ELEMENTS; says whether it had to stop reading. */
class BoundedHandler extends DomHandler {
  elements = 0;
  truncated = false;

  override onopentag(name: string, attribs: Record<string, string>): void {
    const parent = this.tagStack[this.tagStack.length - 1]!;
    if (++this.elements > MAX_ELEMENTS) this.truncated = true;
    // Too many, or too deep: its own close tag will pop this second entry of the parent.
    if (this.truncated || this.tagStack.length >= MAX_DEPTH) {
      if (!this.truncated) this.addNode(new Element(name, attribs));
      this.tagStack.push(parent);
      return;
    }
    super.onopentag(name, attribs);
  }

  override ontext(data: string): void {
    if (!this.truncated) super.ontext(data);
  }

  override oncomment(data: string): void {
    if (!this.truncated) super.oncomment(data);
  }

  override onprocessinginstruction(name: string, data: string): void {
    if (!this.truncated) super.onprocessinginstruction(name, data);
  }

  override oncdatastart(): void {
    // CDATA only exists in foreign content; past the limit it is dropped with the rest.
    if (!this.truncated) super.oncdatastart();
  }
}

export interface ParsedHtml {
  document: Document;
  /** The page had more than MAX_ELEMENTS elements: only the first were read. */
  truncated: boolean;
}

/** The document htmlparser2's `parseDocument(html)` returns, with its default options, within the bounds above. */
export function parseHtml(html: string): ParsedHtml {
  const handler = new BoundedHandler();
  if (INTERNALS_PRESENT) new SkippingParser(handler, { Tokenizer: SkippingTokenizer }).end(html);
  else new Parser(handler).end(html);
  return { document: handler.root, truncated: handler.truncated };
}
