/**
 * Rows for people and for scripts: a bordered table (cli-table3) on a terminal, tab-separated
 * rows without a header when piped, so `cut -f` and `awk -F'\t'` work.
 */
import type { Output } from './output.js';
import { escapeControls, styled, type Styled } from './terminal-text.js';

export async function renderRows(output: Output, head: readonly string[], rows: readonly (readonly string[])[]): Promise<Styled> {
  if (!output.tty) return styled(rows.map((row) => row.join('\t')).join('\n'));
  // Cells come from outside (monitor names, URLs, server errors); the header is ours.
  const cells = rows.map((row) => row.map(escapeControls));
  const { default: Table } = await import('cli-table3');
  const table = new Table({
    head: head.map((title) => output.style.bold(title)),
    style: { head: [], border: [] },
    wordWrap: true,
    ...(output.columns && { colWidths: fitColumns(cells, head, output.columns) }),
  });
  table.push(...cells);
  return styled(table.toString());
}

/** Widths that fit the terminal: the last column takes what the others leave. */
function fitColumns(rows: readonly (readonly string[])[], head: readonly string[], columns: number): number[] {
  const widths = head.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)) + 2);
  const fixed = widths.slice(0, -1).reduce((sum, w) => sum + w, 0) + widths.length + 1;
  widths[widths.length - 1] = Math.max(10, Math.min(widths[widths.length - 1]!, columns - fixed));
  return widths;
}
