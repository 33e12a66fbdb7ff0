/**
 * HTML -> DOM with htmlparser2, the same tree as `parseDocument`, parsed faster.
 *
 * htmlparser2's tokenizer looks at every character through its state machine, even inside
 * text and attribute values, where only `<`, `&` or the closing quote mean anything (with
 * entities decoded, as here). Half of a page's conversion went into that loop. The tokenizer
 * below skips those runs in one tight loop and finds the end of comments and scripts with
 * `indexOf`; everything else, and every callback, stays htmlparser2's own. The states it
 * replaces are internals of htmlparser2 10 (pinned in package-lock.json): should they be
 * missing, parsing falls back to the stock tokenizer.
 */
import { DomHandler, type Document } from 'domhandler';
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

const INTERNALS_PRESENT = ['stateText', 'handleInAttributeValue', 'fastForwardTo'].every((name) => typeof (stock as unknown as Record<string, unknown>)[name] === 'function');

/** The document htmlparser2's `parseDocument(html)` returns, with its default options. */
export function parseHtml(html: string): Document {
  const handler = new DomHandler();
  new Parser(handler, INTERNALS_PRESENT ? { Tokenizer: SkippingTokenizer } : {}).end(html);
  return handler.root;
}
