// The scheduler core through outages: Redis down at start or mid-run, the database down during
// claims or records, and pods that die with runs in progress.
import { afterEach, describe, expect, it } from 'vitest';
import { capturingLogger } from '../helpers/log.js';
import type { ClaimAnswer } from '../../src/scheduler/ports.js';
import { World, type Pod, podStarter } from '../kit/world.js';

const at = (time: string) => Date.parse(`2026-01-01T${time}Z`);
const iso = (ms: number) => new Date(ms).toISOString();
const T0 = at('00:00:00.500');
const POD_CRASH = 'pod crash or lock TTL exceeded';

const starter = podStarter();
const start = (pod: Pod) => starter.start(pod);
afterEach(() => starter.stopAll());

const scheduledTimes = (world: World, jobId: string) =>
  world.runner.callsFor(jobId).map((c) => iso(c.request.scheduledAt.getTime()));
const withMsg = (lines: string[], msg: string) =>
  lines.filter((l) => l.includes(`msg="${msg}"`) || l.includes(`msg=${msg} `));

describe('Scheduler: Redis unavailable', () => {
  it('waits without firing, warns once, then starts and catches up the latest missed occurrence', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *' });
    world.redis.available = false;
    const { log, lines } = capturingLogger();
    const pod = start(world.pod({ log }));

    await world.clock.advanceTo(at('00:05:30.500'));
    expect(pod.scheduler.running).toBe(false);
    expect(world.runner.calls).toEqual([]);
    expect(world.store.calls.dueJobs).toBe(0);
    expect(world.store.calls.planJobs).toBe(0);
    expect(world.store.calls.claimRun).toBe(0);
    const disabled = withMsg(lines, 'scheduler disabled: redis unavailable');
    expect(disabled).toHaveLength(1);
    expect(disabled[0]).toContain('level=WARN');
    expect(world.redis.calls.ping).toBeGreaterThan(100); // kept checking

    world.redis.available = true;
    const back = world.clock.now();
    const startedAt = await world.clock.until(
      () => withMsg(lines, 'scheduler started').length > 0,
      2000,
      'scheduler started',
    );
    expect(startedAt - back).toBeLessThanOrEqual(2000);
    const startLine = withMsg(lines, 'scheduler started')[0] ?? '';
    expect(startLine).toContain('level=INFO');
    expect(startLine).toContain('poll_interval=30s lookahead=5s');
    expect(pod.scheduler.running).toBe(true);

    // 00:01 … 00:05 were missed: the latest runs once, at once; the four older are counted.
    expect(
      world.runner.calls.map((c) => [iso(c.request.scheduledAt.getTime()), c.startedMs]),
    ).toEqual([[iso(at('00:05:00')), startedAt]]);
    expect(await pod.metric('hermesx_scheduler_caught_up_total')).toBe(1);
    expect(await pod.metric('hermesx_scheduler_missed_occurrences_total')).toBe(4);

    await world.clock.advanceTo(at('00:07:00.500'));
    expect(scheduledTimes(world, job.id)).toEqual([
      iso(at('00:05:00')),
      iso(at('00:06:00')),
      iso(at('00:07:00')),
    ]);
    expect(world.store.runsOf(job.id).every((r) => r.status === 'success')).toBe(true);
    expect(withMsg(lines, 'scheduler disabled: redis unavailable')).toHaveLength(1);
    expect(await pod.metric('hermesx_scheduler_caught_up_total')).toBe(1);
  });

  it('pauses when Redis fails mid-run, resumes when it returns and catches up once', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *' });
    const { log, lines } = capturingLogger();
    const pod = start(world.pod({ log }));

    await world.clock.advanceTo(at('00:02:30'));
    expect(scheduledTimes(world, job.id)).toEqual([iso(at('00:01:00')), iso(at('00:02:00'))]);
    world.redis.available = false;
    await world.clock.advanceTo(at('00:06:10'));
    expect(pod.scheduler.running).toBe(false);
    expect(world.runner.calls).toHaveLength(2);
    expect(withMsg(lines, 'scheduler disabled: redis unavailable')).toHaveLength(1);
    const claimsWhileDown = world.store.calls.claimRun;

    world.redis.available = true;
    await world.clock.until(() => pod.scheduler.running, 2000, 'resumed');
    expect(world.store.calls.claimRun).toBe(claimsWhileDown + 1);
    await world.clock.advanceTo(at('00:08:00.500'));
    expect(scheduledTimes(world, job.id)).toEqual(
      ['00:01:00', '00:02:00', '00:06:00', '00:07:00', '00:08:00'].map((t) => iso(at(t))),
    );
    expect(await pod.metric('hermesx_scheduler_caught_up_total')).toBe(1);
    expect(await pod.metric('hermesx_scheduler_missed_occurrences_total')).toBe(3);
    expect(withMsg(lines, 'scheduler started')).toHaveLength(2);
    expect(world.store.runsOf(job.id).every((r) => r.status === 'success')).toBe(true);
  });

  it('pauses on a failed lock call between availability checks', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '* * * * * *' });
    const pod = start(world.pod({ settings: { pollIntervalMs: 60_000 } }));
    await world.clock.advanceTo(at('00:00:05.500'));
    // Redis drops just before an occurrence; the acquire fails before any ping does.
    world.redis.available = false;
    await world.clock.advanceTo(at('00:00:06'));
    expect(pod.scheduler.running).toBe(false);
    world.redis.available = true;
    await world.clock.until(() => pod.scheduler.running, 2000, 'resumed');
    await world.clock.advanceTo(at('00:00:10.500'));
    // The occurrence whose acquire failed is caught up; none runs twice.
    const times = scheduledTimes(world, job.id);
    expect(new Set(times).size).toBe(times.length);
    expect(times.slice(0, 6)).toEqual(
      ['01', '02', '03', '04', '05', '06'].map((s) => iso(at(`00:00:${s}`))),
    );
    expect(times.at(-1)).toBe(iso(at('00:00:10')));
  });
  it('a lock left behind by a failed release does not block the job until its TTL', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *' });
    const { log, lines } = capturingLogger();
    const pod = start(world.pod({ podId: 'pod-a', log }));
    await world.clock.advanceTo(at('00:00:59'));
    world.redis.failing.add('release'); // a blip under the release of the 00:01 run
    await world.clock.advanceTo(at('00:01:00.500'));
    world.redis.failing.delete('release');
    expect(withMsg(lines, 'cannot release lock')).toHaveLength(1);
    expect(world.redis.holder(job.id)).toMatchObject({ state: 'run', podId: 'pod-a' });
    expect(pod.scheduler.running).toBe(true);

    await world.clock.advanceTo(at('00:03:00.500'));
    expect(scheduledTimes(world, job.id)).toEqual(
      ['00:01:00', '00:02:00', '00:03:00'].map((t) => iso(at(t))),
    );
  });
});

