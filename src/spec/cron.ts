/**
 * Five-field cron: syntax and range checks with plain messages, and the minimum-interval rule
 * (the smallest gap between two consecutive firing times). The date arithmetic is croner's.
 */
import { Cron, CronPattern } from 'croner';
import { CRON_MIN_INTERVAL_MINUTES } from './limits.js';

export type CronCheck = { ok: true; cron: string } | { ok: false; message: string };

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
  namesStartAt?: number;
}

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES, namesStartAt: 1 },
  // 7 is Sunday too, as in most crons.
  { name: 'day-of-week', min: 0, max: 7, names: DAY_NAMES, namesStartAt: 0 },
];

const NICKNAMES: Record<string, string> = {
  '@hourly': '0 * * * *',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@weekly': '0 0 * * 0',
  '@monthly': '0 0 1 * *',
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
};

const ITEM = /^(\*|[a-z0-9]+(?:-[a-z0-9]+)?)(?:\/([0-9]+))?$/i;

function fieldValue(token: string, field: FieldSpec): number | string {
  if (/^[0-9]+$/.test(token)) {
    const value = Number(token);
    if (value < field.min || value > field.max) {
      return `${field.name} field: ${value} is out of range ${field.min}-${field.max}`;
    }
    return value;
  }
  const index = field.names?.indexOf(token.toLowerCase()) ?? -1;
  if (index < 0) {
    return field.names
      ? `${field.name} field: "${token}" is neither a number nor a name (${field.names.join(', ')})`
      : `${field.name} field: "${token}" is not a number`;
  }
  return index + (field.namesStartAt ?? 0);
}

