import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  describeTimezoneError,
  latestOccurrenceBetween,
  minIntervalMs,
  nextOccurrences,
  parseSchedule,
  type ParsedSchedule,
  type ScheduleSpec,
} from '../../src/schedule/schedule.js';

const iso = (dates: Date[]) => dates.map((d) => d.toISOString().replace('.000Z', 'Z'));
const at = (text: string) => new Date(text);

function parsed(spec: ScheduleSpec): ParsedSchedule {
  const check = parseSchedule(spec);
  if (!check.ok) throw new Error(check.message);
  return check.schedule;
}

// prettier-ignore
const UTC_CASES: [string, string, string[]][] = [
  ['*/15 * * * *', '2026-01-01T00:07:00Z', ['2026-01-01T00:15:00Z', '2026-01-01T00:30:00Z', '2026-01-01T00:45:00Z']],
  ['*/20 * * * * *', '2026-01-01T00:00:05Z', ['2026-01-01T00:00:20Z', '2026-01-01T00:00:40Z', '2026-01-01T00:01:00Z']],
  ['30 0 12 * * *', '2026-01-01T00:00:00Z', ['2026-01-01T12:00:30Z', '2026-01-02T12:00:30Z']],
  ['0 9 * JAN,JUL MON-FRI', '2026-06-30T12:00:00Z', ['2026-07-01T09:00:00Z', '2026-07-02T09:00:00Z', '2026-07-03T09:00:00Z']],
  ['0 9 * jul mon', '2026-06-30T12:00:00Z', ['2026-07-06T09:00:00Z', '2026-07-13T09:00:00Z']],
  ['0 8-18/5 * * *', '2026-01-01T00:00:00Z', ['2026-01-01T08:00:00Z', '2026-01-01T13:00:00Z', '2026-01-01T18:00:00Z', '2026-01-02T08:00:00Z']],
  ['0,30 9,17 * * *', '2026-01-01T00:00:00Z', ['2026-01-01T09:00:00Z', '2026-01-01T09:30:00Z', '2026-01-01T17:00:00Z', '2026-01-01T17:30:00Z']],
  ['0 0 L * *', '2026-01-15T00:00:00Z', ['2026-01-31T00:00:00Z', '2026-02-28T00:00:00Z', '2026-03-31T00:00:00Z']],
  ['0 0 L 2 *', '2027-03-01T00:00:00Z', ['2028-02-29T00:00:00Z', '2029-02-28T00:00:00Z']],
  ['0 0 15W * *', '2026-02-01T00:00:00Z', ['2026-02-16T00:00:00Z', '2026-03-16T00:00:00Z', '2026-04-15T00:00:00Z']],
  ['0 0 1W * *', '2026-07-15T00:00:00Z', ['2026-08-03T00:00:00Z', '2026-09-01T00:00:00Z']],
  ['0 0 * * 5#3', '2026-01-01T00:00:00Z', ['2026-01-16T00:00:00Z', '2026-02-20T00:00:00Z', '2026-03-20T00:00:00Z']],
  ['0 0 * * MON#1', '2026-01-01T00:00:00Z', ['2026-01-05T00:00:00Z', '2026-02-02T00:00:00Z']],
  ['0 0 * * 5L', '2026-01-01T00:00:00Z', ['2026-01-30T00:00:00Z', '2026-02-27T00:00:00Z', '2026-03-27T00:00:00Z']],
  ['0 0 31 * *', '2026-01-31T00:00:00Z', ['2026-03-31T00:00:00Z', '2026-05-31T00:00:00Z', '2026-07-31T00:00:00Z']],
  ['0 0 29 2 *', '2026-03-01T00:00:00Z', ['2028-02-29T00:00:00Z', '2032-02-29T00:00:00Z']],
  // Day-of-month and day-of-week both restricted: either matches (Friday the 13th fires once).
  ['0 0 13 * FRI', '2026-02-01T00:00:00Z', ['02-06', '02-13', '02-20', '02-27', '03-06', '03-13'].map((d) => `2026-${d}T00:00:00Z`)],
  ['0 0 ? * MON', '2026-01-01T00:00:00Z', ['2026-01-05T00:00:00Z', '2026-01-12T00:00:00Z']],
  ['0 0 * * 7', '2026-01-01T00:00:00Z', ['2026-01-04T00:00:00Z', '2026-01-11T00:00:00Z']],
  ['@yearly', '2026-05-05T00:00:00Z', ['2027-01-01T00:00:00Z', '2028-01-01T00:00:00Z']],
  ['@annually', '2026-05-05T00:00:00Z', ['2027-01-01T00:00:00Z']],
  ['@monthly', '2026-05-05T00:00:00Z', ['2026-06-01T00:00:00Z', '2026-07-01T00:00:00Z']],
  ['@weekly', '2026-05-05T00:00:00Z', ['2026-05-10T00:00:00Z', '2026-05-17T00:00:00Z']],
  ['@daily', '2026-05-05T10:00:00Z', ['2026-05-06T00:00:00Z', '2026-05-07T00:00:00Z']],
  ['@midnight', '2026-05-05T10:00:00Z', ['2026-05-06T00:00:00Z']],
  ['@hourly', '2026-05-05T10:20:00Z', ['2026-05-05T11:00:00Z', '2026-05-05T12:00:00Z']],
];

