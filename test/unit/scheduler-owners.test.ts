// Who tries which lock first: rendezvous owners, and other pods taking over what an owner leaves.
import { afterEach, describe, expect, it } from 'vitest';
import { ownerOf } from '../../src/scheduler/owners.js';
import { STEAL_DELAY_MS } from '../../src/scheduler/steal-lists.js';
import { World, type Pod, podStarter } from '../kit/world.js';

const at = (time: string) => Date.parse(`2026-01-01T${time}Z`);
const T0 = at('00:00:00.500');
const jobIds = Array.from(
  { length: 3000 },
  (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
);

const starter = podStarter();
const start = (pod: Pod) => starter.start(pod);
afterEach(() => starter.stopAll());

describe('ownerOf', () => {
  const peers = ['pod-1', 'pod-2', 'pod-3'];

  it('gives every pod the same answer, whoever asks', () => {
    for (const id of jobIds.slice(0, 200)) {
      const answers = new Set(peers.map((self) => ownerOf(id, peers, self)));
      expect(answers.size).toBe(1);
    }
  });

  it('spreads jobs evenly over the peers', () => {
    const counts = new Map<string, number>();
    for (const id of jobIds) {
      const owner = ownerOf(id, peers, 'pod-1');
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
    for (const peer of peers) expect(counts.get(peer)).toBeGreaterThan(900); // 1,000 each ideally
  });

  it('moves only the leaving peer’s jobs when a peer leaves, and counts the asker as a peer', () => {
    let moved = 0;
    for (const id of jobIds) {
      const before = ownerOf(id, peers, 'pod-1');
      const after = ownerOf(id, ['pod-1', 'pod-2'], 'pod-1');
      if (before !== after) {
        moved += 1;
        expect(before).toBe('pod-3');
      }
      expect(ownerOf(id, [], 'pod-1')).toBe('pod-1');
    }
    expect(moved).toBeGreaterThan(900);
  });
});

describe('Scheduler: owners and take-overs', () => {
  it('a registered pod that never fires: the others run its jobs after the steal delay, then on time once it expires', async () => {
    const world = new World(T0);
    const jobs = Array.from({ length: 20 }, () => world.store.addJob({ schedule: '* * * * * *' }));
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 100 });
    // Registered as a scheduling peer at 00:00:00.500 (until 00:00:15.500), then killed.
    await world.redis.forPod('pod-ghost').publishLiveness('pod-ghost', 15_000, true);
    const pods = ['pod-a', 'pod-b'].map((podId) => start(world.pod({ podId })));

    await world.clock.advanceTo(at('00:00:30.500'));
    const ghostOwned = jobs.filter(
      (j) => ownerOf(j.id, ['pod-a', 'pod-b', 'pod-ghost'], 'pod-a') === 'pod-ghost',
    );
    expect(ghostOwned.length).toBeGreaterThan(0);
    for (const job of jobs) {
      const calls = world.runner.callsFor(job.id);
      // Every occurrence from 00:00:01 to 00:00:30 ran once: none lost to the dead owner.
      expect(calls.map((c) => c.request.scheduledAt.getTime())).toEqual(
        Array.from({ length: 30 }, (_, i) => at('00:00:01') + i * 1000),
      );
      const lateMs = calls.map((c) => c.startedMs - c.request.scheduledAt.getTime());
      const owned = ghostOwned.includes(job);
      for (const [i, late] of lateMs.entries()) {
        // Second i+1: while the ghost is registered (to 00:00:15.5) its jobs wait for the delay.
        const expected = owned && i + 1 <= 15 ? STEAL_DELAY_MS : 0;
        expect(late, `job ${job.id} second ${i + 1}`).toBe(expected);
      }
    }
    let steals = 0;
    for (const pod of pods) steals += await pod.metric('hermesx_scheduler_steals_total');
    expect(steals).toBe(ghostOwned.length * 15);
  });

  it('timers that fire a millisecond early (as Node timers may against Date.now()) lose no take-over', async () => {
    const world = new World(T0, { earlyMs: 1 });
    const jobs = Array.from({ length: 10 }, () => world.store.addJob({ schedule: '0 * * * * *' }));
    await world.redis.forPod('pod-ghost').publishLiveness('pod-ghost', 600_000, true);
    start(world.pod({ podId: 'pod-a' }));

    await world.clock.advanceTo(at('00:03:30'));
    for (const job of jobs) {
      expect(world.runner.callsFor(job.id).map((c) => c.request.scheduledAt.getTime())).toEqual([
        at('00:01:00'),
        at('00:02:00'),
        at('00:03:00'),
      ]);
    }
  });

  it('a pod that cannot read its due window does not become a peer: the others run everything on time', async () => {
    const world = new World(T0);
    const jobs = Array.from({ length: 20 }, () => world.store.addJob({ schedule: '* * * * * *' }));
    // pod-b reaches Redis but not the database.
    const unreachable = new Proxy(world.store, {
      get: (target, key, receiver) =>
        key === 'dueJobs' || key === 'planJobs' || key === 'loadJobs'
          ? () => Promise.reject(new Error('connect ECONNREFUSED'))
          : Reflect.get(target, key, receiver),
    });
    start(world.pod({ podId: 'pod-a' }));
    start(world.pod({ podId: 'pod-b', store: unreachable }));

    await world.clock.advanceTo(at('00:00:30.500'));
    expect([...world.redis.peers.keys()]).toEqual(['pod-a']);
    for (const job of jobs) {
      for (const call of world.runner.callsFor(job.id)) {
        expect(call.podId).toBe('pod-a');
        expect(call.startedMs).toBe(call.request.scheduledAt.getTime());
      }
      expect(world.runner.callsFor(job.id)).toHaveLength(30);
    }
  });

  it('a pod that stops leaves the peers: its jobs wait at most the steal delay, and none once the others have seen it go', async () => {
    const world = new World(T0);
    const jobs = Array.from({ length: 20 }, () => world.store.addJob({ schedule: '* * * * * *' }));
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 100 });
    const [leaving] = ['pod-a', 'pod-b', 'pod-c'].map((podId) => start(world.pod({ podId })));
    await world.clock.advanceTo(at('00:00:10.500'));
    await leaving?.scheduler.stop(1000);
    const stoppedAt = world.clock.now();
    // The others read the peers at their next liveness proof (every 5 s).
    const seenGoneAt = stoppedAt + 5000;

    await world.clock.advanceTo(at('00:00:20.500'));
    for (const job of jobs) {
      for (const call of world.runner.callsFor(job.id)) {
        const scheduledMs = call.request.scheduledAt.getTime();
        if (scheduledMs < stoppedAt) continue;
        expect(call.podId).not.toBe('pod-a');
        expect(call.startedMs - scheduledMs).toBeLessThanOrEqual(STEAL_DELAY_MS);
        if (scheduledMs > seenGoneAt) expect(call.startedMs).toBe(scheduledMs);
      }
      expect(world.store.runsOf(job.id)).toHaveLength(20);
    }
  });
});
