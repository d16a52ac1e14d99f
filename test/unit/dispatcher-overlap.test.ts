// The dispatcher under each overlap policy, with a run function the test ends by hand: how many
// runs of one job it lets be in flight on this pod, and what it skips (counted).
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/scheduler/dispatcher.js';
import { SchedulerEvents } from '../../src/scheduler/events.js';
import { createSchedulerMetrics } from '../../src/scheduler/metrics.js';
import type { LoadedJob, Occurrence } from '../../src/scheduler/occurrence.js';
import type { RunResult } from '../../src/scheduler/pipeline.js';
import type { OverlapPolicy } from '../../src/domain/vocabulary.js';
import { parseSchedule } from '../../src/schedule/schedule.js';
import { FakeClock } from '../kit/clock.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const MINUTE = 60_000;

function setup(policy: OverlapPolicy) {
  const clock = new FakeClock(T0);
  const events = new SchedulerEvents();
  const metrics = createSchedulerMetrics(new Registry());
  const started: Occurrence[] = [];
  const finishers = new Map<number, () => void>();
  const controllers: AbortController[] = [];
  const skipped: { scheduledAtMs: number; reason: string }[] = [];
  events.on('skipped', ({ scheduledAtMs, reason }) => skipped.push({ scheduledAtMs, reason }));
  const dispatcher = new Dispatcher({
    settings: { maxConcurrentRuns: 10, pollIntervalMs: 2000, catchupWindowMs: 10 * MINUTE },
    clock,
    metrics,
    events,
    run: (occurrence, controller) => {
      started.push(occurrence);
      controllers.push(controller);
      return new Promise<RunResult>((resolve) =>
        finishers.set(occurrence.scheduledAtMs, () =>
          resolve({ kind: 'skipped', reason: 'taken' }),
        ),
      );
    },
  });
  dispatcher.activate();
  const parsed = parseSchedule({ schedule: '* * * * *', timezone: 'UTC' });
  if (!parsed.ok) throw new Error('schedule');
  const job: LoadedJob = {
    job: {
      id: 'job-1',
      tenantId: 'tenant-1',
      schedule: '* * * * *',
      timezone: 'UTC',
      dueFrom: new Date(T0),
      updatedAt: new Date(T0),
      nextRunAt: null,
      ...(policy === 'skip' ? {} : { overlap: policy }),
    },
    schedule: parsed.schedule,
  };
  const occurrence = (n: number, kind: Occurrence['kind'] = 'scheduled'): Occurrence => ({
    jobId: 'job-1',
    tenantId: 'tenant-1',
    scheduledAtMs: T0 + n * MINUTE,
    kind,
    job,
  });
  const finish = async (n: number) => {
    finishers.get(T0 + n * MINUTE)?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  const overlapSkips = async () =>
    (await metrics.overlapSkips.get()).values.reduce((sum, v) => sum + v.value, 0);
  return { dispatcher, started, skipped, controllers, occurrence, finish, overlapSkips };
}

describe('Dispatcher and the overlap policy', () => {
  it('skip: one run of the job at a time; a later occurrence is skipped and counted', async () => {
    const t = setup('skip');
    t.dispatcher.offer([t.occurrence(0)]);
    t.dispatcher.offer([t.occurrence(1)]);
    t.dispatcher.offer([t.occurrence(1, 'manual')]);
    expect(t.started.map((o) => o.scheduledAtMs)).toEqual([T0]);
    expect(t.skipped.map((s) => s.reason)).toEqual(['overlap', 'overlap']);
    expect(await t.overlapSkips()).toBe(2);
  });

  it('allow_all: every occurrence of the job runs at once; the same one only once', async () => {
    const t = setup('allow_all');
    t.dispatcher.offer([t.occurrence(0)]);
    t.dispatcher.offer([t.occurrence(1)]);
    t.dispatcher.offer([t.occurrence(2, 'manual')]);
    t.dispatcher.offer([t.occurrence(1, 'catchup')]);
    expect(t.started.map((o) => o.scheduledAtMs)).toEqual([T0, T0 + MINUTE, T0 + 2 * MINUTE]);
    expect(t.dispatcher.snapshot().inFlight).toBe(3);
    expect(t.dispatcher.inFlightAt('job-1', T0 + MINUTE)).toBe(true);
    expect(t.skipped).toEqual([]);
    await t.finish(1);
    expect(t.dispatcher.snapshot().inFlight).toBe(2);
    expect(t.dispatcher.inFlightAt('job-1', T0 + MINUTE)).toBe(false);
  });

  for (const policy of ['buffer_one', 'cancel_other'] as const) {
    it(`${policy}: one occurrence goes to wait beside the running one; a third is skipped`, async () => {
      const t = setup(policy);
      t.dispatcher.offer([t.occurrence(0)]);
      t.dispatcher.offer([t.occurrence(1, 'manual')]);
      t.dispatcher.offer([t.occurrence(2)]);
      expect(t.started.map((o) => o.scheduledAtMs)).toEqual([T0, T0 + MINUTE]);
      expect(t.skipped).toEqual([{ scheduledAtMs: T0 + 2 * MINUTE, reason: 'overlap' }]);
      expect(await t.overlapSkips()).toBe(1);
      // Once the first has ended, the next one may wait again.
      await t.finish(0);
      t.dispatcher.offer([t.occurrence(3)]);
      expect(t.started.map((o) => o.scheduledAtMs)).toEqual([T0, T0 + MINUTE, T0 + 3 * MINUTE]);
    });
  }

  it('aborts one occurrence of a job by its time, or all of them', () => {
    const t = setup('allow_all');
    t.dispatcher.offer([t.occurrence(0)]);
    t.dispatcher.offer([t.occurrence(1)]);
    const [first, second] = t.controllers;
    t.dispatcher.abort('job-1', new Error('stop the first'), T0);
    expect([first!.signal.aborted, second!.signal.aborted]).toEqual([true, false]);
    t.dispatcher.abort('job-1', new Error('stop every run of the job'));
    expect(second!.signal.aborted).toBe(true);
  });
});
