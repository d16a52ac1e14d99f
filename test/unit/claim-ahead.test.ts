// SCHEDULER_CLAIM_AHEAD: occurrences take their lock and claim while every model slot is busy,
// so a slot is held for the agent's call only; at most SCHEDULER_MAX_CONCURRENT_RUNS calls at
// once; a stop hands the claims still waiting back for adoption instead of sending them.
import { afterEach, describe, expect, it } from 'vitest';
import { SendPermits } from '../../src/scheduler/send-permits.js';
import { World, type Pod, podStarter } from '../kit/world.js';

const at = (time: string) => Date.parse(`2026-01-01T${time}Z`);
const iso = (ms: number) => new Date(ms).toISOString();
const T0 = at('00:00:00.500');

const starter = podStarter();
const start = (pod: Pod) => starter.start(pod);
afterEach(() => starter.stopAll());

describe('SendPermits', () => {
  const signal = () => new AbortController().signal;

  it('grants up to its size, then first come first served as permits come back', async () => {
    const permits = new SendPermits(2);
    expect(await permits.acquire(signal())).toBe('granted');
    expect(await permits.acquire(signal())).toBe('granted');
    const order: string[] = [];
    const third = permits.acquire(signal()).then((a) => order.push(`third ${a}`));
    const fourth = permits.acquire(signal()).then((a) => order.push(`fourth ${a}`));
    expect(permits.waiting).toBe(2);
    permits.release();
    await third;
    expect(order).toEqual(['third granted']);
    permits.release();
    await fourth;
    expect(order).toEqual(['third granted', 'fourth granted']);
    expect(permits.inUse).toBe(2);
    permits.release();
    permits.release();
    expect(permits.inUse).toBe(0);
  });

  it('tryTake takes a free permit only when nobody waits', async () => {
    const permits = new SendPermits(1);
    expect(permits.tryTake()).toBe(true);
    expect(permits.tryTake()).toBe(false);
    const waiting = permits.acquire(signal());
    permits.release();
    expect(await waiting).toBe('granted');
    expect(permits.tryTake()).toBe(false);
  });

  it('an abort ends a wait without a permit and leaves the queue', async () => {
    const permits = new SendPermits(1);
    await permits.acquire(signal());
    const controller = new AbortController();
    const waiting = permits.acquire(controller.signal);
    controller.abort();
    expect(await waiting).toBe('aborted');
    expect(permits.waiting).toBe(0);
    expect(await permits.acquire(controller.signal)).toBe('aborted');
    permits.release();
    expect(permits.inUse).toBe(0);
  });

  it('a stop tells every waiter, and grants nothing more', async () => {
    const permits = new SendPermits(1);
    await permits.acquire(signal());
    const waiters = [permits.acquire(signal()), permits.acquire(signal())];
    permits.stop();
    expect(await Promise.all(waiters)).toEqual(['stopped', 'stopped']);
    permits.release();
    expect(await permits.acquire(signal())).toBe('stopped');
    expect(permits.tryTake()).toBe(false);
  });
});

describe('Scheduler: claims ahead of the model slots', () => {
  it('claims while the slots are busy, calls at most maxConcurrentRuns at once, runs each once', async () => {
    const world = new World(T0);
    const jobs = Array.from({ length: 5 }, (_, i) =>
      world.store.addJob({ schedule: '0 * * * * *', name: `job-${i}` }),
    );
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 10_000 });
    const pod = start(world.pod({ settings: { maxConcurrentRuns: 2, claimAheadRuns: 2 } }));

    await world.clock.advanceTo(at('00:01:00.100'));
    // Two call their agent; two more are claimed and wait for a slot; the fifth waits unclaimed.
    expect(world.runner.active).toBe(2);
    const statuses = jobs.flatMap((job) => world.store.runsOf(job.id).map((r) => r.status));
    expect(statuses.sort()).toEqual(['running', 'running', 'running', 'running']);

    await world.clock.advanceTo(at('00:01:40'));
    expect(world.runner.maxActive).toBe(2);
    // The claimed ones start the moment a slot frees, not a claim later.
    expect(world.runner.calls.map((c) => iso(c.startedMs))).toEqual([
      ...Array(2).fill(iso(at('00:01:00'))),
      ...Array(2).fill(iso(at('00:01:10'))),
      iso(at('00:01:20')),
    ]);
    for (const job of jobs) {
      expect(world.store.runsOf(job.id).map((r) => r.status)).toEqual(['success']);
    }
    expect(await pod.metric('hermesx_scheduler_runs_in_flight')).toBe(0);
  });

  it('a run cancelled while it waits for a slot is recorded cancelled, and nothing is sent', async () => {
    const world = new World(T0);
    const [first, second] = ['first', 'second'].map((name) =>
      world.store.addJob({ schedule: '0 * * * * *', name }),
    );
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 10_000 });
    const pod = start(world.pod({ settings: { maxConcurrentRuns: 1, claimAheadRuns: 1 } }));
    await world.clock.advanceTo(at('00:01:00.100'));
    const sent = world.runner.calls[0]?.request.jobId;
    const waiting = sent === first?.id ? second : first;
    const [run] = world.store.runsOf(waiting?.id ?? '');
    expect(run).toMatchObject({ status: 'running' });

    pod.scheduler.cancelRun(waiting?.id ?? '', run?.id ?? '');
    await world.clock.advanceTo(at('00:01:00.500'));
    expect(world.store.runsOf(waiting?.id ?? '')).toMatchObject([
      { status: 'failed', errorKind: 'cancelled', attempts: 0 },
    ]);
    expect(world.runner.calls.map((c) => c.request.jobId)).toEqual([sent]);
    // Its place was given back: the slot still serves one call at a time.
    await world.clock.advanceTo(at('00:01:30'));
    expect(world.runner.maxActive).toBe(1);
  });

  it('a stop hands the claims still waiting for a slot back, and another pod runs them once', async () => {
    const world = new World(T0);
    const jobs = Array.from({ length: 3 }, (_, i) =>
      world.store.addJob({ schedule: '0 * * * * *', name: `job-${i}` }),
    );
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 5_000 });
    const leaving = world.pod({
      podId: 'pod-a',
      settings: { maxConcurrentRuns: 1, claimAheadRuns: 2 },
    });
    leaving.scheduler.start();
    await world.clock.advanceTo(at('00:01:00.100'));
    expect(world.runner.active).toBe(1);
    const sentJob = world.runner.calls[0]?.request.jobId;

    let stopped = false;
    void leaving.scheduler.stop(30_000).then(() => (stopped = true));
    await world.clock.until(() => stopped, 40_000, 'stopped');
    // The one sending finished within the grace; the two waiting were never sent, and are
    // claimed again, for adoption, not failed as runs that may have reached the model.
    expect(world.runner.calls).toHaveLength(1);
    for (const job of jobs) {
      const runs = world.store.runsOf(job.id);
      expect(runs).toHaveLength(1);
      if (job.id === sentJob) expect(runs[0]).toMatchObject({ status: 'success' });
      else expect(runs[0]).toMatchObject({ status: 'claimed', attempts: 0, modelCalledAt: null });
    }

    const staying = start(world.pod({ podId: 'pod-b' }));
    await world.clock.advanceTo(at('00:01:55'));
    for (const job of jobs) {
      expect(world.store.runsOf(job.id).map((r) => r.status)).toEqual(['success']);
    }
    expect(world.runner.calls).toHaveLength(3);
    expect(world.runner.calls.filter((c) => c.podId === staying.podId)).toHaveLength(2);
    expect(world.runner.maxActivePerJob).toBe(1);
  });
});
