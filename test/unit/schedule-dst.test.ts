import { describe, it, expect } from 'vitest';
import { Cron } from 'croner';
import { nextOccurrences, parseSchedule, type ScheduleSpec } from '../../src/schedule/schedule.js';

// Transitions used below (2026, tzdata as shipped with Node's ICU):
// America/New_York  Mar 8 07:00Z 02:00 EST -> 03:00 EDT; Nov 1 06:00Z 02:00 EDT -> 01:00 EST
// Europe/London     Mar 29 01:00Z 01:00 GMT -> 02:00 BST; Oct 25 01:00Z 02:00 BST -> 01:00 GMT
// Australia/Lord_Howe Apr 4 15:00Z 02:00 -> 01:30; Oct 3 15:30Z 02:00 -> 02:30 (30-minute shift)
// America/Santiago  Apr 5 03:00Z 00:00 -> Apr 4 23:00; Sep 6 04:00Z 00:00 -> 01:00
// America/Havana    Mar 8 05:00Z 00:00 -> 01:00; Asia/Beirut Mar 28 22:00Z 00:00 -> 01:00
// America/Nuuk      Mar 29 01:00Z Mar 28 23:00 -> Mar 29 00:00 (the gap crosses midnight)

const iso = (dates: Date[]) => dates.map((d) => d.toISOString().replace(':00.000Z', 'Z'));
const next = (schedule: string, timezone: string, after: string, count: number) =>
  iso(nextOccurrences({ schedule, timezone }, new Date(after), count));

