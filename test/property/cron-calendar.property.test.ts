// The compact calendar must answer every wall-clock question exactly as croner does: croner stays
// the reference for what a pattern means, the calendar is only a cheaper way to ask.
import { Cron } from 'croner';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileCronCalendar, type CronCalendar } from '../../src/schedule/cron-calendar.js';

const RUNS = 3000;

/** The calendar, or null for a pattern croner refuses too. */
function compileOrNull(body: string, fromMs: number): CronCalendar | null {
  try {
    return compileCronCalendar(body);
  } catch {
    expect(() => cronerNext(body, fromMs)).toThrow();
    return null;
  }
}

function cronerNext(body: string, wallMs: number): number | null {
  const cron = new Cron(body, {
    utcOffset: 0,
    paused: true,
    mode: '5-or-6-parts',
    domAndDow: false,
  });
  return cron.nextRun(new Date(wallMs))?.getTime() ?? null;
}

const value = (min: number, max: number) => fc.integer({ min, max }).map(String);
/** A field: *, a value, a range, a step, a list of those. */
const field = (min: number, max: number, extra: fc.Arbitrary<string>[] = []) => {
  const atom = fc.oneof(
    { weight: 3, arbitrary: value(min, max) },
    fc
      .tuple(value(min, max), value(min, max))
      .map(([a, b]) => `${Math.min(+a, +b)}-${Math.max(+a, +b)}`),
    fc
      .tuple(fc.constantFrom('*', String(min)), fc.integer({ min: 1, max: Math.max(1, max - min) }))
      .map(([base, step]) => `${base}/${step}`),
    ...extra,
  );
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant('*') },
    { weight: 3, arbitrary: atom },
    fc.array(atom, { minLength: 2, maxLength: 3 }).map((atoms) => atoms.join(',')),
  );
};
const dayOfMonth = field(1, 31, [
  fc.constant('L'),
  fc.constant('LW'),
  value(1, 31).map((d) => `${d}W`),
  fc.constant('?'),
]);
const dayOfWeek = field(0, 7, [
  value(0, 6).map((d) => `${d}L`),
  fc.tuple(value(0, 6), fc.integer({ min: 1, max: 5 })).map(([d, n]) => `${d}#${n}`),
  value(0, 6).map((d) => `${d}#L`),
  fc.constantFrom('MON-FRI', 'SAT,SUN', 'FRI#L', '?'),
]);
const pattern = fc
  .tuple(
    fc.option(field(0, 59), { nil: undefined }),
    field(0, 59),
    field(0, 23),
    dayOfMonth,
    fc.oneof(field(1, 12), fc.constantFrom('JAN', 'FEB-MAR', 'DEC')),
    dayOfWeek,
  )
  .map((parts) => parts.filter((p) => p !== undefined).join(' '));
const wallMs = fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) });

describe('cron calendar against croner', () => {
  it('gives the same next wall-clock time for random patterns and instants', () => {
    fc.assert(
      fc.property(pattern, wallMs, (body, fromMs) => {
        const calendar = compileOrNull(body, fromMs);
        if (calendar) expect(calendar.next(fromMs)).toBe(cronerNext(body, fromMs));
      }),
      { numRuns: RUNS },
    );
  });

  it('follows a pattern over consecutive occurrences the way croner does', () => {
    fc.assert(
      fc.property(pattern, wallMs, (body, fromMs) => {
        const calendar = compileOrNull(body, fromMs);
        if (!calendar) return;
        let ours: number | null = fromMs;
        let theirs: number | null = fromMs;
        for (let i = 0; i < 5 && ours !== null; i++) {
          ours = calendar.next(ours);
          theirs = cronerNext(body, theirs ?? 0);
          expect(ours).toBe(theirs);
        }
      }),
      { numRuns: RUNS / 3 },
    );
  });

  it('agrees at the edges: month ends, leap days, year 2999, sub-second instants', () => {
    const cases: [string, string][] = [
      ['0 0 29 2 *', '2096-03-01T00:00:00.000Z'],
      ['0 0 29 2 *', '2997-01-01T00:00:00.000Z'],
      ['0 0 1 1 *', '2999-06-01T00:00:00.000Z'],
      ['0 0 L * *', '2024-02-28T23:59:59.999Z'],
      ['0 0 31W * *', '2026-05-01T00:00:00.000Z'],
      ['0 0 1W * *', '2026-08-01T00:00:00.000Z'],
      ['0 0 LW * *', '2026-05-30T00:00:00.000Z'],
      ['0 0 * * 5#L', '2026-01-01T00:00:00.000Z'],
      ['0 0 13 * 5', '2026-01-01T00:00:00.000Z'],
      ['* * * * * *', '2026-11-30T12:00:00.500Z'],
      ['59 59 23 31 12 *', '2026-12-31T23:59:59.000Z'],
      ['0 0 30 2 *', '2026-01-01T00:00:00.000Z'],
      ['0 0 L 2 *', '0099-01-01T00:00:00.000Z'],
      ['0 0 28 2 *', '0099-02-27T00:00:00.000Z'],
      ['0 0 29 2 *', '0095-01-01T00:00:00.000Z'],
    ];
    for (const [body, from] of cases) {
      const fromMs = Date.parse(from);
      expect(compileCronCalendar(body).next(fromMs), `${body} after ${from}`).toBe(
        cronerNext(body, fromMs),
      );
    }
  });
});
