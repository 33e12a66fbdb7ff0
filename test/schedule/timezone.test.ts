import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatInZone, nextRunTimes } from '../../src/schedule/next-runs.js';
import { checkTimezone } from '../../src/schedule/timezone.js';

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
    assert.deepEqual(runs.map((d) => d.toISOString()), ['2026-03-07T14:00:00.000Z', '2026-03-08T13:00:00.000Z', '2026-03-09T13:00:00.000Z']);
  });

  it('run a daily job once when the clock falls back', () => {
    // Paris repeats 02:00-03:00 on 2026-10-25; 02:30 happens twice but the job runs once that day.
    const runs = nextRunTimes('30 2 * * *', 'Europe/Paris', 3, new Date('2026-10-24T12:00:00Z'));
    assert.deepEqual(runs.map((d) => formatInZone(d, 'Europe/Paris')), [
      '2026-10-25T02:30:00+02:00', '2026-10-26T02:30:00+01:00', '2026-10-27T02:30:00+01:00',
    ]);
  });

  it('move a job whose time does not exist to the first time after the gap', () => {
    const runs = nextRunTimes('30 2 * * *', 'Europe/Paris', 2, new Date('2026-03-28T12:00:00Z'));
    assert.equal(formatInZone(runs[0]!, 'Europe/Paris'), '2026-03-29T03:00:00+02:00');
    assert.equal(formatInZone(runs[1]!, 'Europe/Paris'), '2026-03-30T02:30:00+02:00');
  });

  it('format UTC with a +00:00 offset', () => {
    assert.equal(formatInZone(new Date('2026-01-01T00:00:00Z'), 'UTC'), '2026-01-01T00:00:00+00:00');
  });
});