// prettier-ignore
const DST_CASES: [string, string, string, string[]][] = [
  // New York spring forward: wildcard jobs skip 02:xx, fixed jobs due then fire at 03:00 EDT.
  ['*/30 * * * *', 'America/New_York', '2026-03-08T04:45Z', ['05:00', '05:30', '06:00', '06:30', '07:00', '07:30'].map((t) => `2026-03-08T${t}Z`)],
  ['0 * * * *', 'America/New_York', '2026-03-08T04:45Z', ['2026-03-08T05:00Z', '2026-03-08T06:00Z', '2026-03-08T07:00Z', '2026-03-08T08:00Z']],
  ['30 2 * * *', 'America/New_York', '2026-03-07T12:00Z', ['2026-03-08T07:00Z', '2026-03-09T06:30Z']],
  ['30 1 * * *', 'America/New_York', '2026-03-07T12:00Z', ['2026-03-08T06:30Z', '2026-03-09T05:30Z']],
  ['0 1,2 * * *', 'America/New_York', '2026-03-07T12:00Z', ['2026-03-08T06:00Z', '2026-03-08T07:00Z', '2026-03-09T05:00Z', '2026-03-09T06:00Z']],
  ['30 1-3 * * *', 'America/New_York', '2026-03-07T12:00Z', ['2026-03-08T06:30Z', '2026-03-08T07:00Z', '2026-03-08T07:30Z', '2026-03-09T05:30Z']],
  ['0,30 2 * * *', 'America/New_York', '2026-03-07T12:00Z', ['2026-03-08T07:00Z', '2026-03-09T06:00Z']],
  ['0-30/30 2 * * *', 'America/New_York', '2026-03-07T12:00Z', ['2026-03-08T07:00Z', '2026-03-09T06:00Z']],
  ['*/20 30 2 * * *', 'America/New_York', '2026-03-07T12:00Z', ['2026-03-08T07:00Z', '2026-03-09T06:30Z']],
  // New York fall back: wildcard jobs run in both passes of 01:xx, fixed jobs only in the first.
  ['*/30 * * * *', 'America/New_York', '2026-11-01T04:00Z', ['04:30', '05:00', '05:30', '06:00', '06:30', '07:00'].map((t) => `2026-11-01T${t}Z`)],
  ['0 * * * *', 'America/New_York', '2026-11-01T04:00Z', ['2026-11-01T05:00Z', '2026-11-01T06:00Z', '2026-11-01T07:00Z']],
  ['30 1 * * *', 'America/New_York', '2026-10-31T12:00Z', ['2026-11-01T05:30Z', '2026-11-02T06:30Z']],
  ['30 2 * * *', 'America/New_York', '2026-10-31T12:00Z', ['2026-11-01T07:30Z', '2026-11-02T07:30Z']],
  ['0 1,2 * * *', 'America/New_York', '2026-10-31T12:00Z', ['2026-11-01T05:00Z', '2026-11-01T07:00Z', '2026-11-02T06:00Z']],
  ['*/30 30 1 * * *', 'America/New_York', '2026-10-31T12:00Z', ['2026-11-01T05:30Z', '2026-11-01T05:30:30.000Z', '2026-11-02T06:30Z']],
  // London: the gap is 01:xx and the repeated hour is 01:xx.
  ['*/30 * * * *', 'Europe/London', '2026-03-29T00:00Z', ['2026-03-29T00:30Z', '2026-03-29T01:00Z', '2026-03-29T01:30Z']],
  ['0 * * * *', 'Europe/London', '2026-03-29T00:00Z', ['2026-03-29T01:00Z', '2026-03-29T02:00Z']],
  ['30 1 * * *', 'Europe/London', '2026-03-28T12:00Z', ['2026-03-29T01:00Z', '2026-03-30T00:30Z']],
  ['30 2 * * *', 'Europe/London', '2026-03-28T12:00Z', ['2026-03-29T01:30Z', '2026-03-30T01:30Z']],
  ['0 1,2 * * *', 'Europe/London', '2026-03-28T12:00Z', ['2026-03-29T01:00Z', '2026-03-30T00:00Z', '2026-03-30T01:00Z']],
  ['*/30 * * * *', 'Europe/London', '2026-10-25T00:00Z', ['2026-10-25T00:30Z', '2026-10-25T01:00Z', '2026-10-25T01:30Z', '2026-10-25T02:00Z']],
  ['0 * * * *', 'Europe/London', '2026-10-25T00:00Z', ['2026-10-25T01:00Z', '2026-10-25T02:00Z']],
  ['30 1 * * *', 'Europe/London', '2026-10-24T12:00Z', ['2026-10-25T00:30Z', '2026-10-26T01:30Z']],
  ['0 1,2 * * *', 'Europe/London', '2026-10-24T12:00Z', ['2026-10-25T00:00Z', '2026-10-25T02:00Z', '2026-10-26T01:00Z']],
  // Lord Howe: 01:30-01:59 repeats in April; 02:00-02:29 does not exist in October.
  ['*/30 * * * *', 'Australia/Lord_Howe', '2026-04-04T14:00Z', ['2026-04-04T14:30Z', '2026-04-04T15:00Z', '2026-04-04T15:30Z', '2026-04-04T16:00Z']],
  ['0 * * * *', 'Australia/Lord_Howe', '2026-04-04T13:30Z', ['2026-04-04T14:00Z', '2026-04-04T15:30Z']],
  ['45 1 * * *', 'Australia/Lord_Howe', '2026-04-04T00:00Z', ['2026-04-04T14:45Z', '2026-04-05T15:15Z']],
  ['*/30 * * * *', 'Australia/Lord_Howe', '2026-10-03T14:00Z', ['2026-10-03T14:30Z', '2026-10-03T15:00Z', '2026-10-03T15:30Z', '2026-10-03T16:00Z']],
  ['15 2 * * *', 'Australia/Lord_Howe', '2026-10-03T00:00Z', ['2026-10-03T15:30Z', '2026-10-04T15:15Z']],
  ['0,30 2 * * *', 'Australia/Lord_Howe', '2026-10-03T00:00Z', ['2026-10-03T15:30Z', '2026-10-04T15:00Z', '2026-10-04T15:30Z']],
  // Midnight transitions: a daily job on the spring-forward day fires once, at 01:00.
  ['0 0 * * *', 'America/Santiago', '2026-09-05T00:00Z', ['2026-09-05T04:00Z', '2026-09-06T04:00Z', '2026-09-07T03:00Z']],
  ['0 0 * * *', 'America/Havana', '2026-03-07T00:00Z', ['2026-03-07T05:00Z', '2026-03-08T05:00Z', '2026-03-09T04:00Z']],
  ['0 0 * * *', 'Asia/Beirut', '2026-03-27T12:00Z', ['2026-03-27T22:00Z', '2026-03-28T22:00Z', '2026-03-29T21:00Z']],
  ['30 23 * * *', 'America/Santiago', '2026-04-04T12:00Z', ['2026-04-05T02:30Z', '2026-04-06T03:30Z']],
  ['*/30 23 * * *', 'America/Santiago', '2026-04-04T12:00Z', ['02:00', '02:30', '03:00', '03:30'].map((t) => `2026-04-05T${t}Z`)],
  // A gap that crosses midnight still fires the fixed job, on the next local day.
  ['30 23 * * *', 'America/Nuuk', '2026-03-27T12:00Z', ['2026-03-28T01:30Z', '2026-03-29T01:00Z', '2026-03-30T00:30Z']],
];

