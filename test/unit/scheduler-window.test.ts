// The due window: a pod holds only the jobs due within its look-ahead, the database always knows
// each job's next occurrence, and what a pod misses is decided from that record alone.
import { afterEach, describe, expect, it } from 'vitest';
import { planDueJob } from '../../src/scheduler/plan.js';
import { parseSchedule, type ParsedSchedule } from '../../src/schedule/schedule.js';
import { World, type Pod, podStarter } from '../kit/world.js';

const at = (time: string) => Date.parse(`2026-01-01T${time}Z`);
const iso = (ms: number) => new Date(ms).toISOString();
const T0 = at('00:00:00.500');

const starter = podStarter();
const start = (pod: Pod) => starter.start(pod);
afterEach(() => starter.stopAll());

function schedule(text: string): ParsedSchedule {
  const parsed = parseSchedule({ schedule: text, timezone: 'UTC' });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.schedule;
}

describe('planDueJob', () => {
  const everyMinute = schedule('0 * * * * *');
  const dueFrom = new Date(at('00:00:00'));
  const HOUR = 3_600_000;

  it('takes next_run_at ahead as the next occurrence', () => {
    const plan = planDueJob(
      everyMinute,
      { nextRunAt: new Date(at('00:05:00')), dueFrom },
      undefined,
      at('00:04:58'),
      HOUR,
    );
    expect(plan).toEqual({ catchUp: null, missed: 0, next: new Date(at('00:05:00')) });
  });

  it('an overdue next_run_at yields the latest missed occurrence once, the older ones counted', () => {
    const plan = planDueJob(
      everyMinute,
      { nextRunAt: new Date(at('00:01:00')), dueFrom },
      undefined,
      at('00:05:30'),
      HOUR,
    );
    expect(plan).toEqual({
      catchUp: new Date(at('00:05:00')),
      missed: 4,
      next: new Date(at('00:06:00')),
    });
  });

  it('what this pod fired itself is settled, even before the claim moved next_run_at', () => {
    const plan = planDueJob(
      everyMinute,
      { nextRunAt: new Date(at('00:05:00')), dueFrom },
      at('00:05:00'),
      at('00:05:00.400'),
      HOUR,
    );
    expect(plan).toEqual({ catchUp: null, missed: 0, next: new Date(at('00:06:00')) });
  });

  it('never catches up before due_from or outside the window', () => {
    const late = { nextRunAt: new Date(at('00:01:00')), dueFrom: new Date(at('00:04:30')) };
    expect(planDueJob(everyMinute, late, undefined, at('00:05:30'), HOUR).catchUp).toEqual(
      new Date(at('00:05:00')),
    );
    const beforeDue = { nextRunAt: new Date(at('00:01:00')), dueFrom: new Date(at('00:05:10')) };
    expect(planDueJob(everyMinute, beforeDue, undefined, at('00:05:30'), HOUR)).toEqual({
      catchUp: null,
      missed: 0,
      next: new Date(at('00:06:00')),
    });
    const old = { nextRunAt: new Date(at('00:01:00')), dueFrom };
    expect(planDueJob(everyMinute, old, undefined, at('02:00:30'), 0)).toEqual({
      catchUp: null,
      missed: 0,
      next: new Date(at('02:01:00')),
    });
  });
});

