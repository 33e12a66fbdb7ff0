/** Next firing times of a cron expression in a time zone (DST-correct, by croner). */
import { Cron } from 'croner';
import { UTC_ZONES } from '../spec/utc-zones.js';

export function nextRunTimes(cron: string, timezone: string, count: number, from: Date = new Date()): Date[] {
  // A named zone goes through Intl, whose first use loads ICU's zone data (15-40 ms of a
  // command); UTC, the default, needs none of it.
  const zone = UTC_ZONES.has(timezone) ? { utcOffset: 0 } : { timezone };
  return new Cron(cron, { ...zone, mode: '5-part' }).nextRuns(count, from);
}

const zonedFormats = new Map<string, Intl.DateTimeFormat>();

/** ISO-8601 with the zone's offset at that instant: `2026-03-29T03:00:00+02:00`. */
export function formatInZone(date: Date, timezone: string): string {
  if (UTC_ZONES.has(timezone)) return `${date.toISOString().slice(0, 19)}+00:00`;
  let format = zonedFormats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    });
    zonedFormats.set(timezone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : String(parts.timeZoneName).replace('GMT', '');
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}
