// After its listener reconnects a pod reads what the lost notifications carried: run-now requests
// no run answers yet (made since the connection was lost) and cancels of its runs in flight.
// A read that fails is tried again. The in-memory store; test/integration/missed-requests.test.ts
// does the same on PostgreSQL with a real cut.
import { afterEach, describe, expect, it } from 'vitest';
import { World, type Pod, podStarter } from '../kit/world.js';

const at = (time: string) => Date.parse(`2026-01-01T${time}Z`);
const T0 = at('00:00:00.500');

const starter = podStarter();
const start = (pod: Pod) => starter.start(pod);
afterEach(() => starter.stopAll());

describe('Scheduler: after a listener reconnect', () => {
  it('runs a run-now it did not hear once, and reads again after a failed read', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 0 * * * *' });
    const pod = start(world.pod());
    await world.clock.advanceTo(at('00:00:03'));
    world.store.job(job.id).lastTriggeredAt = new Date(at('00:00:02'));
    world.store.failing.add('missedTriggers');
    pod.scheduler.reconnected(at('00:00:01'));
    await world.clock.advanceTo(at('00:00:05'));
    expect(world.runner.callsFor(job.id)).toEqual([]);
    world.store.failing.delete('missedTriggers');
    // The next read of the window reads them again.
    await world.clock.advanceTo(at('00:00:07'));
    const nominalTimes = () =>
      world.runner.callsFor(job.id).map((c) => c.request.scheduledAt.getTime());
    expect(nominalTimes()).toEqual([at('00:00:02')]);
    // Answered: another reconnect finds nothing.
    pod.scheduler.reconnected(at('00:00:06'));
    await world.clock.advanceTo(at('00:00:09'));
    expect(nominalTimes()).toEqual([at('00:00:02')]);
    expect(world.store.runsOf(job.id)).toHaveLength(1);
  });

  it('leaves a run-now older than the lost connection alone (it was heard)', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 0 * * * *' });
    const pod = start(world.pod());
    await world.clock.advanceTo(at('00:00:40'));
    world.store.job(job.id).lastTriggeredAt = new Date(at('00:00:02'));
    pod.scheduler.reconnected(at('00:00:30'));
    await world.clock.advanceTo(at('00:00:45'));
    expect(world.runner.callsFor(job.id)).toEqual([]);
  });

  it('stops a run of its own asked to stop, recorded cancelled, after a failed read', async () => {
    const world = new World(T0);
    world.runner.behaviour = () => ({ kind: 'hang' });
    const job = world.store.addJob({ schedule: '0 0 * * * *' });
    const pod = start(world.pod());
    await world.clock.advanceTo(at('00:00:02'));
    pod.scheduler.trigger(job.id, at('00:00:02'));
    await world.clock.advanceTo(at('00:00:03'));
    const [run] = world.store.runsOf(job.id);
    expect(run?.status).toBe('running');
    run!.cancelRequestedAt = new Date(world.clock.now());
    world.store.failing.add('cancelsRequested');
    pod.scheduler.reconnected(at('00:00:02.500'));
    await world.clock.advanceTo(at('00:00:03.500'));
    expect(world.store.runsOf(job.id)[0]?.status).toBe('running');
    world.store.failing.delete('cancelsRequested');
    await world.clock.advanceTo(at('00:00:05'));
    expect(world.store.runsOf(job.id)[0]).toMatchObject({
      status: 'failed',
      errorKind: 'cancelled',
      error: 'cancelled: stopped by request',
    });
  });
});