describe('Scheduler: the due window', () => {
  it('holds only the jobs due within the look-ahead, however many there are', async () => {
    const world = new World(T0);
    const perSecond = world.store.addJob({ schedule: '* * * * * *' });
    const daily = Array.from({ length: 2000 }, (_, i) =>
      world.store.addJob({ schedule: `0 ${i % 60} ${1 + (i % 20)} * * *` }),
    );
    const pod = start(world.pod());
    await world.clock.advanceTo(at('00:00:20.500'));

    expect(world.runner.callsFor(perSecond.id)).toHaveLength(20);
    // Planned by the sweep (500 a batch): every job's next occurrence is in the database...
    for (const job of daily) expect(world.store.job(job.id).nextRunAt).not.toBeNull();
    // ...and the pod holds the one job due within 5 s, not the 2,001.
    expect(await pod.metric('hermesx_scheduler_jobs_loaded')).toBe(1);
    expect(world.runner.calls.filter((c) => c.request.jobId !== perSecond.id)).toEqual([]);
  });

  it('says when the sweep starts working through an import, and when it has caught up', async () => {
    const world = new World(T0);
    const told: boolean[] = [];
    start(world.pod({ onBulkPlanning: (underway) => told.push(underway) }));
    await world.clock.advanceTo(at('00:00:03'));
    // Nothing to plan yet: nothing said.
    expect(told).toEqual([]);
    // A batch takes 200 ms, so the sweep's 300 ms rounds end on full batches, as in an import.
    world.store.methodLatencyMs.planJobs = 200;
    const jobs = Array.from({ length: 5500 }, (_, i) =>
      world.store.addJob({ schedule: `0 ${i % 60} 12 * * *` }),
    );
    await world.clock.advanceTo(at('00:00:12'));
    expect(told).toEqual([true, false]);
    for (const job of jobs) expect(world.store.job(job.id).nextRunAt).not.toBeNull();
  });

  it('tells the runner which tenants have jobs due within the look-ahead, at each read', async () => {
    const world = new World(T0);
    const soon = 'aaaaaaaa-0000-4000-8000-000000000001';
    const later = 'aaaaaaaa-0000-4000-8000-000000000002';
    world.store.addJob({ schedule: '3 * * * * *', tenantId: soon });
    world.store.addJob({ schedule: '0 0 12 * * *', tenantId: later });
    const told: string[][] = [];
    start(world.pod({ prepareTenants: (ids) => told.push([...ids]) }));
    await world.clock.advanceTo(at('00:00:02.500'));
    // Every read so far saw the job due at 00:00:03, none the one due at noon.
    expect(told.length).toBeGreaterThanOrEqual(2);
    expect(told.every((ids) => ids.length === 1 && ids[0] === soon)).toBe(true);
  });

  it('the database knows every job’s next occurrence: each claim moves it on', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '*/10 * * * * *' });
    start(world.pod());
    await world.clock.advanceTo(at('00:00:05'));
    expect(world.store.job(job.id).nextRunAt).toEqual(new Date(at('00:00:10')));
    await world.clock.advanceTo(at('00:00:10.001'));
    // Moved on by the claim, before the run was even recorded.
    expect(world.store.runsOf(job.id).map((r) => r.status)).toEqual(['success']);
    expect(world.store.job(job.id).nextRunAt).toEqual(new Date(at('00:00:20')));
  });

  it('after a stop of all pods, the next pod catches up from next_run_at alone, once', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *' });
    const first = start(world.pod({ podId: 'pod-a' }));
    await world.clock.advanceTo(at('00:01:00.500'));
    await first.scheduler.stop(1000);
    expect(world.store.job(job.id).nextRunAt).toEqual(new Date(at('00:02:00')));

    await world.clock.advanceTo(at('00:05:30'));
    const second = start(world.pod({ podId: 'pod-b' }));
    await world.clock.advanceTo(at('00:06:00.500'));
    expect(world.store.runsOf(job.id).map((r) => [iso(r.scheduledAt.getTime()), r.podId])).toEqual([
      [iso(at('00:01:00')), 'pod-a'],
      [iso(at('00:05:00')), 'pod-b'],
      [iso(at('00:06:00')), 'pod-b'],
    ]);
    expect(await second.metric('hermesx_scheduler_caught_up_total')).toBe(1);
    expect(await second.metric('hermesx_scheduler_missed_occurrences_total')).toBe(3);
  });

  it('occurrences missed outside the catch-up window move next_run_at on without a run', async () => {
    const world = new World(T0);
    const job = world.store.addJob({
      schedule: '0 * * * * *',
      nextRunAt: new Date(at('00:01:00')),
    });
    await world.clock.advanceTo(at('00:10:30'));
    start(world.pod({ settings: { catchupWindowMs: 0 } }));
    await world.clock.advanceTo(at('00:10:35'));
    expect(world.runner.calls).toEqual([]);
    expect(world.store.job(job.id).nextRunAt).toEqual(new Date(at('00:11:00')));
    await world.clock.advanceTo(at('00:11:00.500'));
    expect(world.runner.callsFor(job.id).map((c) => iso(c.request.scheduledAt.getTime()))).toEqual([
      iso(at('00:11:00')),
    ]);
  });

  it('during a backlog, reads between whole reads skip the overdue rows already handed over', async () => {
    const world = new World(T0);
    const jobs = Array.from({ length: 2500 }, () =>
      world.store.addJob({ schedule: '1 0 0 * * *' }),
    );
    // Runs never end: 100 take the pod's slots, the other 2,400 stay overdue and unclaimed.
    world.runner.behaviour = () => ({ kind: 'hang' });
    const rowsAt = new Map<number, number>();
    const dueJobs = world.store.dueJobs.bind(world.store);
    world.store.dueJobs = async (untilMs, after, limit) => {
      const nowMs = world.clock.now();
      const rows = await dueJobs(untilMs, after, limit);
      rowsAt.set(nowMs, (rowsAt.get(nowMs) ?? 0) + rows.length);
      return rows;
    };
    start(world.pod());
    await world.clock.advanceTo(at('00:00:06'));
    const readAt = (from: string, to: string) =>
      [...rowsAt].filter(([ms]) => ms >= at(from) && ms < at(to)).map(([, rows]) => rows);
    // The reads before their second handed the 2,500 rows over (queued for it); the read after
    // it starts past them, a page or more having come due since, as the next three do (nothing
    // else is due)...
    expect(readAt('00:00:01', '00:00:05')).toEqual([0, 0, 0, 0]);
    // ...and the whole window is read again one look-ahead after the last whole read.
    expect(readAt('00:00:05', '00:00:06')).toEqual([2400]);
    // Nothing was fired twice by those reads.
    expect(world.runner.calls).toHaveLength(100);
    expect(new Set(world.runner.calls.map((c) => c.request.jobId)).size).toBe(100);
    expect(jobs.filter((job) => world.store.runsOf(job.id).length > 0)).toHaveLength(100);
  });

  it('a run-now of a job outside the window loads it and leaves next_run_at alone', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 0 * * * *' });
    const pod = start(world.pod());
    await world.clock.advanceTo(at('00:00:03'));
    expect(world.store.job(job.id).nextRunAt).toEqual(new Date(at('01:00:00')));
    pod.scheduler.trigger(job.id, at('00:00:03'));
    await world.clock.advanceTo(at('00:00:04'));
    expect(world.runner.callsFor(job.id).map((c) => c.request.scheduledAt.getTime())).toEqual([
      at('00:00:03'),
    ]);
    expect(world.store.job(job.id).nextRunAt).toEqual(new Date(at('01:00:00')));
  });
});
