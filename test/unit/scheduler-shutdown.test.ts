// stop(grace): drain in-flight runs, abort and record the rest, release locks, fire nothing more.
import { describe, expect, it } from 'vitest';
import { capturingLogger } from '../helpers/log.js';
import { World, type Pod } from '../kit/world.js';

const at = (time: string) => Date.parse(`2026-01-01T${time}Z`);
const iso = (ms: number) => new Date(ms).toISOString();
const T0 = at('00:00:00.500');
const SHUTDOWN = 'interrupted by shutdown';

describe('Scheduler.stop', () => {
  it('lets runs finish within the grace period, aborts and records the rest, releases locks', async () => {
    const world = new World(T0);
    const quick = world.store.addJob({ schedule: '0 * * * * *', name: 'quick' });
    const slow = world.store.addJob({ schedule: '0 * * * * *', name: 'slow' });
    const deaf = world.store.addJob({ schedule: '0 * * * * *', name: 'deaf' });
    world.runner.behaviour = (request) =>
      request.name === 'quick'
        ? { kind: 'resolve', afterMs: 5_000 }
        : request.name === 'slow'
          ? { kind: 'resolve', afterMs: 60_000 }
          : { kind: 'ignore' };
    const { log, lines } = capturingLogger();
    const pod = world.pod({ log });
    pod.scheduler.start();
    await world.clock.advanceTo(at('00:01:01'));
    expect(world.runner.active).toBe(3);

    let stopped = false;
    const stopping = pod.scheduler.stop(20_000).then(() => (stopped = true));
    const stoppedAt = await world.clock.until(() => stopped, 40_000, 'stopped');
    await stopping;
    // Grace ends at 00:01:21; the aborted runs are recorded at once, even the one that ignores
    // its signal.
    expect(stoppedAt).toBe(at('00:01:21'));

    const only = (id: string) => {
      const runs = world.store.runsOf(id);
      expect(runs).toHaveLength(1);
      return runs[0];
    };
    expect(only(quick.id)).toMatchObject({ status: 'success', error: null });
    expect(only(quick.id)?.finishedAt?.getTime()).toBe(at('00:01:05'));
    for (const id of [slow.id, deaf.id]) {
      expect(only(id)).toMatchObject({ status: 'failed', error: SHUTDOWN });
      expect(only(id)?.finishedAt?.getTime()).toBe(at('00:01:21'));
    }
    // Every lock is released: what is left is a short-lived "done" marker, free for the next
    // occurrence.
    for (const id of [quick.id, slow.id, deaf.id]) {
      expect(world.redis.holder(id)).toMatchObject({ state: 'done' });
      const next = await world.redis.forPod('other').acquire(id, at('00:02:00'), 1000);
      expect(next.acquired).toBe(true);
    }
    expect(await pod.metric('hermesx_scheduler_runs_total', { status: 'failed' })).toBe(2);
    expect(
      lines.some((l) => l.includes('msg="scheduler draining"') && l.includes('in_flight=3')),
    ).toBe(true);
    expect(lines.some((l) => l.includes('msg="scheduler stopped"'))).toBe(true);

    // After stop nothing fires, nothing is polled, no timer of the scheduler is left.
    const calls = world.runner.calls.length;
    const loads = world.store.calls.loadJobs;
    const pings = world.redis.calls.ping;
    pod.scheduler.jobsChanged([quick.id]);
    pod.scheduler.resync();
    await world.clock.advanceTo(at('00:10:00'));
    expect(world.runner.calls).toHaveLength(calls);
    expect(world.store.calls.loadJobs).toBe(loads);
    expect(world.redis.calls.ping).toBe(pings);
    expect(world.clock.pendingTimers).toBe(0);
    expect(pod.scheduler.running).toBe(false);
  });

  it('returns at once with nothing in flight, and a second stop is harmless', async () => {
    const world = new World(T0);
    world.store.addJob({ schedule: '* * * * * *' });
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 100 });
    const pod = world.pod();
    pod.scheduler.start();
    await world.clock.advanceTo(at('00:00:03.500'));
    await pod.scheduler.stop(20_000);
    await pod.scheduler.stop(20_000);
    expect(world.clock.now()).toBe(at('00:00:03.500'));
    await world.clock.advance(60_000);
    expect(world.runner.calls).toHaveLength(3);
    expect(world.clock.pendingTimers).toBe(0);
  });

  it('a draining pod stays alive for the others: its run is not failed as a crash', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *' });
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 25_000 });
    const pods = [world.pod({ podId: 'pod-a' }), world.pod({ podId: 'pod-b' })];
    for (const pod of pods) pod.scheduler.start();
    await world.clock.advanceTo(at('00:01:01'));
    expect(world.runner.calls).toHaveLength(1);
    // The pod that runs the 00:01 occurrence leaves while it runs.
    const leaving = pods.find((p) => p.podId === world.runner.calls[0]?.podId) as Pod;
    const staying = pods.find((p) => p !== leaving) as Pod;

    let stopped = false;
    void leaving.scheduler.stop(30_000).then(() => (stopped = true));
    await world.clock.until(() => stopped, 40_000, 'stopped');
    expect(world.store.runsOf(job.id).map((r) => [r.podId, r.status, r.error])).toEqual([
      [leaving.podId, 'success', null],
    ]);
    expect(
      await staying.metric('hermesx_scheduler_recovered_runs_total', { reason: 'pod_gone' }),
    ).toBe(0);

    // The other pod carries on with the next occurrences.
    await world.clock.advanceTo(at('00:02:30'));
    expect(world.runner.calls.map((c) => [c.podId, iso(c.request.scheduledAt.getTime())])).toEqual([
      [leaving.podId, iso(at('00:01:00'))],
      [staying.podId, iso(at('00:02:00'))],
    ]);
    expect(world.runner.maxActivePerJob).toBe(1);
    void staying.scheduler.stop(0);
  });

  it.each([
    ['while it cleans up leftovers', 50],
    ['while it loads the jobs', 150],
  ])('a stop during activation (%s) leaves nothing firing afterwards', async (_, stopAfterMs) => {
    const world = new World(T0);
    world.store.addJob({ schedule: '* * * * * *' });
    world.store.latencyMs = 100;
    const { log, lines } = capturingLogger();
    const pod = world.pod({ log });
    pod.scheduler.start();
    await world.clock.advance(stopAfterMs); // activation is waiting on the database
    let stopped = false;
    void pod.scheduler.stop(1000).then(() => (stopped = true));
    await world.clock.until(() => stopped, 1000, 'stopped');
    expect(lines.some((l) => l.includes('msg="scheduler stopped"'))).toBe(true);

    await world.clock.advance(60_000);
    expect(world.runner.calls).toEqual([]);
    expect(pod.scheduler.running).toBe(false);
    expect(world.clock.pendingTimers).toBe(0);
    expect(lines.filter((l) => l.includes('msg="scheduler started"'))).toEqual([]);
  });
});
