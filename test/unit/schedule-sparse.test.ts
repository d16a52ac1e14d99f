// Sparse schedules (29 February, a weekday that must also be the 29th) jump over the years in
// between instead of walking every daylight-saving segment; the answers must not change.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PREVIEW_HORIZON_YEARS, previewSchedule } from '../../src/jobs/commands.js';
import { parseSchedule } from '../../src/schedule/schedule.js';

const ZONES = Intl.supportedValuesOf('timeZone');

function wallParts(ms: number, zone: string) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  }).formatToParts(ms);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour') };
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

describe('sparse schedules', () => {
  it('find the first 29 February at noon after any instant, in any zone', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.date({
          min: new Date('1971-01-01Z'),
          max: new Date('2150-01-01Z'),
          noInvalidDate: true,
        }),
        (zone, after) => {
          const check = parseSchedule({ schedule: '0 12 29 2 *', timezone: zone });
          if (!check.ok) throw new Error(check.message);
          const at = check.schedule.nextAfter(after);
          expect(at).not.toBeNull();
          const wall = wallParts(at!.getTime(), zone);
          expect([wall.month, wall.day, wall.hour]).toEqual([2, 29, 12]);
          // No leap day was jumped over: the local year is the first one that still has it ahead.
          const start = wallParts(after.getTime(), zone);
          let year = start.year;
          const passed =
            start.month > 2 || (start.month === 2 && start.day === 29 && start.hour >= 12);
          if (!isLeap(year) || passed)
            do year++;
            while (!isLeap(year));
          expect(wall.year).toBe(year);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('preview lists occurrences within its horizon only', async () => {
    const from = new Date('2026-01-01T00:00:00Z');
    const preview = await previewSchedule(
      { schedule: '0 0 29 2 *', timezone: 'Europe/Paris', count: 100, from },
      from,
    );
    expect(PREVIEW_HORIZON_YEARS).toBe(10);
    expect(preview.next).toEqual([2028, 2032].map((y) => `${y}-02-28T23:00:00.000Z`));
  });
});
