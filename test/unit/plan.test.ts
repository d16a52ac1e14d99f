import { describe, expect, it } from 'vitest';
import { parseSchedule, type ParsedSchedule } from '../../src/schedule/schedule.js';
import { planJob, type OccurrencePlan } from '../../src/scheduler/plan.js';

const HOUR = 3_600_000;

function parsed(schedule: string, timezone = 'UTC'): ParsedSchedule {
  const check = parseSchedule({ schedule, timezone });
  if (!check.ok) throw new Error(check.message);
  return check.schedule;
}

const at = (iso: string) => new Date(iso);
const ms = (iso: string) => Date.parse(iso);

function plan(
  schedule: string,
  job: { dueFrom: string; last?: string },
  now: string,
  windowMs = HOUR,
): { catchUp: string | null; missed: number; next: string | null } {
  const result: OccurrencePlan = planJob(
    parsed(schedule),
    { dueFrom: at(job.dueFrom), lastScheduledAt: job.last ? at(job.last) : null },
    ms(now),
    windowMs,
  );
  return {
    catchUp: result.catchUp?.toISOString() ?? null,
    missed: result.missed,
    next: result.next?.toISOString() ?? null,
  };
}

describe('planJob', () => {
  it('catches nothing up for a job created (or re-enabled, or rescheduled) just now', () => {
    expect(plan('* * * * *', { dueFrom: '2026-03-01T10:05:10Z' }, '2026-03-01T10:05:30Z')).toEqual({
      catchUp: null,
      missed: 0,
      next: '2026-03-01T10:06:00.000Z',
    });
  });

  it('never catches up occurrences before dueFrom, even with older runs on record', () => {
    // Ran hourly until 09:00, schedule changed at 10:04:30: 09:01…10:04 were never due.
    expect(
      plan(
        '* * * * *',
        { dueFrom: '2026-03-01T10:04:30Z', last: '2026-03-01T09:00:00Z' },
        '2026-03-01T10:05:30Z',
      ),
    ).toEqual({
      catchUp: '2026-03-01T10:05:00.000Z',
      missed: 0,
      next: '2026-03-01T10:06:00.000Z',
    });
    // Paused since 08:00, re-enabled at 10:05:10: nothing between was due.
    expect(
      plan(
        '* * * * *',
        { dueFrom: '2026-03-01T10:05:10Z', last: '2026-03-01T08:00:00Z' },
        '2026-03-01T10:05:59Z',
      ),
    ).toEqual({ catchUp: null, missed: 0, next: '2026-03-01T10:06:00.000Z' });
  });

  it('an occurrence exactly at dueFrom was due', () => {
    expect(plan('* * * * *', { dueFrom: '2026-03-01T10:05:00Z' }, '2026-03-01T10:05:30Z')).toEqual({
      catchUp: '2026-03-01T10:05:00.000Z',
      missed: 0,
      next: '2026-03-01T10:06:00.000Z',
    });
  });

  it('catches up the latest missed occurrence once and counts the older ones', () => {
    expect(plan('* * * * *', { dueFrom: '2026-03-01T10:02:10Z' }, '2026-03-01T10:05:30Z')).toEqual({
      catchUp: '2026-03-01T10:05:00.000Z',
      missed: 2, // 10:03 and 10:04
      next: '2026-03-01T10:06:00.000Z',
    });
    expect(
      plan(
        '* * * * *',
        { dueFrom: '2026-03-01T09:00:00Z', last: '2026-03-01T10:03:00Z' },
        '2026-03-01T10:05:30Z',
      ),
    ).toEqual({
      catchUp: '2026-03-01T10:05:00.000Z',
      missed: 1, // 10:04
      next: '2026-03-01T10:06:00.000Z',
    });
  });

  it('catches up nothing when the last claimed occurrence is the latest one', () => {
    expect(
      plan(
        '* * * * *',
        { dueFrom: '2026-03-01T09:00:00Z', last: '2026-03-01T10:05:00Z' },
        '2026-03-01T10:05:30Z',
      ),
    ).toEqual({ catchUp: null, missed: 0, next: '2026-03-01T10:06:00.000Z' });
    // A later occurrence already claimed (by a pod whose clock runs ahead) is no reason either.
    expect(
      plan(
        '* * * * *',
        { dueFrom: '2026-03-01T09:00:00Z', last: '2026-03-01T10:06:00Z' },
        '2026-03-01T10:05:59Z',
      ).catchUp,
    ).toBeNull();
  });

  it('catches up only within the window; older occurrences are counted as missed', () => {
    // Every minute, nothing claimed since 08:00, window 1 h: 09:06…10:05 are in the window.
    const result = plan(
      '* * * * *',
      { dueFrom: '2026-03-01T07:00:00Z', last: '2026-03-01T08:00:00Z' },
      '2026-03-01T10:05:30Z',
    );
    expect(result.catchUp).toBe('2026-03-01T10:05:00.000Z');
    expect(result.next).toBe('2026-03-01T10:06:00.000Z');
    // 59 skipped inside the window, plus at least one (a lower bound) before it.
    expect(result.missed).toBe(60);

    // Hourly, last claimed 08:00, now 09:45, window 30 min: 09:00 is outside the window, so it
    // is not run, only counted.
    expect(
      plan(
        '0 * * * *',
        { dueFrom: '2026-03-01T00:00:00Z', last: '2026-03-01T08:00:00Z' },
        '2026-03-01T09:45:00Z',
        30 * 60_000,
      ),
    ).toEqual({ catchUp: null, missed: 1, next: '2026-03-01T10:00:00.000Z' });

    // Hourly, last 08:00, now 10:30, window 1 h: 10:00 is caught up, 09:00 counted.
    expect(
      plan(
        '0 * * * *',
        { dueFrom: '2026-03-01T00:00:00Z', last: '2026-03-01T08:00:00Z' },
        '2026-03-01T10:30:00Z',
      ),
    ).toEqual({
      catchUp: '2026-03-01T10:00:00.000Z',
      missed: 1,
      next: '2026-03-01T11:00:00.000Z',
    });
  });

  it('window 0 disables catch-up', () => {
    expect(
      plan('* * * * *', { dueFrom: '2026-03-01T09:00:00Z' }, '2026-03-01T10:05:30Z', 0),
    ).toEqual({ catchUp: null, missed: 0, next: '2026-03-01T10:06:00.000Z' });
  });

  it('anchors @every to the epoch', () => {
    // Multiples of 90 s since 1970: …10:04:30, 10:06:00.
    expect(plan('@every 90s', { dueFrom: '2026-03-01T10:00:10Z' }, '2026-03-01T10:05:30Z')).toEqual(
      {
        catchUp: '2026-03-01T10:04:30.000Z',
        missed: 2, // 10:01:30, 10:03:00 (10:00:00 came before dueFrom)
        next: '2026-03-01T10:06:00.000Z',
      },
    );
  });

  it('stays cheap for a per-second job missed for a whole day', () => {
    const result = plan(
      '* * * * * *',
      { dueFrom: '2026-02-28T00:00:00Z', last: '2026-02-28T10:00:00Z' },
      '2026-03-01T10:00:00.500Z',
    );
    expect(result.catchUp).toBe('2026-03-01T10:00:00.000Z');
    expect(result.next).toBe('2026-03-01T10:00:01.000Z');
    expect(result.missed).toBeGreaterThan(999); // counting is capped, but never zero
    expect(result.missed).toBeLessThanOrEqual(1001);
  });
});
