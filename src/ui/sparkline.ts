/**
 * Numbers over time in a line of text, as spark and many monitoring tools draw them: one block
 * per value, eight heights from the smallest value to the largest. Bars for a table's column.
 */
const TICKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/** One block per value; a value that is not a number (a field a check did not find) is a space. */
export function sparkline(values: readonly (number | null)[], floor?: number): string {
  const numbers = values.filter((value): value is number => value !== null && Number.isFinite(value));
  if (numbers.length === 0) return ' '.repeat(values.length);
  const min = floor ?? Math.min(...numbers);
  const max = Math.max(...numbers);
  const span = max - min;
  return values
    .map((value) => {
      if (value === null || !Number.isFinite(value)) return ' ';
      // All equal: the middle height, so a flat line does not read as zero.
      if (span === 0) return value === 0 && floor === 0 ? TICKS[0] : TICKS[3];
      return TICKS[Math.round(((value - min) / span) * (TICKS.length - 1))];
    })
    .join('');
}

/** A horizontal bar of up to `width` cells for value out of max: whole blocks, then an eighth. */
export function bar(value: number, max: number, width: number): string {
  if (max <= 0 || value <= 0) return '';
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  const partial = eighths % 8;
  return '█'.repeat(Math.floor(eighths / 8)) + (partial ? ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'][partial] : '');
}