describe('cron language (UTC)', () => {
  it.each(UTC_CASES)('%s after %s', (schedule, after, expected) => {
    expect(iso(nextOccurrences({ schedule }, at(after), expected.length))).toEqual(expected);
  });

  it('is strictly after `after`, also when `after` is itself an occurrence', () => {
    const next = nextOccurrences({ schedule: '0 * * * *' }, at('2026-01-01T05:00:00Z'), 1);
    expect(iso(next)).toEqual(['2026-01-01T06:00:00Z']);
  });
});

describe('@every', () => {
  it('fires on multiples of the interval counted from the Unix epoch', () => {
    const schedule = parsed({ schedule: '@every 90s' });
    expect(schedule).toMatchObject({ kind: 'every', everyMs: 90_000, timezone: 'UTC' });
    const first = nextOccurrences({ schedule: '@every 90s' }, at('2026-03-01T00:00:10Z'), 3);
    const second = nextOccurrences({ schedule: '@every 90s' }, at('2026-03-01T00:02:59.500Z'), 2);
    expect(iso(first)).toEqual([
      '2026-03-01T00:01:30Z',
      '2026-03-01T00:03:00Z',
      '2026-03-01T00:04:30Z',
    ]);
    expect(iso(second)).toEqual(['2026-03-01T00:03:00Z', '2026-03-01T00:04:30Z']);
  });

  it('parses Go durations and ignores the time zone', () => {
    const after = at('2026-03-01T10:07:00Z');
    const utc = nextOccurrences({ schedule: '@every 1h30m' }, after, 3);
    const kolkata = nextOccurrences(
      { schedule: '@every 1h30m', timezone: 'Asia/Kolkata' },
      after,
      3,
    );
    expect(kolkata).toEqual(utc);
    expect(utc.every((d) => d.getTime() % 5_400_000 === 0)).toBe(true);
    expect(parsed({ schedule: '@every 1h30m', timezone: 'Asia/Kolkata' }).timezone).toBe(
      'Asia/Kolkata',
    );
  });
});

describe('time zones', () => {
  it('defaults to UTC and uses the timezone argument', () => {
    expect(parsed({ schedule: '0 9 * * *' }).timezone).toBe('UTC');
    const tokyo = nextOccurrences(
      { schedule: '0 9 * * *', timezone: 'Asia/Tokyo' },
      at('2026-01-01T12:00:00Z'),
      1,
    );
    expect(iso(tokyo)).toEqual(['2026-01-02T00:00:00Z']);
  });

  it.each([
    ['CRON_TZ=Asia/Tokyo 0 9 * * *', 'Asia/Tokyo', '2026-01-02T00:00:00Z'],
    ['TZ=America/New_York 0 9 * * *', 'America/New_York', '2026-01-01T14:00:00Z'],
  ])('%s overrides the timezone argument', (schedule, zone, first) => {
    const result = parsed({ schedule, timezone: 'Europe/London' });
    expect(result).toMatchObject({ source: schedule, timezone: zone, kind: 'cron' });
    expect(result.nextAfter(at('2026-01-01T12:00:00Z'))?.toISOString()).toBe(
      first.replace('Z', '.000Z'),
    );
  });

  it('describes unknown zones and accepts IANA names', () => {
    expect(describeTimezoneError('Mars/Base')).toBe('unknown time zone "Mars/Base"');
    expect(describeTimezoneError('')).toBe('unknown time zone ""');
    expect(describeTimezoneError('Europe/Berlin')).toBeNull();
    expect(describeTimezoneError('UTC')).toBeNull();
  });
});

