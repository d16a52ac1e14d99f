// parseSchedule is fed whatever users and models type: it must answer, never throw.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextOccurrences, parseSchedule } from '../../src/schedule/schedule.js';

const ZONES = Intl.supportedValuesOf('timeZone');

/** Pieces cron expressions are made of, plus characters that tend to break parsers. */
const TOKENS = [
  '*',
  '?',
  '/',
  '-',
  ',',
  'L',
  'W',
  '#',
  'LW',
  '0',
  '1',
  '5',
  '7',
  '12',
  '15',
  '23',
  '24',
  '31',
  '59',
  '60',
  '99999999999999999999',
  '-1',
  'MON',
  'sun',
  'JAN',
  'dec',
  '@every',
  '@daily',
  '@hourly',
  '@yearly',
  'CRON_TZ=',
  'TZ=',
  'Europe/Paris',
  '1h30m',
  '90s',
  '0.5s',
  '\u0000',
  '\uD800',
  '🙂',
  '\t',
  '\n',
];

const field = fc
  .array(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 4 })
  .map((parts) => parts.join(''));
const cronLike = fc.array(field, { minLength: 1, maxLength: 7 }).map((fields) => fields.join(' '));
const scheduleText = fc.oneof(
  cronLike,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom(...TOKENS, ' '), maxLength: 30 }),
  fc.string({ maxLength: 300 }),
);
const zone = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(...ZONES),
  fc.constantFrom('UTC', 'utc', 'Etc/GMT+12', 'Etc/GMT-14', 'America/New_York', 'Asia/Kolkata'),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const instant = fc.date({
  min: new Date('1900-01-01T00:00:00Z'),
  max: new Date('2200-01-01T00:00:00Z'),
  noInvalidDate: true,
});

describe('parseSchedule (property-based)', () => {
  it('never throws for any text and time zone, and gives a message when it refuses', () => {
    fc.assert(
      fc.property(scheduleText, zone, (schedule, timezone) => {
        const check = parseSchedule({ schedule, timezone });
        if (!check.ok) {
          expect(typeof check.message).toBe('string');
          expect(check.message.length).toBeGreaterThan(0);
        } else {
          expect(check.schedule.source).toBe(schedule);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws for values that are not even strings', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (schedule, timezone) => {
        const check = parseSchedule({ schedule, timezone } as never);
        expect(typeof check.ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });

  it('valid schedules in any zone are accepted and fire strictly later, in order', () => {
    const num = (min: number, max: number) => fc.integer({ min, max }).map(String);
    const part = (min: number, max: number) =>
      fc.oneof(
        fc.constant('*'),
        num(min, max),
        fc
          .tuple(fc.integer({ min, max }), fc.integer({ min, max }))
          .map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
        fc.integer({ min: 1, max: max - min + 1 }).map((step) => `*/${step}`),
        fc
          .uniqueArray(fc.integer({ min, max }), { minLength: 2, maxLength: 4 })
          .map((values) => values.join(',')),
      );
    const fiveFields = fc
      .tuple(part(0, 59), part(0, 23), part(1, 28), part(1, 12), part(0, 6))
      .map((f) => f.join(' '));
    const sixFields = fc.tuple(part(0, 59), fiveFields).map(([s, rest]) => `${s} ${rest}`);
    const macro = fc.constantFrom(
      '@hourly',
      '@daily',
      '@midnight',
      '@weekly',
      '@monthly',
      '@yearly',
    );
    const every = fc
      .tuple(
        fc.integer({ min: 0, max: 48 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 1, max: 59 }),
      )
      .map(([h, m, s]) => `@every ${h}h${m}m${s}s`);
    const schedule = fc.oneof(fiveFields, sixFields, macro, every);
    fc.assert(
      fc.property(schedule, fc.constantFrom(...ZONES), instant, (text, timezone, after) => {
        const check = parseSchedule({ schedule: text, timezone });
        expect(check.ok, `${text} ${timezone}`).toBe(true);
        const next = nextOccurrences({ schedule: text, timezone }, after, 3);
        expect(next.length, `${text} ${timezone} after ${after.toISOString()}`).toBe(3);
        let previous = after.getTime();
        for (const at of next) {
          expect(at.getTime()).toBeGreaterThan(previous);
          previous = at.getTime();
        }
      }),
      { numRuns: 300 },
    );
  });
});