describe('Vixie DST semantics', () => {
  it.each(DST_CASES)('%s in %s after %s', (schedule, zone, after, expected) => {
    expect(next(schedule, zone, after, expected.length)).toEqual(expected);
  });

  it.each([
    ['America/Santiago', '2026-09-06T04:00:00Z'],
    ['America/Havana', '2026-03-08T05:00:00Z'],
    ['Asia/Beirut', '2026-03-28T22:00:00Z'],
  ])('%s really springs forward at local midnight (%s)', (timeZone, instant) => {
    const clock = new Intl.DateTimeFormat('en-GB', { timeZone, timeStyle: 'medium' });
    const t = new Date(instant).getTime();
    expect([clock.format(t - 1000), clock.format(t)]).toEqual(['23:59:59', '01:00:00']);
  });
});

// Independent model of Vixie cron: walk real time minute by minute. A wildcard job fires whenever
// the wall clock shows a matching minute; a fixed-time job fires the first time a matching wall
// minute shows, and once right after a forward jump that skipped a matching wall minute.
const clocks = new Map<string, Intl.DateTimeFormat>();
function offsetMinutes(timeZone: string, ms: number): number {
  const clock =
    clocks.get(timeZone) ??
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      ...{ year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' },
    });
  clocks.set(timeZone, clock);
  const parts = clock.formatToParts(ms);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return (Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute')) - ms) / 60_000;
}

/** Wall-clock time (as UTC-like ms) of every real minute in [from, to]. */
function wallClock(zone: string, from: number, to: number): Map<number, number> {
  const walls = new Map<number, number>();
  for (let t = from; t <= to; t += 60_000) walls.set(t, t + offsetMinutes(zone, t) * 60_000);
  return walls;
}

function modelOccurrences(schedule: string, fixed: boolean, walls: Map<number, number>) {
  const all = [...walls.values()];
  const calendar = new Cron(schedule, { utcOffset: 0, paused: true });
  const matching = new Set<number>();
  const last = Math.max(...all);
  for (let w = calendar.nextRun(new Date(Math.min(...all) - 1)); w && w.getTime() <= last;) {
    matching.add(w.getTime());
    w = calendar.nextRun(w);
  }
  const seen = new Set<number>();
  const fired: string[] = [];
  let previousWall: number | undefined;
  for (const [t, wall] of walls) {
    let skippedMatch = false;
    for (let w = (previousWall ?? wall) + 60_000; w < wall; w += 60_000) {
      skippedMatch ||= matching.has(w);
    }
    const due = matching.has(wall) && !(fixed && seen.has(wall));
    if (previousWall !== undefined && ((fixed && skippedMatch) || due)) {
      fired.push(new Date(t).toISOString());
    }
    seen.add(wall);
    previousWall = wall;
  }
  return fired;
}

function occurrencesUntil(spec: ScheduleSpec, from: number, to: number): string[] {
  const check = parseSchedule(spec);
  if (!check.ok) throw new Error(check.message);
  const out: string[] = [];
  for (let d = check.schedule.nextAfter(new Date(from)); d && d.getTime() <= to;) {
    out.push(d.toISOString());
    d = check.schedule.nextAfter(d);
  }
  return out;
}

