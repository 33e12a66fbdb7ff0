/** Every natural-language form of spec §2.2, and the ones webwatch adds, to cron. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkCron } from '../../src/spec/cron.js';
import { textToCron } from '../../src/spec/schedule-text.js';

const converts = (text: string, cron: string) => {
  const result = textToCron(text);
  assert.deepEqual(result, { ok: true, cron }, `"${text}"`);
  assert.ok(checkCron(cron).ok, `"${cron}" from "${text}" must itself be valid`);
};
const refuses = (text: string, message: RegExp) => {
  const result = textToCron(text);
  assert.ok(!result.ok, `"${text}" should be refused`);
  assert.match(result.message, message);
};

describe('schedule text: the forms of spec §2.2', () => {
  it('every 30 minutes', () => converts('every 30 minutes', '*/30 * * * *'));
  it('every 15 minutes starting at minute :07', () => converts('every 15 minutes starting at minute :07', '7-59/15 * * * *'));
  it('hourly', () => converts('hourly', '0 * * * *'));
  it('every 2 hours', () => converts('every 2 hours', '0 */2 * * *'));
  it('daily', () => converts('daily', '0 0 * * *'));
  it('daily at 9:00', () => converts('daily at 9:00', '0 9 * * *'));
  it('daily at 9 am', () => converts('daily at 9 am', '0 9 * * *'));
  it('daily at 5:30 pm', () => converts('daily at 5:30 pm', '30 17 * * *'));
  it('weekly', () => converts('weekly', '0 0 * * 0'));
});

describe('schedule text: variations', () => {
  it('is case- and space-insensitive', () => {
    converts('  Every   30 Minutes ', '*/30 * * * *');
    converts('DAILY AT 9 AM', '0 9 * * *');
  });

  it('takes other intervals that divide the hour or the day', () => {
    converts('every 5 minutes', '*/5 * * * *');
    converts('every 60 minutes', '0 * * * *');
    converts('every hour', '0 * * * *');
    converts('every 1 hour', '0 * * * *');
    converts('every 6 hours', '0 */6 * * *');
    converts('every 2 hours starting at minute :15', '15 */2 * * *');
    converts('every 20 minutes starting at minute :45', '5-59/20 * * * *');
    converts('every 30 minutes starting at minute :00', '*/30 * * * *');
  });

  it('reads times of day in 24-hour and am/pm forms', () => {
    converts('daily at 17:45', '45 17 * * *');
    converts('daily at 12 am', '0 0 * * *');
    converts('daily at 12 pm', '0 12 * * *');
    converts('daily at 12:30am', '30 0 * * *');
    converts('every day at noon', '0 12 * * *');
    converts('daily at midnight', '0 0 * * *');
  });

  it('reads weekly with a day and a time', () => {
    converts('weekly on monday', '0 0 * * 1');
    converts('weekly on fridays at 5:30 pm', '30 17 * * 5');
    converts('every week on sat at 8:00', '0 8 * * 6');
  });

  it('refuses what it cannot express exactly, saying why', () => {
    refuses('every 2 minutes', /more often than the minimum interval of 5 minutes/);
    refuses('every minute', /more often than the minimum interval/);
    refuses('every 7 minutes', /divides 60 \(5, 6, 10, 12, 15, 20, 30, 60\)/);
    refuses('every 5 hours', /divides 24/);
    refuses('every 15 minutes starting at minute :75', /past :59/);
    refuses('daily at 25:00', /hour 25/);
    refuses('daily at 13 pm', /with am\/pm the hour goes from 1 to 12/);
    refuses('daily at 9', /ambiguous/);
    refuses('daily at 9:75', /minute 75/);
    refuses('weekly on funday', /not a day of the week/);
    refuses('twice a day', /not a schedule webwatch understands/);
  });
});
