/**
 * Natural-language schedules (spec §2.2) to five-field cron. docs/monitors.md ("Schedules") documents the mapping.
 *
 *   every N minutes                       -> *\/N * * * *        (N divides 60)
 *   every N minutes starting at minute :M -> M%N-59/N * * * *
 *   hourly | every hour                   -> 0 * * * *
 *   every N hours [starting at minute :M] -> M *\/N * * *        (N divides 24)
 *   daily | every day                     -> 0 0 * * *
 *   daily at 9:00 | 9 am | 5:30 pm        -> 0 9 * * *, 30 17 * * *
 *   weekly | every week                   -> 0 0 * * 0
 *   weekly on monday [at TIME]            -> 0 0 * * 1
 */
import { CRON_MIN_INTERVAL_MINUTES } from './limits.js';

export type TextConversion = { ok: true; cron: string } | { ok: false; message: string };

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

const divisors = (n: number) => Array.from({ length: n }, (_, i) => i + 1).filter((d) => n % d === 0);

/** `9:00`, `17:30`, `9 am`, `5:30 pm`, `9am`, `noon`, `midnight` -> [hour, minute] or a message. */
function parseTimeOfDay(text: string): [number, number] | string {
  if (text === 'noon') return [12, 0];
  if (text === 'midnight') return [0, 0];
  const match = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$/.exec(text);
  if (!match) return `"${text}" is not a time of day (write 9:00, 17:30, 9 am or 5:30 pm)`;
  let hour = Number(match[1]);
  const minute = match[2] === undefined ? 0 : Number(match[2]);
  const half = match[3]?.replace(/\./g, '');
  if (minute > 59) return `"${text}" has minute ${minute}; minutes go from 00 to 59`;
  if (half) {
    if (hour < 1 || hour > 12) return `"${text}" uses ${half} with hour ${hour}; with am/pm the hour goes from 1 to 12`;
    hour = (hour % 12) + (half === 'pm' ? 12 : 0);
  } else if (match[2] === undefined) {
    return `"${text}" is ambiguous: write ${hour}:00, or add am or pm`;
  } else if (hour > 23) {
    return `"${text}" has hour ${hour}; hours go from 0 to 23`;
  }
  return [hour, minute];
}

function startMinute(text: string | undefined): number | string {
  if (text === undefined) return 0;
  const minute = Number(text);
  return minute > 59 ? `starting minute :${text} is past :59` : minute;
}

export function textToCron(input: string): TextConversion {
  const text = input.trim().toLowerCase().replace(/\s+/g, ' ');
  const fail = (message: string): TextConversion => ({ ok: false, message });
  let match: RegExpExecArray | null;

  if ((match = /^every (\d+|a|one)? ?minutes?(?: starting at minute :?(\d{1,2}))?$/.exec(text))) {
    const every = match[1] === undefined || !/\d/.test(match[1]) ? 1 : Number(match[1]);
    const start = startMinute(match[2]);
    if (typeof start === 'string') return fail(start);
    if (every < CRON_MIN_INTERVAL_MINUTES) {
      return fail(`every ${every} minute${every === 1 ? '' : 's'} is more often than the minimum interval of ${CRON_MIN_INTERVAL_MINUTES} minutes`);
    }
    if (every === 60) return { ok: true, cron: `${start} * * * *` };
    if (60 % every !== 0) {
      return fail(
        `every ${every} minutes cannot be written in cron: use a number that divides 60 (${divisors(60)
          .filter((d) => d >= CRON_MIN_INTERVAL_MINUTES)
          .join(', ')})`,
      );
    }
    const offset = start % every;
    return { ok: true, cron: offset === 0 ? `*/${every} * * * *` : `${offset}-59/${every} * * * *` };
  }

  if ((match = /^(?:hourly|every (\d+ )?hours?)(?: (?:starting )?at minute :?(\d{1,2}))?$/.exec(text))) {
    const every = match[1] === undefined ? 1 : Number(match[1]);
    const start = startMinute(match[2]);
    if (typeof start === 'string') return fail(start);
    if (every < 1 || 24 % every !== 0) {
      return fail(`every ${every} hours cannot be written in cron: use a number that divides 24 (${divisors(24).join(', ')})`);
    }
    return { ok: true, cron: `${start} ${every === 1 ? '*' : `*/${every}`} * * *` };
  }

  if ((match = /^(?:daily|every day)(?: at (.+))?$/.exec(text))) {
    const time = match[1] === undefined ? [0, 0] : parseTimeOfDay(match[1]);
    if (typeof time === 'string') return fail(time);
    return { ok: true, cron: `${time[1]} ${time[0]} * * *` };
  }

  if ((match = /^(?:weekly|every week)(?: on ([a-z]+?)s?)?(?: at (.+))?$/.exec(text))) {
    let day = 0;
    if (match[1] !== undefined) {
      day = DAYS.findIndex((name) => name === match![1] || name.slice(0, 3) === match![1]);
      if (day < 0) return fail(`"${match[1]}" is not a day of the week`);
    }
    const time = match[2] === undefined ? [0, 0] : parseTimeOfDay(match[2]);
    if (typeof time === 'string') return fail(time);
    return { ok: true, cron: `${time[1]} ${time[0]} * * ${day}` };
  }

  return fail(
    `"${input}" is not a schedule webwatch understands; use a form like "every 30 minutes", ` +
      '"every 15 minutes starting at minute :07", "hourly", "every 2 hours", "daily", "daily at 9:00", ' +
      '"daily at 5:30 pm" or "weekly", or give a cron expression',
  );
}
