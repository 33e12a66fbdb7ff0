/**
 * Page text without control characters. HTML text cannot carry them meaningfully, and where page
 * text goes on (a terminal behind a pipe, a mail, an assistant) they act instead of reading:
 * retitle a window, write the clipboard (OSC 52), move the cursor. C0 controls but tab and
 * newline go, so do DEL and the C1 controls; a carriage return ends a line.
 */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const ALL_CONTROLS = new RegExp(CONTROLS.source, 'g');

export const withoutControls = (text: string): string => (CONTROLS.test(text) ? text.replace(/\r\n?/g, '\n').replace(ALL_CONTROLS, '') : text);

/** The same for every string of a value (metadata, a model's JSON answer), deeply. */
export function withoutControlsDeep<T>(value: T): T {
  if (typeof value === 'string') return withoutControls(value) as T;
  if (Array.isArray(value)) return value.map(withoutControlsDeep) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, withoutControlsDeep(inner)])) as T;
  return value;
}
