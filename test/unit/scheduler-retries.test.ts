// The scheduler core on the kit's whole JobStore: a failed attempt the job's retry policy sends
// back to the queue runs again once due, and a cancel_other occurrence stops the earlier run and
// takes its turn, through the same store rules as PostgreSQL's (test/contract/).
import { afterEach, describe, expect, it } from 'vitest';
import { World, type Pod, podStarter } from '../kit/world.js';

const at = (time: string) => Date.parse(`2026-01-01T${time}Z`);
const T0 = at('00:00:00.500');

const starter = podStarter();
const start = (pod: Pod) => starter.start(pod);
afterEach(() => starter.stopAll());

describe('Scheduler on the whole JobStore', () => {
  it('runs a retried attempt again once its backoff is over: one occurrence, one outcome', async () => {
    const world = new World(T0);
    const job = world.store.addJob({
      schedule: '0 * * * * *',
      retry: { maxAttempts: 2, backoffMs: 5000 },
    });
    world.runner.behaviour = (_request, call) =>
      call === 0
        ? { kind: 'reject', error: 'the model server answered 500', errorKind: 'model_error' }
        : { kind: 'resolve', result: 'second time lucky' };
    start(world.pod());

    await world.clock.until(
      () => world.store.runsOf(job.id)[0]?.status === 'success',
      90_000,
      'the retried run succeeded',
    );
    const calls = world.runner.callsFor(job.id);
    expect(calls.map((c) => c.request.scheduledAt.toISOString())).toEqual([
      '2026-01-01T00:01:00.000Z',
      '2026-01-01T00:01:00.000Z',
    ]);
    expect((calls[1]?.startedMs ?? 0) - (calls[0]?.startedMs ?? 0)).toBeGreaterThanOrEqual(5000);
    const [run] = world.store.runsOf(job.id);
    expect(run).toMatchObject({ status: 'success', attempt: 2, result: 'second time lucky' });
    expect(run?.previousAttempts.map((a) => a.errorKind)).toEqual(['model_error']);
    expect(world.store.job(job.id)).toMatchObject({ runCount: 1, lastRunSuccess: true });
  });

  it('cancel_other: the next occurrence stops the earlier run and runs in its place', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *', overlap: 'cancel_other' });
    world.runner.behaviour = (_request, call) =>
      call === 0 ? { kind: 'hang' } : { kind: 'resolve', result: 'fresh' };
    start(world.pod());

    await world.clock.until(
      () => world.store.runsOf(job.id)[1]?.status === 'success',
      150_000,
      'the later occurrence ran',
    );
    const [first, second] = world.store.runsOf(job.id);
    expect(first).toMatchObject({ status: 'failed', errorKind: 'cancelled' });
    expect(first?.scheduledAt.toISOString()).toBe('2026-01-01T00:01:00.000Z');
    expect(second?.scheduledAt.toISOString()).toBe('2026-01-01T00:02:00.000Z');
    expect(world.store.calls.cancelOlderRuns).toBeGreaterThan(0);
    expect(world.runner.maxActivePerJob).toBe(1);
  });
});
