import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Cron } from 'croner';
import { runsPerMonth } from '../../src/schedule/runs-per-month.js';

/** The slow, obviously right count: every firing stepped through by croner. */
function stepped(cron: string, timezone: string, from: Date): number {
  const job = new Cron(cron, { timezone, mode: '5-part' });
  const end = from.getTime() + 30 * 24 * 3600 * 1000;
  let runs = 0;
  for (let next = job.nextRun(from); next && next.getTime() <= end; next = job.nextRun(next)) runs++;
  return runs;
}

describe('runsPerMonth', () => {
  const patterns = ['0 * * * *', '*/5 * * * *', '30 9 * * 1-5', '0 0 1,15 * *', '0 12 13 * 5', '15 8-17/3 * 2,3 *', '0 0 29 2 *', '45 23 * * 0'];
  // Instants chosen away from DST changes, in zones with whole and half-hour offsets.
  const cases: [string, string][] = [
    ['UTC', '2026-01-10T10:20:30Z'],
    ['Europe/Paris', '2026-05-03T22:59:00Z'],
    ['Asia/Kolkata', '2026-06-30T18:45:00Z'],
    ['America/New_York', '2026-01-31T04:59:59Z'],
  ];
  for (const cron of patterns) {
    for (const [zone, instant] of cases) {
      it(`${cron} in ${zone} matches stepping through every firing`, () => {
        const from = new Date(instant);
        assert.equal(runsPerMonth(cron, zone, from), stepped(cron, zone, from));
      });
    }
  }

  it('counts February 29 only in leap years', () => {
    assert.equal(runsPerMonth('0 0 29 2 *', 'UTC', new Date('2028-02-10T00:00:00Z')), 1);
    assert.equal(runsPerMonth('0 0 29 2 *', 'UTC', new Date('2027-02-10T00:00:00Z')), 0);
  });

  it('is off by at most the shifted hour across a DST change', () => {
    const from = new Date('2026-03-20T12:00:00Z');
    const difference = Math.abs(runsPerMonth('0 * * * *', 'Europe/Paris', from) - stepped('0 * * * *', 'Europe/Paris', from));
    assert.ok(difference <= 1, `difference ${difference}`);
  });
});