describe('Scheduler: database unavailable', () => {
  it('survives failed claims, keeps its loops going and catches up at the next read', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *' });
    const { log, lines } = capturingLogger();
    const pod = start(world.pod({ log }));

    // Down once the 00:01:00 occurrence is in the pod's window (5 s ahead).
    await world.clock.advanceTo(at('00:00:57'));
    world.store.down = true;
    await world.clock.advanceTo(at('00:01:05'));
    expect(world.runner.calls).toEqual([]);
    expect(withMsg(lines, 'cannot claim occurrence: database unavailable')).toHaveLength(1);
    expect(world.redis.holder(job.id)).toBeNull(); // the lock was given back
    expect(pod.scheduler.running).toBe(true);
    const pollsBefore = world.store.calls.cleanupStaleRuns;

    world.store.down = false;
    // The reads fail while it is down and retry with a back-off of at most their interval.
    const caughtUpAt = await world.clock.until(
      () => world.runner.calls.length > 0,
      30_000,
      'caught up',
    );
    expect(caughtUpAt).toBeLessThan(at('00:01:35'));
    expect(scheduledTimes(world, job.id)).toEqual([iso(at('00:01:00'))]);
    expect(await pod.metric('hermesx_scheduler_caught_up_total')).toBe(1);

    await world.clock.advanceTo(at('00:03:00.500'));
    expect(scheduledTimes(world, job.id)).toEqual(
      ['00:01:00', '00:02:00', '00:03:00'].map((t) => iso(at(t))),
    );
    expect(world.store.runsOf(job.id).every((r) => r.status === 'success')).toBe(true);
    expect(world.store.calls.cleanupStaleRuns).toBeGreaterThan(pollsBefore);
    expect(withMsg(lines, 'background task failed, retrying').length).toBeGreaterThan(0);
  });

  it('starts once the database answers, when it was down at start', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '*/10 * * * * *' });
    world.store.down = true;
    const pod = start(world.pod());
    await world.clock.advanceTo(at('00:00:30'));
    expect(pod.scheduler.running).toBe(false);
    world.store.down = false;
    await world.clock.until(() => pod.scheduler.running, 30_000, 'started');
    await world.clock.advanceTo(at('00:01:00.500'));
    const times = scheduledTimes(world, job.id);
    // 00:00:10 … 00:00:30 were missed: only the latest is caught up.
    expect(times[0]).toBe(iso(at('00:00:30')));
    expect(times.at(-1)).toBe(iso(at('00:01:00')));
    expect(new Set(times).size).toBe(times.length);
  });

  it('retries recording a finished run through a short database blip', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *' });
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 1000 });
    start(world.pod());
    await world.clock.advanceTo(at('00:01:00.500'));
    world.store.failing.add('finishRun');
    await world.clock.advanceTo(at('00:01:01.800'));
    world.store.failing.delete('finishRun');
    await world.clock.advanceTo(at('00:01:10'));
    const [run] = world.store.runsOf(job.id);
    expect(run?.status).toBe('success');
    expect(world.store.calls.finishRun).toBe(3); // at 01, 01.25, 02.25
    expect(run?.finishedAt?.getTime()).toBe(at('00:01:02.250'));
  });
  it('a run whose outcome could not be recorded is failed by recovery, not left blocking the job', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *' });
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 1000 });
    const { log, lines } = capturingLogger();
    const pod = start(world.pod({ log }));
    await world.clock.advanceTo(at('00:01:00.500'));
    world.store.failing.add('finishRun'); // longer than the record retries (4.25 s)
    await world.clock.advanceTo(at('00:01:10'));
    world.store.failing.delete('finishRun');
    expect(withMsg(lines, 'cannot record run; recovery will mark it failed')).toHaveLength(1);
    const [run] = world.store.runsOf(job.id);
    expect(run?.status).toBe('running');

    await world.clock.advanceTo(at('00:01:10') + 10_000);
    expect(run?.status).toBe('failed');
    expect(await pod.metric('hermesx_scheduler_recovered_runs_total')).toBe(1);
    // The job is not blocked for the lock TTL: the next occurrence runs.
    await world.clock.advanceTo(at('00:02:01.500'));
    expect(world.store.runsOf(job.id).map((r) => [iso(r.scheduledAt.getTime()), r.status])).toEqual(
      [
        [iso(at('00:01:00')), 'failed'],
        [iso(at('00:02:00')), 'success'],
      ],
    );
  });
});

