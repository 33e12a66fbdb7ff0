/**
 * Text from outside (definition files, file names, API responses, web pages) on a terminal. Its
 * control characters would act instead of showing: recolour, move the cursor, retitle the
 * window, hide what follows. They are shown as visible escapes instead (`\x1b`, `\u009b`);
 * newline and tab stay, being layout.
 */

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