// prettier-ignore
const WINDOWS: [string, string][] = [
  ['America/New_York', '2026-03-08T07:00Z'], ['America/New_York', '2026-11-01T06:00Z'],
  ['Europe/London', '2026-03-29T01:00Z'], ['Europe/London', '2026-10-25T01:00Z'],
  ['Australia/Lord_Howe', '2026-04-04T15:00Z'], ['Australia/Lord_Howe', '2026-10-03T15:30Z'],
  ['America/Santiago', '2026-04-05T03:00Z'], ['America/Santiago', '2026-09-06T04:00Z'],
  ['America/Havana', '2026-03-08T05:00Z'], ['Asia/Beirut', '2026-10-24T21:00Z'],
  ['America/Nuuk', '2026-03-29T01:00Z'], ['America/Nuuk', '2026-10-25T01:00Z'],
  ['Africa/Cairo', '2026-04-23T22:00Z'],
];
/** [pattern, fixed-time by Vixie's rule (neither minute nor hour starts with `*`)] */
// prettier-ignore
const PATTERNS: [string, boolean][] = [
  ['*/30 * * * *', false], ['0 * * * *', false], ['*/15 * * * *', false], ['* 2 * * *', false],
  ['0-30/30 * * * *', false], ['30 2 * * *', true], ['30 1 * * *', true], ['0 1,2 * * *', true],
  ['0 0 * * *', true], ['30 23 * * *', true], ['15,45 0-3 * * *', true], ['0 0-23/2 * * *', true],
  ['0-30/30 2 * * *', true],
];
const windowAround = (transition: string, hours = 30) => {
  const at = new Date(transition).getTime();
  return [at - hours * 3_600_000, at + hours * 3_600_000] as const;
};

describe('agreement with a minute-by-minute model of Vixie cron', () => {
  it.each(WINDOWS)('%s around %s', (zone, transition) => {
    const [from, to] = windowAround(transition);
    const walls = wallClock(zone, from, to);
    for (const [schedule, fixed] of PATTERNS) {
      const ours = occurrencesUntil({ schedule, timezone: zone }, from, to);
      expect({ schedule, fired: ours }).toEqual({
        schedule,
        fired: modelOccurrences(schedule, fixed, walls),
      });
    }
  });
});

describe("croner 11.0.1's own timezone mode, for reference", () => {
  const cronerJob = (schedule: string, timezone: string) =>
    new Cron(schedule, { timezone, paused: true, fixedTimeRule: 'no-wildcard' });

  it('agrees where its fixed-time rule matches Vixie and no gap crosses midnight', () => {
    const agreeing = PATTERNS.filter(([p]) => !p.includes('/') || p.startsWith('*/'));
    for (const [zone, transition] of WINDOWS.filter(([zone]) => zone !== 'America/Nuuk')) {
      const [from, to] = windowAround(transition, 14);
      for (const [schedule] of agreeing) {
        const job = cronerJob(schedule, zone);
        const theirs: string[] = [];
        for (let d = job.nextRun(new Date(from)); d && d.getTime() <= to; d = job.nextRun(d)) {
          theirs.push(d.toISOString());
        }
        const ours = occurrencesUntil({ schedule, timezone: zone }, from, to);
        expect({ schedule, zone, ours }).toEqual({ schedule, zone, ours: theirs });
      }
    }
  });

  // prettier-ignore
  it.each([
    // Steps without a leading * are interval jobs to croner: skipped in the gap.
    ['0-30/30 2 * * *', 'America/New_York', '2026-03-08T00:00Z', ['2026-03-09T06:00Z'], ['2026-03-08T07:00Z']],
    // A seconds wildcard makes an interval job to croner: skipped in the gap.
    ['*/20 30 2 * * *', 'America/New_York', '2026-03-08T00:00Z', ['2026-03-09T06:30Z'], ['2026-03-08T07:00Z']],
    // croner moves a job out of a gap only within the same local day.
    ['30 23 * * *', 'America/Nuuk', '2026-03-28T00:00Z', ['2026-03-28T01:30Z', '2026-03-30T00:30Z'], ['2026-03-28T01:30Z', '2026-03-29T01:00Z']],
  ])('differs from Vixie for %s in %s', (schedule, zone, after, fromCroner, fromUs) => {
    const theirs = cronerJob(schedule, zone).nextRuns(fromCroner.length, new Date(after));
    expect(iso(theirs)).toEqual(fromCroner);
    expect(next(schedule, zone, after, fromUs.length)).toEqual(fromUs);
  });
});
