// Fair dispatch across tenants and the per-tenant cap, against the fakes and a fake clock.
import { afterEach, describe, expect, it } from 'vitest';
import { orderFairly } from '../../src/scheduler/fair-queue.js';
import type { RunnerCall } from '../kit/runner.js';
import { World, podStarter, type Pod } from '../kit/world.js';

const at = (time: string) => Date.parse(`2026-01-01T${time}Z`);
const T0 = at('00:00:00.500');
const tenant = (n: number) => `7e000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const BIG = tenant(1);
const SMALL = Array.from({ length: 10 }, (_, i) => tenant(100 + i));

const starter = podStarter();
const start = (pod: Pod) => starter.start(pod);
afterEach(() => starter.stopAll());

const lagOf = (call: RunnerCall) => call.startedMs - call.request.scheduledAt.getTime();

/** Most calls of one tenant in flight at once. */
function peakInFlight(calls: RunnerCall[]): number {
  const edges = calls.flatMap((c) => [
    [c.startedMs, 1],
    [c.settledMs ?? Infinity, -1],
  ]);
  edges.sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number));
  let current = 0;
  let peak = 0;
  for (const [, delta] of edges) peak = Math.max(peak, (current += delta as number));
  return peak;
}

describe('Scheduler: fair dispatch across tenants', () => {
  it('small tenants start on time beside a tenant whose jobs fill every slot, and nothing is lost', async () => {
    const world = new World(T0);
    const big = Array.from({ length: 240 }, () =>
      world.store.addJob({ schedule: '0 * * * * *', tenantId: BIG }),
    );
    const small = SMALL.map((tenantId) =>
      world.store.addJob({ schedule: '0 * * * * *', tenantId }),
    );
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 4000 });
    const pod = start(world.pod({ settings: { maxConcurrentRuns: 30 } }));

    const recorded = () => pod.seen.filter((event) => event.name === 'recorded').length;
    await world.clock.until(() => recorded() === 250, 120_000, 'every run recorded');
    for (const job of small) {
      const [call] = world.runner.callsFor(job.id);
      expect(call && lagOf(call)).toBe(0);
    }
    // The backlog still drains at the slot bound: 250 runs of 4 s over 30 slots.
    const bigCalls = big.flatMap((job) => world.runner.callsFor(job.id));
    expect(bigCalls).toHaveLength(240);
    const lastStartMs = Math.max(...bigCalls.map(lagOf));
    expect(lastStartMs).toBe(Math.floor(250 / 30) * 4000);
    for (const job of [...big, ...small]) {
      expect(world.store.runsOf(job.id).map((r) => r.status)).toEqual(['success']);
    }
  });

  it('a backlog from second T does not delay another tenant at T+1 beyond the next free slot', async () => {
    const world = new World(T0);
    for (let i = 0; i < 120; i++) world.store.addJob({ schedule: '0 * * * * *', tenantId: BIG });
    const late = world.store.addJob({ schedule: '1 * * * * *', tenantId: SMALL[0] });
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 4000 });
    start(world.pod({ settings: { maxConcurrentRuns: 10 } }));

    await world.clock.advanceTo(at('00:01:10'));
    const call = world.runner
      .callsFor(late.id)
      .find((c) => c.request.scheduledAt.getTime() === at('00:01:01'));
    // Every slot is busy until 00:01:04; the backlog holds 110 more runs, but this one goes first.
    expect(call && call.startedMs).toBe(at('00:01:04'));
  });

  it('hands out a set-aside queue one occurrence per tenant per turn, in the same order on every pod', async () => {
    const world = new World(T0);
    const order: string[] = [];
    for (const [tenantId, count] of [
      [tenant(3), 3],
      [tenant(1), 2],
      [tenant(2), 1],
    ] as const) {
      for (let i = 0; i < count; i++) {
        world.store.addJob({
          schedule: '0 * * * * *',
          tenantId,
          name: `${tenantId.slice(-1)}${i}`,
        });
      }
    }
    world.runner.behaviour = (request) => {
      order.push(request.tenantId.slice(-1));
      return { kind: 'resolve', afterMs: 1000 };
    };
    start(world.pod({ settings: { maxConcurrentRuns: 1 } }));
    await world.clock.advanceTo(at('00:01:10'));
    expect(order.join('')).toBe('123133');
  });

  it('orders a tick the same way whatever order the occurrences came in', () => {
    const occurrences = Array.from({ length: 30 }, (_, i) => ({
      jobId: `job-${String(i).padStart(2, '0')}`,
      tenantId: tenant(i % 4),
      scheduledAtMs: 0,
      kind: 'scheduled' as const,
    }));
    const reference = orderFairly(occurrences).map((o) => o.jobId);
    const shuffled = [...occurrences].sort(() => Math.random() - 0.5);
    expect(orderFairly(shuffled).map((o) => o.jobId)).toEqual(reference);
    expect(reference.slice(0, 4).map((id) => Number(id.slice(4)) % 4)).toEqual([0, 1, 2, 3]);
  });
});

describe('Scheduler: per-tenant cap (max_concurrent_runs)', () => {
  it('keeps a capped tenant at its cap across pods; over-cap occurrences wait and all run', async () => {
    const world = new World(T0, { tieSeed: 3 });
    world.store.tenantCaps.set(BIG, 3);
    const capped = Array.from({ length: 12 }, () =>
      world.store.addJob({ schedule: '0 * * * * *', tenantId: BIG }),
    );
    const free = Array.from({ length: 6 }, () =>
      world.store.addJob({ schedule: '0 * * * * *', tenantId: SMALL[0] }),
    );
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 2000 });
    const pods = [start(world.pod()), start(world.pod())];

    await world.clock.advanceTo(at('00:01:30'));
    const cappedCalls = capped.flatMap((job) => world.runner.callsFor(job.id));
    expect(cappedCalls).toHaveLength(12);
    expect(peakInFlight(cappedCalls)).toBe(3);
    // Another tenant is not held back: all of its runs start at once.
    for (const job of free) expect(world.runner.callsFor(job.id).map(lagOf)).toEqual([0]);
    for (const job of capped) {
      expect(world.store.runsOf(job.id).map((r) => r.status)).toEqual(['success']);
    }
    let deferrals = 0;
    for (const pod of pods) deferrals += await pod.metric('hermesx_scheduler_cap_deferrals_total');
    expect(deferrals).toBeGreaterThan(0);
    expect(await pods[0]?.metric('hermesx_scheduler_missed_occurrences_total')).toBe(0);
  });

  it('a pod killed with runs of a capped tenant does not hold the cap once recovery fails them', async () => {
    const world = new World(T0);
    world.store.tenantCaps.set(BIG, 1);
    const stuck = world.store.addJob({ schedule: '0 0 * * * *', tenantId: BIG });
    const next = world.store.addJob({ schedule: '5 * * * * *', tenantId: BIG });
    // A dead pod's run of the tenant, sent to the model: it holds the tenant's only place.
    const answer = await world.store.claimRun(stuck.id, new Date(at('00:00:00')), 'pod-dead');
    if (answer.kind !== 'claimed') throw new Error('claim refused');
    await world.store.markSent(answer.run.runId, 'pod-dead');
    start(world.pod({ podId: 'pod-a' }));

    await world.clock.advanceTo(at('00:00:30'));
    expect(world.store.runs.get(answer.run.runId)).toMatchObject({
      status: 'failed',
      errorKind: 'pod_lost',
    });
    // 00:00:05 waited for the place (recovery at 00:00:10.5 freed it), then ran.
    const calls = world.runner.callsFor(next.id);
    expect(calls.map((c) => c.request.scheduledAt.getTime())).toEqual(
      [at('00:00:05'), at('00:00:30')].slice(0, calls.length),
    );
    expect(calls[0]?.startedMs).toBeGreaterThanOrEqual(at('00:00:10.5'));
    expect(calls[0]?.startedMs).toBeLessThanOrEqual(at('00:00:12'));
  });
});