function runIdOf(answer: ClaimAnswer): string {
  if (answer.kind !== 'claimed') throw new Error(`claim refused: ${answer.kind}`);
  return answer.run.runId;
}

describe('Scheduler: recovery of runs of dead pods', () => {
  /** A run of pod-dead, claimed and (unless `sent` is false) with its model request sent. */
  async function deadPodRun(world: World, jobId: string, scheduledAt: number, sent = true) {
    const dead = world.redis.forPod('pod-dead');
    const lock = await dead.acquire(jobId, scheduledAt, 720_000);
    expect(lock.acquired).toBe(true);
    const runId = runIdOf(await world.store.claimRun(jobId, new Date(scheduledAt), 'pod-dead'));
    if (sent) expect(await world.store.markSent(runId, 'pod-dead')).toBe(true);
    return { dead, runId };
  }

  it('adopts and runs, once, a claimed run of a dead pod that had sent nothing to the model', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *' });
    const { runId } = await deadPodRun(world, job.id, at('00:00:00'), false);
    const pod = start(world.pod({ podId: 'pod-a' }));
    const run = world.store.runs.get(runId);
    await world.clock.until(
      () => pod.seen.some((e) => e.name === 'recorded' && e.runId === runId),
      11_000,
      'adopted run recorded',
    );
    expect(run?.status).toBe('success');
    expect(pod.seen.filter((e) => e.name === 'recovered')).toEqual([
      { name: 'recovered', runId, jobId: job.id, action: 'adopted', reason: 'not_started' },
    ]);
    expect(run).toMatchObject({ podId: 'pod-a', errorKind: null, attempts: 1 });
    expect(world.runner.callsFor(job.id).map((c) => iso(c.request.scheduledAt.getTime()))).toEqual([
      iso(at('00:00:00')),
    ]);
    expect(await pod.metric('hermesx_scheduler_recovered_runs_total', { reason: 'adopted' })).toBe(
      1,
    );
    // Later recoveries leave it alone, and the job goes on.
    await world.clock.advanceTo(at('00:01:00.500'));
    expect(world.runner.callsFor(job.id)).toHaveLength(2);
    expect(world.store.runsOf(job.id).map((r) => r.status)).toEqual(['success', 'success']);
  });

  it('fails a run of a pod without a liveness key and frees its lock within the recovery interval', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *' });
    const { runId } = await deadPodRun(world, job.id, at('00:00:00'));
    const pod = start(world.pod({ podId: 'pod-a' }));

    const run = world.store.runs.get(runId);
    const failedAt = await world.clock.until(
      () => run?.status === 'failed',
      10_000 + 1000,
      'dead pod run failed',
    );
    expect(failedAt - T0).toBeLessThanOrEqual(10_000);
    expect(run?.error).toBe(POD_CRASH);
    expect(run?.errorKind).toBe('pod_lost');
    expect(world.redis.holder(job.id)).toBeNull();
    expect(await pod.metric('hermesx_scheduler_recovered_runs_total', { reason: 'pod_gone' })).toBe(
      1,
    );
    expect(world.store.job(job.id)).toMatchObject({
      lastRunSuccess: false,
      lastRunError: POD_CRASH,
    });

    // The job is free again: the next occurrence runs here.
    await world.clock.advanceTo(at('00:01:00.500'));
    expect(scheduledTimes(world, job.id)).toEqual([iso(at('00:01:00'))]);
    expect(world.store.runsOf(job.id).map((r) => r.status)).toEqual(['failed', 'success']);
  });

  it('waits for the liveness key of a pod that just died to expire', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *' });
    const { dead, runId } = await deadPodRun(world, job.id, at('00:00:00'));
    await dead.publishLiveness('pod-dead', 15_000, true); // proof valid until 00:00:15.5
    start(world.pod({ podId: 'pod-a' }));
    const run = world.store.runs.get(runId);

    await world.clock.advanceTo(at('00:00:15'));
    expect(run?.status).toBe('running'); // the check at 00:00:10.5 saw it alive
    expect(world.redis.holder(job.id)?.podId).toBe('pod-dead');
    await world.clock.advanceTo(at('00:00:20.500'));
    expect(run?.status).toBe('failed');
    expect(world.redis.holder(job.id)).toBeNull();
  });

  it('never fails the runs of a live pod, however long they take', async () => {
    const world = new World(T0, { tieSeed: 11 });
    const job = world.store.addJob({ schedule: '0 */5 * * * *' });
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 200_000 });
    const pods = [start(world.pod()), start(world.pod()), start(world.pod())];
    await world.clock.advanceTo(at('00:10:00.500'));
    expect(world.store.runsOf(job.id).map((r) => [iso(r.scheduledAt.getTime()), r.status])).toEqual(
      [
        [iso(at('00:05:00')), 'success'],
        [iso(at('00:10:00')), 'running'],
      ],
    );
    for (const pod of pods) {
      expect(await pod.metric('hermesx_scheduler_recovered_runs_total')).toBe(0);
    }
  });

  it('fails its own leftover runs at start (a restarted pod keeps its id)', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *' });
    const old = world.redis.forPod('pod-a');
    await old.acquire(job.id, at('00:00:00'), 720_000);
    const runId = runIdOf(await world.store.claimRun(job.id, new Date(at('00:00:00')), 'pod-a'));
    await world.store.markSent(runId, 'pod-a');
    const pod = start(world.pod({ podId: 'pod-a' }));
    await world.clock.advanceTo(at('00:00:01'));
    expect(world.store.runs.get(runId as string)).toMatchObject({
      status: 'failed',
      error: POD_CRASH,
    });
    expect(world.redis.holder(job.id)).toBeNull();
    expect(
      await pod.metric('hermesx_scheduler_recovered_runs_total', { reason: 'pod_restarted' }),
    ).toBe(1);
    await world.clock.advanceTo(at('00:01:00.500'));
    expect(scheduledTimes(world, job.id)).toEqual([iso(at('00:01:00'))]);
  });

  it('fails runs older than the lock TTL at each poll (the guide safety net)', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 0 * * * *' });
    // A live pod whose run overran its lock (its liveness is kept fresh by the test).
    const runId = runIdOf(
      await world.store.claimRun(job.id, new Date(at('00:00:00')), 'pod-stuck'),
    );
    const stuck = world.redis.forPod('pod-stuck');
    const pod = start(world.pod({ settings: { lockTtlMs: 60_000, execTimeoutMs: 30_000 } }));
    for (let t = 0; t < 90; t += 5) {
      await stuck.publishLiveness('pod-stuck', 15_000, true);
      await world.clock.advance(5_000);
    }
    expect(world.store.runs.get(runId as string)).toMatchObject({
      status: 'failed',
      error: POD_CRASH,
    });
    expect(await pod.metric('hermesx_scheduler_recovered_runs_total', { reason: 'stale' })).toBe(1);
  });
});

