/**
 * How many times a cron expression fires in the 30 days after an instant, by arithmetic on
 * the pattern rather than by stepping through every firing (an every-5-minutes schedule
 * fires 8,640 times a month, and stepping through them costs over half a second).
 * Wall-clock arithmetic in the zone: a DST change inside the window may move one firing.
 */
import { parsePattern, setBits } from '../spec/cron.js';

const DAYS = 30;

const wallClocks = new Map<string, Intl.DateTimeFormat>();

/** The calendar date and minute of the day of an instant in a zone. */
function wallClock(date: Date, timezone: string) {
  let format = wallClocks.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    wallClocks.set(timezone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(date).map((part) => [part.type, Number(part.value)]));
  return { year: parts.year!, month: parts.month!, day: parts.day!, minuteOfDay: parts.hour! * 60 + parts.minute! };
}

/** Counts depend on the minute `from` falls in; lists ask the same ones again and again. */
const counted = new Map<string, number>();
const COUNTED_MAX = 1000;

export function runsPerMonth(cron: string, timezone: string, from: Date): number {
  const key = `${cron}\n${timezone}\n${Math.floor(from.getTime() / 60_000)}`;
  let runs = counted.get(key);
  if (runs === undefined) {
    runs = countRuns(cron, timezone, from);
    if (counted.size >= COUNTED_MAX) counted.clear();
    counted.set(key, runs);
  }
  return runs;
}

function countRuns(cron: string, timezone: string, from: Date): number {
  const pattern = parsePattern(cron);
  const minutes = setBits(pattern.minute);
  const times = setBits(pattern.hour).flatMap((hour) => minutes.map((minute) => hour * 60 + minute));
  // Classic cron: when both day fields are restricted, a day matching either one fires.
  const either = !pattern.starDOM && !pattern.starDOW && !pattern.useAndLogic;
  const fires = (date: Date) => {
    const dayOfMonth = pattern.day[date.getUTCDate() - 1] === 1;
    const dayOfWeek = pattern.dayOfWeek[date.getUTCDay()] !== 0;
    return pattern.month[date.getUTCMonth()] === 1 && (either ? dayOfMonth || dayOfWeek : dayOfMonth && dayOfWeek);
  };
  const start = wallClock(from, timezone);
  let runs = 0;
  // Day 0 counts the firings after `from`, day 30 those up to the same time of day.
  for (let offset = 0; offset <= DAYS; offset++) {
    const date = new Date(Date.UTC(start.year, start.month - 1, start.day + offset));
    if (!fires(date)) continue;
    if (offset === 0) runs += times.filter((time) => time > start.minuteOfDay).length;
    else if (offset === DAYS) runs += times.filter((time) => time <= start.minuteOfDay).length;
    else runs += times.length;
  }
  return runs;
}