describe('rejections', () => {
  // prettier-ignore
  it.each([
    ['', 'schedule is empty'],
    ['   ', 'schedule is empty'],
    ['0 0 *', 'expected 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, got 3'],
    ['0 0 1 1 * 2026', 'day-of-week field "2026" is out of range 0-7'],
    ['0 0 0 1 1 * 2026', 'got 7'],
    ['61 * * * *', 'minute field "61" is out of range 0-59'],
    ['0 24 * * *', 'hour field "24" is out of range 0-23'],
    ['0 0 0 * * *', null],
    ['60 0 0 * * *', 'second field "60" is out of range 0-59'],
    ['0 0 32 * *', 'day-of-month field "32" is out of range 1-31'],
    ['0 0 * 13 *', 'month field "13" is out of range 1-12'],
    ['0 0 * FOO *', 'month field "FOO" has an invalid value "FOO"'],
    ['0 0 * * 8', 'day-of-week field "8" is out of range 0-7'],
    ['0 0 * * 5#6', 'day-of-week field "5#6" has an invalid value'],
    ['0 0 32W * *', 'day-of-month field "32W" is out of range 1-31'],
    ['*/0 * * * *', 'minute field "*/0": step must be between 1 and 60'],
    ['5/10 * * * *', 'minute field "5/10": a step needs * or a range before it'],
    ['0 22-2 * * *', 'hour field "22-2": the range start is after its end'],
    ['0 ? * * *', 'hour field "?" has an invalid value "?"'],
    ['0 0 1,LW * *', 'invalid cron pattern "0 0 1,LW * *"'],
    ['@fortnightly', 'unknown macro "@fortnightly"'],
    ['@reboot', 'unknown macro "@reboot"'],
    ['@every', '@every needs a duration'],
    ['@every soon', 'invalid @every duration "soon"'],
    ['@every 500ms', '@every duration "500ms" is below the 1s minimum'],
    ['@every 0', '@every duration "0" is below the 1s minimum'],
    ['@every 1.5s', '@every duration "1.5s" must be a whole number of seconds'],
    ['CRON_TZ=Mars/Base 0 0 * * *', 'unknown time zone "Mars/Base"'],
    ['CRON_TZ= 0 0 * * *', 'CRON_TZ= prefix needs a time zone name'],
    ['TZ=UTC', 'schedule is empty after the TZ= prefix'],
    ['0 0 30 2 *', 'schedule "0 0 30 2 *" never fires'],
    ['0 0 31 4,6,9,11 *', 'never fires'],
    [`0 0 * * *${' '.repeat(200)}`, 'schedule is longer than 200 characters'],
  ])('%j', (schedule, message) => {
    const check = parseSchedule({ schedule });
    if (message === null) return expect(check.ok).toBe(true);
    expect(check).toEqual({ ok: false, message: expect.stringContaining(message) });
  });

  it('rejects an unknown timezone argument and throws the message from nextOccurrences', () => {
    expect(parseSchedule({ schedule: '0 0 * * *', timezone: 'Mars/Base' })).toEqual({
      ok: false,
      message: 'unknown time zone "Mars/Base"',
    });
    expect(() => nextOccurrences({ schedule: '61 * * * *' }, new Date(0), 1)).toThrow(
      new Error('minute field "61" is out of range 0-59'),
    );
  });
});

