import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkCron, sameSchedule } from '../../src/spec/cron.js';

const accepts = (cron: string, normalized = cron) => {
  const result = checkCron(cron);
  assert.deepEqual(result, { ok: true, cron: normalized }, `${cron} should be accepted`);
};
const rejects = (cron: string, message: RegExp) => {
  const result = checkCron(cron);
  assert.ok(!result.ok, `${cron} should be rejected`);
  assert.match(result.message, message);
};

describe('cron: the five-minute minimum interval', () => {
  it('measures the smallest gap between consecutive firing times', () => {
    rejects('*/2 * * * *', /fires at 00:00 and 00:02, 2 minutes apart/);
    rejects('0,3 * * * *', /fires at 00:00 and 00:03, 3 minutes apart/);
    rejects('* * * * *', /1 minute apart/);
    rejects('*/4 * * * *', /4 minutes apart/);
    accepts('5,35 * * * *');
    accepts('*/5 * * * *');
    accepts('0,5,10 * * * *');
  });

  it('counts the gap across the hour when consecutive hours fire', () => {
    rejects('0,58 * * * *', /fires at 00:58 and 01:00, 2 minutes apart/);
    rejects('0,58 9,10 * * *', /09:58 and 10:00/);
    accepts('0,58 9 * * *'); // 09:58 is followed by 09:00 the next day
    accepts('0,58 9,11 * * *');
  });

  it('counts the gap across midnight only when consecutive days fire', () => {
    rejects('0,58 0,23 * * *', /23:58 and 00:00, 2 minutes apart/);
    accepts('0,58 0,23 * * 1'); // Monday 23:58 is followed by the next Monday
    rejects('0,58 0,23 * * 1,2', /23:58 and 00:00/);
    rejects('0,58 0,23 28,1 2,3 *', /23:58 and 00:00/); // Feb 28 -> Mar 1 in common years
  });

  it('uses the usual ranges, lists, steps and names', () => {
    accepts('0 9-17/2 * * mon-fri');
    accepts('15 3 1,15 jan,jul *');
    accepts('0 0 * * 7');
    accepts('0 0 * * SUN');
    accepts('  0   9 * *   1 ', '0 9 * * 1');
    accepts('@daily', '0 0 * * *');
    accepts('@hourly', '0 * * * *');
    accepts('@weekly', '0 0 * * 0');
  });

  it('rejects malformed expressions with the field named', () => {
    rejects('', /empty/);
    rejects('0 * * *', /five fields .* found 4/);
    rejects('0 0 * * * *', /five fields .* found 6/);
    rejects('60 * * * *', /minute field: 60 is out of range 0-59/);
    rejects('0 24 * * *', /hour field: 24 is out of range 0-23/);
    rejects('0 0 0 * *', /day-of-month field: 0 is out of range 1-31/);
    rejects('0 0 * 13 *', /month field: 13 is out of range 1-12/);
    rejects('0 0 * * 8', /day-of-week field: 8 is out of range 0-7/);
    rejects('0 0 * foo *', /month field: "foo" is neither a number nor a name/);
    rejects('*/0 * * * *', /step must be at least 1/);
    rejects('30-10 * * * *', /runs backwards/);
    rejects('0 0 L * *', /"L" is not part of standard five-field cron/);
    rejects('0 0 ? * *', /"\?" is not part of standard/);
    rejects('0 0 * * 1#2', /"#" is not part of standard/);
    rejects('0 0 30 2 *', /never runs/);
    rejects('@reboot', /not a known nickname/);
    rejects('0 9 * * mon-', /not a value, range, list or step/);
  });

  it('compares schedules by their firing times, not their spelling', () => {
    assert.ok(sameSchedule('*/30 * * * *', '0,30 * * * *'));
    assert.ok(sameSchedule('0 9 * * 1-5', '0 9 * * mon-fri'));
    assert.ok(!sameSchedule('0 9 * * *', '0 10 * * *'));
  });
});
