// The pure rules of queued runs: which occurrences a backfill range holds (bounded, oldest
// first, with the one to go on from), and the retry policy's checks.
import { describe, expect, it } from 'vitest';
import { listOccurrences } from '../../src/jobs/backfill.js';
import {
  ControlError,
  DEFAULT_CONTROL_SETTINGS,
  prepareControls,
} from '../../src/jobs/controls.js';
import { parseSchedule } from '../../src/schedule/schedule.js';

const NOW = new Date('2030-01-01T00:00:00Z');

function nextAfterOf(schedule: string, timezone = 'UTC') {
  const check = parseSchedule({ schedule, timezone });
  if (!check.ok) throw new Error(check.message);
  return check.schedule.nextAfter;
}

describe('backfill occurrences', () => {
  it('lists [from, to): from included, to excluded, oldest first', () => {
    const { times, following } = listOccurrences(
      nextAfterOf('0 * * * *'),
      new Date('2029-12-31T21:00:00Z'),
      new Date('2030-01-01T00:00:00Z'),
      100,
    );
    expect(times.map((t) => t.toISOString())).toEqual([
      '2029-12-31T21:00:00.000Z',
      '2029-12-31T22:00:00.000Z',
      '2029-12-31T23:00:00.000Z',
    ]);
    expect(following).toBeNull();
  });

  it('stops at the limit and names the next occurrence', () => {
    const { times, following } = listOccurrences(
      nextAfterOf('* * * * *'),
      new Date('2029-12-31T00:00:00Z'),
      NOW,
      100,
    );
    expect(times).toHaveLength(100);
    expect(times.at(-1)?.toISOString()).toBe('2029-12-31T01:39:00.000Z');
    expect(following?.toISOString()).toBe('2029-12-31T01:40:00.000Z');
  });

  it('follows the schedule’s zone (a DST day has 23 hours of 09:00 local)', () => {
    const { times } = listOccurrences(
      nextAfterOf('0 9 * * *', 'Europe/Paris'),
      new Date('2030-03-30T00:00:00Z'),
      new Date('2030-04-01T00:00:00Z'),
      100,
    );
    expect(times.map((t) => t.toISOString())).toEqual([
      '2030-03-30T08:00:00.000Z',
      '2030-03-31T07:00:00.000Z',
    ]);
  });
});

describe('the retry policy', () => {
  const prepare = (retry: unknown) =>
    prepareControls({ retry } as never, true, undefined, NOW, DEFAULT_CONTROL_SETTINGS).retry;

  it('keeps a valid policy, after_side_effects false by default', () => {
    expect(prepare({ max_attempts: 3, backoff: '30s' })).toEqual({
      maxAttempts: 3,
      backoffMs: 30_000,
      afterSideEffects: false,
    });
    expect(prepare({ max_attempts: 10, backoff: '1h', after_side_effects: true })).toEqual({
      maxAttempts: 10,
      backoffMs: 3_600_000,
      afterSideEffects: true,
    });
    expect(prepare(null)).toBeNull();
  });

  it.each([
    [{ max_attempts: 0, backoff: '30s' }, /max_attempts/],
    [{ max_attempts: 1.5, backoff: '30s' }, /max_attempts/],
    [{ max_attempts: 3, backoff: '1500ms' }, /backoff/],
    [{ max_attempts: 3, backoff: '61m' }, /backoff/],
  ])('refuses %j', (retry, message) => {
    expect(() => prepare(retry)).toThrow(ControlError);
    expect(() => prepare(retry)).toThrow(message);
  });
});
