// Writes a file's non-ASCII characters as \u escapes where that changes nothing, so that the
// bundle is ASCII: V8 then holds it as a one-byte string, which Node reads several times faster
// than UTF-8 with multi-byte characters (4 MiB: about 3 ms against 17 ms, on every command).
// esbuild's `charset: 'ascii'` escapes strings, templates and identifiers; build/bundle.mjs runs
// this on its output for what esbuild leaves, regular expressions (and comments).
// Only where an escape means the same character: inside string literals, untagged template
// literals (a tag could read the raw text), regular expressions, and comments. A file whose
// escaped text does not parse as cleanly as before keeps its original text.
import ts from 'typescript';

const NON_ASCII = /[^\x00-\x7f]/;
const escapeChar = (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** JSON text: outside strings only ASCII whitespace and punctuation can occur. */
export function asciiJson(text) {
  return NON_ASCII.test(text) ? text.replace(/[^\x00-\x7f]/g, escapeChar) : text;
}

const LITERALS = new Set([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
]);

const isTagged = (node) => {
  for (let at = node.parent; at; at = at.parent) {
    if (ts.isTaggedTemplateExpression(at)) return true;
    if (!ts.isTemplateExpression(at) && !ts.isTemplateSpan(at)) return false;
  }
  return false;
};

const parse = (file, text) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
const diagnostics = (source) => source.parseDiagnostics?.length ?? 0;

/** JavaScript text with its non-ASCII characters escaped where they are data or comments. */
export function asciiJavaScript(file, text) {
  if (!NON_ASCII.test(text)) return text;
  const source = parse(file, text);
  // [start, end, literal?] ranges where an escape is the same character.
  const ranges = [];
  const comments = (ranges_) => {
    for (const range of ranges_ ?? []) ranges.push([range.pos, range.end, false]);
  };
  const visit = (node) => {
    comments(ts.getLeadingCommentRanges(text, node.pos));
    comments(ts.getTrailingCommentRanges(text, node.end));
    if (LITERALS.has(node.kind)) {
      if (!isTagged(node)) ranges.push([node.getStart(source), node.end, true]);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  comments(ts.getLeadingCommentRanges(text, source.endOfFileToken.pos));
  ranges.sort((a, b) => a[0] - b[0]);

  let out = '';
  let last = 0;
  for (const [start, end, literal] of ranges) {
    if (start < last) continue; // the same comment reached from two nodes
    out += text.slice(last, start);
    let piece = text.slice(start, end);
    if (NON_ASCII.test(piece)) {
      piece = piece.replace(/(\\*)([^\x00-\x7f])/g, (match, slashes, char) => {
        // A line or paragraph separator ends a line comment, and after a backslash in a string it
        // continues the line: kept as it is in both.
        if ((char === '\u2028' || char === '\u2029') && (!literal || slashes.length % 2 === 1)) return match;
        // In a literal, "\é" is "é": the backslash goes with the character it escaped.
        const kept = literal && slashes.length % 2 === 1 ? slashes.slice(1) : slashes;
        return kept + escapeChar(char);
      });
    }
    out += piece;
    last = end;
  }
  out += text.slice(last);
  return diagnostics(parse(file, out)) === diagnostics(source) ? out : text;
}