/** Syntax and range of one field; returns a message, or undefined when the field is fine. */
function checkField(text: string, field: FieldSpec): string | undefined {
  const special = /[?LW#]/i.exec(text.replace(/[a-z]{3}/gi, (word) => (field.names?.includes(word.toLowerCase()) ? '' : word)));
  if (special) {
    return `${field.name} field: "${special[0]}" is not part of standard five-field cron`;
  }
  for (const item of text.split(',')) {
    const match = ITEM.exec(item);
    if (!match) return `${field.name} field: "${item}" is not a value, range, list or step`;
    const [, base, step] = match as unknown as [string, string, string | undefined];
    if (step !== undefined && Number(step) < 1) return `${field.name} field: a step must be at least 1`;
    if (base === '*') continue;
    const [from, to] = base.split('-');
    const start = fieldValue(from!, field);
    if (typeof start === 'string') return start;
    if (to !== undefined) {
      const end = fieldValue(to, field);
      if (typeof end === 'string') return end;
      if (end < start) return `${field.name} field: the range ${base} runs backwards`;
    }
  }
  return undefined;
}

export function parsePattern(cron: string): CronPattern {
  return new CronPattern(cron, 'UTC', { mode: '5-part' });
}

export function setBits(flags: readonly number[]): number[] {
  const values: number[] = [];
  flags.forEach((flag, index) => {
    if (flag) values.push(index);
  });
  return values;
}

const MINUTES_PER_DAY = 24 * 60;

/** Whether the day fields ever match two calendar days in a row (over a 28-year cycle). */
function firesOnConsecutiveDays(fields: readonly string[]): boolean {
  const days = new Cron(`0 0 ${fields[2]} ${fields[3]} ${fields[4]}`, { utcOffset: 0, mode: '5-part' });
  let previous = days.nextRun(new Date(Date.UTC(1999, 11, 31)));
  for (let i = 0; previous && i < 28 * 366; i++) {
    const next = days.nextRun(previous);
    if (!next) return false;
    if (next.getTime() - previous.getTime() === MINUTES_PER_DAY * 60_000) return true;
    previous = next;
  }
  return false;
}

const clock = (minuteOfDay: number) => `${String(Math.floor(minuteOfDay / 60) % 24).padStart(2, '0')}:${String(minuteOfDay % 60).padStart(2, '0')}`;

/**
 * The two closest consecutive firing times, as minutes of the day, when they are closer than
 * the minimum interval. Minute and hour fields do not depend on the day, so one day's firing
 * times tell all gaps but the one across midnight, which exists only on consecutive days.
 * Times are wall-clock: a DST jump is not counted as a shorter gap.
 */
function tooCloseFiringTimes(pattern: CronPattern, fields: readonly string[]): [number, number] | undefined {
  const minutes = setBits(pattern.minute);
  const times = setBits(pattern.hour).flatMap((hour) => minutes.map((minute) => hour * 60 + minute));
  for (let i = 1; i < times.length; i++) {
    if (times[i]! - times[i - 1]! < CRON_MIN_INTERVAL_MINUTES) return [times[i - 1]!, times[i]!];
  }
  const first = times[0]!;
  const last = times[times.length - 1]!;
  if (first + MINUTES_PER_DAY - last < CRON_MIN_INTERVAL_MINUTES && firesOnConsecutiveDays(fields)) {
    return [last, first + MINUTES_PER_DAY];
  }
  return undefined;
}

const checked = new Map<string, CronCheck>();
/** Bounds the memory a long-running process spends on remembered expressions. */
const CHECKED_MAX = 1000;

/**
 * Validates a cron expression and returns it normalised (single spaces, nicknames expanded).
 * Results are remembered: files with many monitors repeat the same few expressions.
 */
export function checkCron(expression: string): CronCheck {
  let result = checked.get(expression);
  if (!result) {
    result = checkCronOnce(expression);
    if (checked.size >= CHECKED_MAX) checked.clear();
    checked.set(expression, result);
  }
  return result;
}

function checkCronOnce(expression: string): CronCheck {
  const trimmed = expression.trim().replace(/\s+/g, ' ');
  if (trimmed === '') return { ok: false, message: 'cron expression is empty' };
  const cron = NICKNAMES[trimmed.toLowerCase()] ?? trimmed;
  if (cron.startsWith('@')) {
    return { ok: false, message: `"${trimmed}" is not a known nickname (${Object.keys(NICKNAMES).join(', ')})` };
  }
  const fields = cron.split(' ');
  if (fields.length !== 5) {
    return {
      ok: false,
      message: `must have five fields (minute hour day-of-month month day-of-week), found ${fields.length}`,
    };
  }
  for (let i = 0; i < FIELDS.length; i++) {
    const problem = checkField(fields[i]!, FIELDS[i]!);
    if (problem) return { ok: false, message: problem };
  }
  let pattern: CronPattern;
  try {
    pattern = parsePattern(cron);
  } catch (error) {
    return { ok: false, message: (error as Error).message.replace(/^CronPattern: /, '') };
  }
  if (!new Cron(cron, { utcOffset: 0, mode: '5-part' }).nextRun()) {
    return { ok: false, message: 'never runs: the day-of-month and month fields match no real date' };
  }
  const close = tooCloseFiringTimes(pattern, fields);
  if (close) {
    const [a, b] = close;
    return {
      ok: false,
      message: `runs more often than every ${CRON_MIN_INTERVAL_MINUTES} minutes: it fires at ${clock(a)} and ${clock(b)}, ${b - a} minute${b - a === 1 ? '' : 's'} apart`,
    };
  }
  return { ok: true, cron };
}

/** Whether two valid cron expressions fire at exactly the same times. */
export function sameSchedule(a: string, b: string): boolean {
  const pa = parsePattern(a);
  const pb = parsePattern(b);
  const same = (x: readonly number[], y: readonly number[]) => x.length === y.length && x.every((v, i) => v === y[i]);
  return (
    same(pa.minute, pb.minute) &&
    same(pa.hour, pb.hour) &&
    same(pa.day, pb.day) &&
    same(pa.month, pb.month) &&
    same(pa.dayOfWeek, pb.dayOfWeek) &&
    pa.starDOM === pb.starDOM &&
    pa.starDOW === pb.starDOW
  );
}