describe('Scheduler: a lock left by a pod that died before claiming', () => {
  it('frees it at the next occurrence once the holder is gone, instead of waiting for its TTL', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *' });
    const pod = start(world.pod({ podId: 'pod-live' }));
    await world.clock.until(() => pod.scheduler.running, 5000, 'scheduler started');
    // pod-dead took the lock for 00:01 and was killed before its claim: no run row exists, so
    // recovery has nothing to clean up; its liveness key is absent.
    world.redis.set(
      `hermesx:cron:lock:${job.id}`,
      `run|${at('00:01:00')}|deadbeef|pod-dead`,
      720_000,
    );
    await world.clock.advanceTo(at('00:02:00.500'));
    expect(scheduledTimes(world, job.id)).toEqual([iso(at('00:02:00'))]);
    expect(world.store.runsOf(job.id).map((r) => r.podId)).toEqual(['pod-live']);
  });

  it('leaves a live pod that is still running an earlier occurrence alone (overlap)', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 * * * * *' });
    const pod = start(world.pod({ podId: 'pod-live' }));
    await world.clock.until(() => pod.scheduler.running, 5000, 'scheduler started');
    world.redis.set('hermesx:pod:pod-busy', '1', 3_600_000);
    world.redis.set(`hermesx:cron:lock:${job.id}`, `run|${at('00:01:00')}|cafe|pod-busy`, 720_000);
    await world.clock.advanceTo(at('00:02:00.500'));
    expect(scheduledTimes(world, job.id)).toEqual([]);
  });
});
