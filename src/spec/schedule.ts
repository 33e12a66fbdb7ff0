/** Schedule (spec §2.2): `cron` or `text`, and an IANA `timezone`. */
import { z } from 'zod';
import { checkCron, sameSchedule } from './cron.js';
import { textToCron } from './schedule-text.js';
import { checkTimezone } from './timezone.js';
import { closedObject } from './fields.js';
import { DEFAULT_TIMEZONE } from './limits.js';

export function buildScheduleSchema() {
  return closedObject({
    cron: z.string().optional(),
    text: z.string().optional(),
    timezone: z.string().optional(),
  }).check((ctx) => {
    const { cron, text, timezone } = ctx.value;
    const problem = (path: string, message: string) => ctx.issues.push({ code: 'custom', path: [path], message, input: ctx.value });

    if (cron === undefined && text === undefined) {
      ctx.issues.push({ code: 'custom', message: 'schedule needs cron or text', input: ctx.value });
    }
    const fromCron = cron === undefined ? undefined : checkCron(cron);
    if (fromCron && !fromCron.ok) problem('cron', fromCron.message);
    const fromText = text === undefined ? undefined : textToCron(text);
    if (fromText && !fromText.ok) problem('text', fromText.message);
    else if (fromText?.ok) {
      const checked = checkCron(fromText.cron);
      if (!checked.ok) problem('text', `"${text}" means cron "${fromText.cron}", which ${checked.message}`);
    }
    // Both given: accepted only when they mean the same times, so neither silently wins.
    if (fromCron?.ok && fromText?.ok && !sameSchedule(fromCron.cron, fromText.cron)) {
      problem('text', `schedule gives both cron and text and they differ: text "${text}" means "${fromText.cron}" but cron is "${fromCron.cron}"; keep one`);
    }
    if (timezone !== undefined) {
      const zoneProblem = checkTimezone(timezone);
      if (zoneProblem) problem('timezone', zoneProblem);
    }
  });
}

export type ScheduleInput = z.infer<ReturnType<typeof buildScheduleSchema>>;
export interface StoredSchedule {
  cron: string;
  timezone: string;
}

/** The stored form: cron (from `text` when no cron was given) and the time zone. */
export function normalizeSchedule(schedule: ScheduleInput): StoredSchedule {
  const timezone = schedule.timezone ?? DEFAULT_TIMEZONE;
  if (schedule.cron !== undefined) {
    const checked = checkCron(schedule.cron);
    if (checked.ok) return { cron: checked.cron, timezone };
  }
  const converted = textToCron(schedule.text ?? '');
  if (!converted.ok) throw new Error(`normalizeSchedule called on an invalid schedule: ${converted.message}`);
  return { cron: converted.cron, timezone };
}