describe('latestOccurrenceBetween', () => {
  const window = [at('2026-01-01T00:00:00Z'), at('2026-01-01T01:00:00Z')] as const;

  it('finds the latest per-second occurrence of a one-hour catch-up window quickly', () => {
    const started = performance.now();
    const latest = latestOccurrenceBetween(parsed({ schedule: '* * * * * *' }), ...window);
    expect(latest?.toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('excludes `after`, includes `atOrBefore`, and returns null for an empty window', () => {
    const hourly = parsed({ schedule: '0 * * * *' });
    expect(latestOccurrenceBetween(hourly, ...window)?.toISOString()).toBe(
      '2026-01-01T01:00:00.000Z',
    );
    expect(latestOccurrenceBetween(hourly, window[0], at('2026-01-01T00:59:59Z'))).toBeNull();
    const daily = parsed({ schedule: '30 4 * * *' });
    expect(
      latestOccurrenceBetween(
        daily,
        at('2026-01-01T04:30:00Z'),
        at('2026-01-05T00:00:00Z'),
      )?.toISOString(),
    ).toBe('2026-01-04T04:30:00.000Z');
  });

  it('computes @every arithmetically', () => {
    const every = parsed({ schedule: '@every 7s' });
    const latest = latestOccurrenceBetween(
      every,
      at('2026-01-01T00:00:00Z'),
      at('2026-01-01T00:00:30Z'),
    );
    expect(latest!.getTime() % 7000).toBe(0);
    expect(at('2026-01-01T00:00:30Z').getTime() - latest!.getTime()).toBeLessThan(7000);
    expect(latestOccurrenceBetween(every, latest!, at(latest!.toISOString()))).toBeNull();
  });
});

describe('minIntervalMs', () => {
  it.each([
    ['*/5 * * * *', 300_000],
    ['0,1 0 * * *', 60_000],
    ['*/10 * * * * *', 10_000],
    ['@every 2h', 7_200_000],
    ['@daily', 86_400_000],
  ])('%s -> %d', (schedule, expected) => {
    expect(minIntervalMs(parsed({ schedule }), at('2026-01-01T00:00:00Z'))).toBe(expected);
  });

  it('sees the short day of a spring-forward transition', () => {
    const daily = parsed({ schedule: '@daily', timezone: 'America/New_York' });
    expect(minIntervalMs(daily, at('2026-03-01T00:00:00Z'), 20)).toBe(23 * 3_600_000);
  });
});

describe('properties', () => {
  const piece = (values: string[]) => fc.constantFrom(...values);
  const cronText = fc
    .tuple(
      piece(['0', '*/7', '5,35', '10-20/5', '*']),
      piece(['*', '2', '1-3', '*/5', '0,12', '23']),
      piece(['*', '1', '15W', 'L', '29', '31', '?']),
      piece(['*', '2', 'FEB,MAR', '*/3', '10-12', 'nov']),
      piece(['*', 'MON', '0', '5#3', '5L', 'SAT-SUN', '?']),
    )
    .map((fields) => fields.join(' '));
  const zone = piece([
    'UTC',
    'America/New_York',
    'Europe/London',
    'Australia/Lord_Howe',
    'America/Santiago',
    'Asia/Kathmandu',
  ]);
  const when = fc.date({
    min: new Date('2000-01-01'),
    max: new Date('2060-01-01'),
    noInvalidDate: true,
  });

  it('parseSchedule never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 250 }), fc.option(fc.string()), (schedule, timezone) => {
        const check = parseSchedule({ schedule, timezone: timezone ?? undefined });
        expect(typeof (check.ok ? check.schedule.source : check.message)).toBe('string');
      }),
      { numRuns: 2000 },
    );
    const everything = fc.oneof(fc.anything(), fc.string());
    fc.assert(
      fc.property(everything, everything, (schedule, timezone) => {
        parseSchedule({ schedule, timezone } as unknown as ScheduleSpec);
      }),
    );
  });

  it('nextAfter is strictly increasing for valid schedules', () => {
    fc.assert(
      fc.property(
        fc.oneof(cronText, piece(['@every 13s', '@hourly', '@weekly'])),
        zone,
        when,
        (text, tz, start) => {
          const check = parseSchedule({ schedule: text, timezone: tz });
          if (!check.ok) return;
          let previous = start;
          for (let i = 0; i < 5; i++) {
            const next = check.schedule.nextAfter(previous);
            if (next === null) return;
            expect(next.getTime()).toBeGreaterThan(previous.getTime());
            previous = next;
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('parse cache', () => {
  it('never answers a schedule with another time zone for one it has seen', () => {
    expect(parseSchedule({ schedule: '@hourly' }).ok).toBe(true);
    expect(parseSchedule({ schedule: '@hourly', timezone: '' })).toEqual({
      ok: false,
      message: 'unknown time zone ""',
    });
    const paris = parseSchedule({ schedule: '0 9 * * *', timezone: 'Europe/Paris' });
    const utc = parseSchedule({ schedule: '0 9 * * *' });
    expect(paris.ok && paris.schedule.timezone).toBe('Europe/Paris');
    expect(utc.ok && utc.schedule.timezone).toBe('UTC');
  });
});
