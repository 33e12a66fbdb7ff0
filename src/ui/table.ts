/**
 * Rows for people and for scripts. On a terminal: plain columns under a bold header, as gh and
 * kubectl print them, fitted to the terminal's width (the widest columns give way first, cut
 * with …), ids shortened to their shortest unique prefix of at least 8 characters (every command
 * takes a prefix), and times relative to now. Piped: tab-separated rows without a header, every
 * value whole, so `cut -f` and `awk -F'\t'` work.
 */
import type { Output } from './output.js';
import { escapeControls, styled, type Styled } from './terminal-text.js';

export interface TableOptions {
  /** Rows to highlight (changed checks, say), by index. */
  emphasize?: readonly boolean[];
  /** Where the table is written: stdout (data), or stderr (among messages). */
  stream?: 'stdout' | 'stderr';
  /**
   * A column of reasons (errors) that must be read whole: on a terminal too narrow for one, the
   * values cut are listed in full under the table, each after its row's `key` value (its URL).
   */
  whole?: { column: number; key: number; title: string };
}

const GAP = '  ';
const ELLIPSIS = '…';
/** A column is never cut narrower than this. */
const MIN_WIDTH = 6;
const LAST_MIN = 16;
const SHORT_ID = 8;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

export async function renderRows(
  output: Output,
  head: readonly string[],
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): Promise<string | Styled> {
  // Each stream is a terminal or not, in colour or not, on its own.
  const [tty, width, style] =
    options.stream === 'stderr' ? [output.errorTty, output.errorColumns, output.errorStyle] : [output.tty, output.columns, output.style];
  // Plain text, which Output escapes where it must (as data on a terminal, always as a message).
  if (!tty) return rows.map((row) => row.join('\t')).join('\n');
  // Loaded here, not with the module: string-width sets up an Intl.Segmenter (some 15 ms of ICU
  // data), and neither it nor cli-table3 is needed by help or piped output.
  const [{ default: stringWidth }, { default: Table }] = await Promise.all([import('string-width'), import('cli-table3')]);
  const columns = head.map((_, i) =>
    readable(
      rows.map((row) => row[i] ?? ''),
      output.now(),
    ),
  );
  // Cells come from outside (monitor names, URLs, server errors); the header is ours.
  const cells = rows.map((_, r) => head.map((__, i) => escapeControls(columns[i]![r]!).replace(/\s*\n\s*/g, ' ')));
  // An id cut short is no id: id columns keep their width.
  const rigid = head.map((_, i) => rows.some((row) => UUID.test(row[i] ?? '')));
  const widths = fitWidths(
    head.map((title, i) => Math.max(stringWidth(title), ...cells.map((row) => stringWidth(row[i]!)))),
    width,
    rigid,
  );
  // cli-table3 draws the columns, padded and cut with an ellipsis to the widths chosen here, with
  // no box: a gap between columns and nothing else, as gh and kubectl print them.
  const table = new Table({
    head: [...head],
    colWidths: widths,
    wordWrap: false,
    truncate: ELLIPSIS,
    chars: QUIET,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
  });
  table.push(...cells);
  const [header = '', ...lines] = table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd());
  const whole = options.whole;
  const cut = whole ? cells.filter((row) => stringWidth(row[whole.column]!) > widths[whole.column]!) : [];
  const footnotes = cut.length > 0 ? ['', `${whole!.title} in full:`, ...cut.map((row) => `  ${row[whole!.key]}: ${row[whole!.column]}`)] : [];
  return styled([style.bold(header), ...lines.map((line, r) => (options.emphasize?.[r] ? style.yellow(line) : line)), ...footnotes].join('\n'));
}

/** cli-table3's characters for a table without borders: columns apart by GAP, no rules. */
const QUIET = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: GAP,
};

/** One column for people: ids shortened (still unique), instants made relative. */
function readable(values: readonly string[], now: Date): string[] {
  const ids = values.filter((v) => UUID.test(v));
  const length = shortestUniqueLength(ids);
  return values.map((v) => (UUID.test(v) ? v.slice(0, length) : INSTANT.test(v) ? relativeTime(new Date(v), now) : v));
}

function shortestUniqueLength(ids: readonly string[]): number {
  for (let length = SHORT_ID; length < 36; length++) {
    if (new Set(ids.map((id) => id.slice(0, length))).size === new Set(ids).size) return length;
  }
  return 36;
}

/** `just now`, `42 s ago`, `3 min ago`, `5 h ago`, `2 days ago`, `in 10 min`; a date past a month. */
export function relativeTime(then: Date, now: Date): string {
  const seconds = Math.round((now.getTime() - then.getTime()) / 1000);
  if (Number.isNaN(seconds)) return '';
  const ago = Math.abs(seconds);
  const say = (n: number, unit: string) => (seconds >= 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`);
  if (ago < 5) return 'just now';
  if (ago < 60) return say(ago, 's');
  if (ago < 3600) return say(Math.round(ago / 60), 'min');
  if (ago < 86_400) return say(Math.round(ago / 3600), 'h');
  if (ago < 30 * 86_400) {
    const days = Math.round(ago / 86_400);
    return say(days, days === 1 ? 'day' : 'days');
  }
  return then.toISOString().slice(0, 10);
}

/**
 * Widths that fit the terminal. The last column (free text: a summary, an error) gives way
 * first, down to LAST_MIN; then, while the row is still too wide, the widest column gives up a
 * character (never below MIN_WIDTH), so a long URL or name is cut before a short status.
 */
export function fitWidths(natural: readonly number[], terminalColumns: number | undefined, rigid: readonly boolean[] = []): number[] {
  const widths = [...natural];
  if (!terminalColumns) return widths;
  const total = () => widths.reduce((sum, w) => sum + w, 0) + GAP.length * (widths.length - 1);
  const last = widths.length - 1;
  widths[last] = Math.max(Math.min(widths[last]!, LAST_MIN), widths[last]! - (total() - terminalColumns));
  while (total() > terminalColumns) {
    const flexible = widths.map((w, i) => (rigid[i] ? 0 : w));
    const widest = flexible.indexOf(Math.max(...flexible));
    if (widths[widest]! <= MIN_WIDTH) break;
    widths[widest]!--;
  }
  return widths;
}

type Width = (text: string) => number;

/** Text cut to `width` columns, an ellipsis marking the cut. */
export const cutTo =
  (stringWidth: Width) =>
  (text: string, width: number): string => {
    if (stringWidth(text) <= width) return text;
    let kept = '';
    let used = 0;
    for (const character of text) {
      used += stringWidth(character);
      if (used > width - 1) break;
      kept += character;
    }
    return kept + ELLIPSIS;
  };
