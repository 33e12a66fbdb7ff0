import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Cron } from 'croner';
import { formatInZone, nextRunTimes } from '../../src/schedule/next-runs.js';
import { checkTimezone } from '../../src/spec/timezone.js';

describe('time zones', () => {
  it('accepts IANA names, UTC and link names', () => {
    for (const zone of ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata', 'US/Eastern', 'Etc/GMT+5']) {
      assert.equal(checkTimezone(zone), undefined, zone);
    }
  });

  it('rejects what is not a zone, with a suggestion', () => {
    assert.match(checkTimezone('Europe/Pari') ?? '', /not an IANA time zone \(did you mean "Europe\/Paris"\?\)/);
    assert.match(checkTimezone('Mars/Olympus') ?? '', /not an IANA time zone/);
    assert.match(checkTimezone('+02:00') ?? '', /not an IANA time zone/);
  });

  it('wants the real spelling', () => {
    assert.equal(checkTimezone('europe/paris'), 'time zone is spelled "Europe/Paris"');
  });
});

describe('next run times', () => {
  it('follow the zone across the spring-forward change (DST)', () => {
    // New York moves from 02:00 EST to 03:00 EDT on 2026-03-08.
    const runs = nextRunTimes('0 9 * * *', 'America/New_York', 3, new Date('2026-03-07T00:00:00Z'));
    assert.deepEqual(
      runs.map((d) => d.toISOString()),
      ['2026-03-07T14:00:00.000Z', '2026-03-08T13:00:00.000Z', '2026-03-09T13:00:00.000Z'],
    );
  });

  it('run a daily job once when the clock falls back', () => {
    // Paris repeats 02:00-03:00 on 2026-10-25; 02:30 happens twice but the job runs once that day.
    const runs = nextRunTimes('30 2 * * *', 'Europe/Paris', 3, new Date('2026-10-24T12:00:00Z'));
    assert.deepEqual(
      runs.map((d) => formatInZone(d, 'Europe/Paris')),
      ['2026-10-25T02:30:00+02:00', '2026-10-26T02:30:00+01:00', '2026-10-27T02:30:00+01:00'],
    );
  });

  it('move a job whose time does not exist to the first time after the gap', () => {
    const runs = nextRunTimes('30 2 * * *', 'Europe/Paris', 2, new Date('2026-03-28T12:00:00Z'));
    assert.equal(formatInZone(runs[0]!, 'Europe/Paris'), '2026-03-29T03:00:00+02:00');
    assert.equal(formatInZone(runs[1]!, 'Europe/Paris'), '2026-03-30T02:30:00+02:00');
  });

  it('in UTC match the zone-aware answer and are formatted without touching ICU', () => {
    const from = new Date('2026-03-28T23:59:30Z');
    const crons = ['*/7 * * * *', '30 2 * * *', '0 0 29 2 *', '15 9 * * 1-5', '0 */6 1,15 * *'];
    const expected = crons.map((cron) => new Cron(cron, { timezone: 'UTC', mode: '5-part' }).nextRuns(5, from).map((d) => d.toISOString()));
    const real = Intl.DateTimeFormat;
    // Any use of Intl's zone data on the UTC path fails the test.
    Intl.DateTimeFormat = (() => {
      throw new Error('Intl.DateTimeFormat used for a UTC schedule');
    }) as unknown as typeof Intl.DateTimeFormat;
    try {
      for (const zone of ['UTC', 'Etc/UTC']) {
        assert.deepEqual(
          crons.map((cron) => nextRunTimes(cron, zone, 5, from).map((d) => d.toISOString())),
          expected,
          zone,
        );
        assert.equal(formatInZone(new Date('2026-07-01T12:34:56.789Z'), zone), '2026-07-01T12:34:56+00:00');
      }
    } finally {
      Intl.DateTimeFormat = real;
    }
  });

  it('format UTC with a +00:00 offset', () => {
    assert.equal(formatInZone(new Date('2026-01-01T00:00:00Z'), 'UTC'), '2026-01-01T00:00:00+00:00');
  });
});
