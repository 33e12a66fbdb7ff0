/**
 * Pieces of GitHub-flavoured Markdown built from text that comes from outside (monitor names,
 * field values): it shows as the text it is, never as markup, links or HTML, and never breaks
 * the table it sits in.
 */
import { escapeControls } from '../terminal-text.js';

/** Characters that Markdown or HTML would act on, each escaped with a backslash. */
const ACTIVE = /[\\`*_{}[\]<>()#!|~&]/g;

/** Inline text: one line, its markup characters escaped. */
export function markdownText(text: string): string {
  return escapeControls(text.replace(/\r?\n|\r/g, ' ')).replace(ACTIVE, (char) => `\\${char}`);
}

/**
 * A code span that holds `text` whatever backticks it has (its fence is longer than any run of
 * them inside), with `|` escaped so that a table cell does not end in it.
 */
export function markdownCode(text: string): string {
  const line = escapeControls(text.replace(/\r?\n|\r/g, ' '));
  const longestRun = Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const padded = line.startsWith('`') || line.endsWith('`') ? ` ${line} ` : line;
  return `${fence}${padded.replace(/\|/g, '\\|')}${fence}`;
}

/** A GFM table; cells are Markdown already. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** At most `max` characters (whole code points), with `…` when cut. */
export function shortened(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
