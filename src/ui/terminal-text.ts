/**
 * Text from outside (definition files, file names, API responses, web pages) on a terminal. Its
 * control characters would act instead of showing: recolour, move the cursor, retitle the
 * window, hide what follows. They are shown as visible escapes instead (`\x1b`, `\u009b`);
 * newline and tab stay, being layout.
 */
import type { Style } from './style.js';

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** C0 controls but newline and tab, DEL, and C1 controls, as `\xNN` or `\uNNNN`. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (char) => {
    const code = char.charCodeAt(0);
    return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * A line we composed ourselves: our own colour codes around pieces from outside that were
 * escaped where the line was built. Output writes it as it is; plain strings it escapes.
 */
export class Styled {
  constructor(readonly text: string) {}
}

export const styled = (text: string): Styled => new Styled(text);

/**
 * A line of ours as a template: every string put into it is escaped, every Styled kept, so that
 * a piece from outside is not let through by forgetting to escape it, nor our colours escaped:
 * ``styledLine`${output.messageStyle.red('error:')} ${message}` ``.
 */
export function styledLine(parts: TemplateStringsArray, ...pieces: readonly (string | number | Styled)[]): Styled {
  return styled(parts.reduce((line, part, i) => line + part + (i < pieces.length ? shown(pieces[i]!) : ''), ''));
}

const shown = (piece: string | number | Styled) => (piece instanceof Styled ? piece.text : escapeControls(String(piece)));

/** A colour for messages: a string (text from outside) is escaped first, a Styled painted as it is. */
export type MessagePaint = (text: string | Styled) => Styled;
export type MessageStyle = { readonly [Name in keyof Style]: MessagePaint };

export function messageStyle(style: Style): MessageStyle {
  const paint =
    (colour: (text: string) => string): MessagePaint =>
    (text) =>
      styled(colour(shown(text)));
  return {
    bold: paint(style.bold),
    dim: paint(style.dim),
    red: paint(style.red),
    green: paint(style.green),
    yellow: paint(style.yellow),
    cyan: paint(style.cyan),
  };
}
