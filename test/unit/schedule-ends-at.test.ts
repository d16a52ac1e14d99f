// ends_at is part of the pure schedule maths: every pod and the API compute the same last
// occurrence, and catch-up never picks one after it.
import { describe, expect, it } from 'vitest';
import {
  latestOccurrenceBetween,
  nextOccurrences,
  parseSchedule,
} from '../../src/schedule/schedule.js';
import { planJob } from '../../src/scheduler/plan.js';

const at = (text: string) => new Date(text);

describe('ends_at in the schedule maths', () => {
  it('stops cron and @every schedules after ends_at (an occurrence at ends_at still fires)', () => {
    const endsAt = at('2030-01-01T03:00:00Z');
    const hourly = { schedule: '0 * * * *', endsAt };
    expect(
      nextOccurrences(hourly, at('2030-01-01T00:30:00Z'), 10).map((d) => d.toISOString()),
    ).toEqual(['2030-01-01T01:00:00.000Z', '2030-01-01T02:00:00.000Z', '2030-01-01T03:00:00.000Z']);
    const every = { schedule: '@every 90m', endsAt };
    expect(nextOccurrences(every, at('2030-01-01T00:00:00Z'), 10)).toHaveLength(2);
    const check = parseSchedule({ schedule: '0 * * * *' });
    expect(check.ok && check.schedule.nextAfter(at('2030-01-01T03:00:00Z'))).toEqual(
      at('2030-01-01T04:00:00Z'),
    );
  });

  it('never catches up an occurrence after ends_at', () => {
    for (const schedule of ['*/10 * * * *', '@every 10m']) {
      const check = parseSchedule({ schedule, endsAt: at('2030-01-01T00:25:00Z') });
      if (!check.ok) throw new Error(check.message);
      expect(
        latestOccurrenceBetween(
          check.schedule,
          at('2030-01-01T00:00:00Z'),
          at('2030-01-01T00:55:00Z'),
        ),
      ).toEqual(at('2030-01-01T00:20:00Z'));
      const plan = planJob(
        check.schedule,
        { dueFrom: at('2030-01-01T00:00:00Z'), lastScheduledAt: null },
        at('2030-01-01T00:55:00Z').getTime(),
        3_600_000,
      );
      expect(plan).toMatchObject({ catchUp: at('2030-01-01T00:20:00Z'), next: null });
    }
  });
});
