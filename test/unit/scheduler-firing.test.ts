// The scheduler core against in-memory fakes and a fake clock: firing, multi-pod exclusion, job
// changes, overlap, exec timeout and the concurrency limit.
import { STEAL_DELAY_MS } from '../../src/scheduler/steal-lists.js';
import { afterEach, describe, expect, it } from 'vitest';
import { capturingLogger } from '../helpers/log.js';
import { PARKED } from '../kit/rows.js';
import { World, type Pod, podStarter } from '../kit/world.js';

/** 2026-01-01 at a UTC time of day ("00:01:00", "00:00:05.200"). */
const at = (time: string) => Date.parse(`2026-01-01T${time}Z`);
const iso = (ms: number) => new Date(ms).toISOString();
const seconds = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => iso(at('00:00:00') + (from + i) * 1000));
const T0 = at('00:00:00.500');

const starter = podStarter();
const start = (pod: Pod) => starter.start(pod);
afterEach(() => starter.stopAll());

describe('Scheduler: firing', () => {
  it('plans and reads the due window at start and fires a per-second job at each nominal second, once', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '* * * * * *', prompt: 'tick', name: 'ticker' });
    const { log, lines } = capturingLogger();
    const pod = start(world.pod({ podId: 'pod-a', log }));

    await world.clock.advanceTo(at('00:00:10.500'));

    // No job is loaded by id: the pod reads the window once a second (at start and 10 times).
    expect(world.store.calls.loadJobs).toBe(0);
    expect(world.store.calls.dueJobs).toBe(11);
    expect(await pod.metric('hermesx_scheduler_jobs_loaded')).toBe(1);
    expect(pod.scheduler.running).toBe(true);

    const calls = world.runner.callsFor(job.id);
    expect(calls.map((c) => iso(c.request.scheduledAt.getTime()))).toEqual(seconds(1, 10));
    // Fired at the nominal instant, not later.
    expect(calls.map((c) => iso(c.startedMs))).toEqual(seconds(1, 10));
    expect(calls[0]?.request).toEqual({
      jobId: job.id,
      tenantId: job.tenantId,
      name: 'ticker',
      prompt: 'tick',
      timezone: 'UTC',
      scheduledAt: new Date(at('00:00:01')),
      runId: world.store.runsOf(job.id)[0]?.id,
    });
    expect(calls.every((c) => c.podId === 'pod-a')).toBe(true);

    const runs = world.store.runsOf(job.id);
    expect(runs.map((r) => iso(r.scheduledAt.getTime()))).toEqual(seconds(1, 10));
    expect(runs.every((r) => r.status === 'success' && r.result === 'ok' && r.error === null)).toBe(
      true,
    );
    expect(runs.every((r) => r.podId === 'pod-a')).toBe(true);
    expect(world.store.job(job.id)).toMatchObject({
      runCount: 10,
      lastRunSuccess: true,
      lastRunError: null,
      lastRunAt: new Date(at('00:00:10')),
      nextRunAt: new Date(at('00:00:11')),
    });
    expect(await pod.metric('hermesx_scheduler_runs_total', { status: 'success' })).toBe(10);
    expect(await pod.metric('hermesx_scheduler_missed_occurrences_total')).toBe(0);
    expect(await pod.metric('hermesx_scheduler_caught_up_total')).toBe(0);

    // Nothing noisy: one start line, one line per execution, no warnings.
    expect(lines.filter((l) => !l.includes('level=INFO'))).toEqual([]);
    const messages = lines.map((l) => /msg=("[^"]*"|\S+)/.exec(l)?.[1]?.replaceAll('"', ''));
    expect(messages.filter((m) => m !== 'cron job executed')).toEqual(['scheduler started']);
    expect(lines.filter((l) => l.includes('msg="cron job executed"'))).toHaveLength(10);
    const first = lines.find((l) => l.includes('msg="cron job executed"')) ?? '';
    for (const field of [
      `job_id=${job.id}`,
      `tenant_id=${job.tenantId}`,
      `run_id=${runs[0]?.id}`,
      'scheduled_at=2026-01-01T00:00:01.000Z',
      'status=success',
      'duration_ms=0',
      'pod=pod-a',
    ]) {
      expect(first).toContain(field);
    }
  });

  it('three pods sharing the store and the locks run each occurrence exactly once', async () => {
    const world = new World(T0, { tieSeed: 7 });
    // Fixed ids: which pod owns which job (and so the count of failed tries) is reproducible.
    const jobs = Array.from({ length: 30 }, (_, i) =>
      world.store.addJob({
        schedule: '* * * * * *',
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      }),
    );
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 300 });
    const pods = ['pod-a', 'pod-b', 'pod-c'].map((podId) => start(world.pod({ podId })));

    await world.clock.advanceTo(at('00:01:00.500'));

    for (const job of jobs) {
      const calls = world.runner.callsFor(job.id);
      expect(calls.map((c) => iso(c.request.scheduledAt.getTime()))).toEqual(seconds(1, 60));
      const runs = world.store.runsOf(job.id);
      expect(runs).toHaveLength(60);
      expect(runs.every((r) => r.status === 'success')).toBe(true);
    }
    expect(world.runner.maxActivePerJob).toBe(1);
    let lockSkips = 0;
    let executed = 0;
    for (const pod of pods) {
      lockSkips += await pod.metric('hermesx_scheduler_lock_skips_total');
      const ran = await pod.metric('hermesx_scheduler_runs_total');
      executed += ran;
      expect(ran).toBe(world.runner.calls.filter((c) => c.podId === pod.podId).length);
      // Work is spread: each pod owns a share of the jobs.
      expect(ran).toBeGreaterThan(0);
    }
    expect(executed).toBe(30 * 60);
    // Each pod tries the jobs it owns; the others' only once per owner and second (a probe that
    // finds the owner's lock): 6 failed tries a second here, plus the first seconds, before every
    // pod has seen the others. Without owners it was two losers per occurrence (3,600).
    expect(lockSkips).toBeLessThan(executed * 0.3);
  });

  it('a new job announced by jobsChanged fires at its first occurrence; the sweep plans the others', async () => {
    const world = new World(T0);
    const pod = start(world.pod());
    await world.clock.advanceTo(at('00:00:05.200'));
    const announced = world.store.addJob({ schedule: '* * * * * *' });
    const silent = world.store.addJob({ schedule: '* * * * * *' });
    pod.scheduler.jobsChanged([announced.id]);

    await world.clock.advanceTo(at('00:00:08.500'));
    const runs = (id: string) =>
      world.runner
        .callsFor(id)
        .map((c) => [iso(c.request.scheduledAt.getTime()), iso(c.startedMs)]);
    expect(runs(announced.id)).toEqual(seconds(6, 8).map((s) => [s, s]));
    // The one nobody announced (written by SQL, say) has no next_run_at until the planning
    // sweep (every 2 s from the start: 00:00:06.5) gives it one: its occurrence at 00:00:06,
    // after it was created, is caught up once, then it runs on time.
    expect(runs(silent.id)).toEqual([
      [iso(at('00:00:06')), iso(at('00:00:06.500'))],
      [iso(at('00:00:07')), iso(at('00:00:07'))],
      [iso(at('00:00:08')), iso(at('00:00:08'))],
    ]);
    expect(await pod.metric('hermesx_scheduler_caught_up_total')).toBe(1);
    expect(await pod.metric('hermesx_scheduler_missed_occurrences_total')).toBe(0);
    expect(world.store.job(silent.id).nextRunAt).toEqual(new Date(at('00:00:09')));
  });

  it('an edited prompt is used from the next occurrence: the claim reads it, notified or not', async () => {
    const world = new World(T0);
    const notified = world.store.addJob({ schedule: '* * * * * *', prompt: 'v1' });
    const silent = world.store.addJob({ schedule: '* * * * * *', prompt: 'v1' });
    const pod = start(world.pod());

    await world.clock.advanceTo(at('00:00:05.700'));
    world.store.updateJob(notified.id, { prompt: 'v2' });
    world.store.updateJob(silent.id, { prompt: 'v2' });
    pod.scheduler.jobsChanged([notified.id]);
    await world.clock.advanceTo(at('00:00:35.500'));

    const prompts = (id: string) =>
      world.runner
        .callsFor(id)
        .map((c) => [iso(c.request.scheduledAt.getTime()), c.request.prompt]);
    for (const job of [notified, silent]) {
      expect(prompts(job.id)).toEqual(seconds(1, 35).map((s, i) => [s, i < 5 ? 'v1' : 'v2']));
    }
    // Reloading an edited job (after the notification, or at the poll) neither repeats nor skips
    // an occurrence.
    expect(await pod.metric('hermesx_scheduler_caught_up_total')).toBe(0);
    expect(await pod.metric('hermesx_scheduler_missed_occurrences_total')).toBe(0);
  });

  it('a disabled or deleted job stops after jobsChanged or after the next read of the window', async () => {
    const world = new World(T0);
    const paused = world.store.addJob({ schedule: '* * * * * *' });
    const deleted = world.store.addJob({ schedule: '* * * * * *' });
    const pod = start(world.pod());
    await world.clock.advanceTo(at('00:00:05.700'));
    world.store.updateJob(paused.id, { enabled: false });
    pod.scheduler.jobsChanged([paused.id]);
    world.store.deleteJob(deleted.id); // no notification: the next read must notice
    const acquiresOf = (id: string) => world.redis.acquiresByJob.get(id) ?? 0;

    await world.clock.advanceTo(at('00:00:06.900'));
    expect(world.runner.callsFor(paused.id)).toHaveLength(5);
    expect(acquiresOf(paused.id)).toBe(5); // gone from the queue at once
    // Until the read at 00:00:06.5 the pod still tried the deleted job; the claim refused it.
    expect(world.runner.callsFor(deleted.id)).toHaveLength(5);
    expect(acquiresOf(deleted.id)).toBe(6);
    expect(await pod.metric('hermesx_scheduler_jobs_loaded')).toBe(0);

    await world.clock.advanceTo(at('00:00:40.500'));
    expect(acquiresOf(deleted.id)).toBe(6);
    expect(acquiresOf(paused.id)).toBe(5);

    // Re-enabled: due from now on, the paused stretch is not caught up.
    world.store.updateJob(paused.id, { enabled: true });
    pod.scheduler.jobsChanged([paused.id]);
    await world.clock.advanceTo(at('00:00:43.500'));
    expect(
      world.runner.callsFor(paused.id).map((c) => iso(c.request.scheduledAt.getTime())),
    ).toEqual([...seconds(1, 5), ...seconds(41, 43)]);
    expect(await pod.metric('hermesx_scheduler_caught_up_total')).toBe(0);
  });

  it('a schedule change takes effect at once; occurrences before the change are never caught up', async () => {
    const world = new World(T0);
    const job = world.store.addJob({ schedule: '0 0 * * * *' }); // hourly
    const pod = start(world.pod());
    await world.clock.advanceTo(at('00:00:05.500'));
    world.store.updateJob(job.id, { schedule: '*/10 * * * * *' });
    pod.scheduler.jobsChanged([job.id]);
    await world.clock.advanceTo(at('00:00:30.500'));
    expect(world.runner.callsFor(job.id).map((c) => iso(c.request.scheduledAt.getTime()))).toEqual(
      ['00:00:10', '00:00:20', '00:00:30'].map((t) => iso(at(t))),
    );
    // Back to hourly, without a notification: the update clears next_run_at, the next read
    // (00:00:31.5) no longer finds the job due, and the sweep plans it for 01:00:00.
    world.store.updateJob(job.id, { schedule: '0 0 * * * *' });
    await world.clock.advanceTo(at('00:00:45'));
    expect(world.store.job(job.id).nextRunAt).toEqual(new Date(at('01:00:00')));
    await world.clock.advanceTo(at('00:05:00'));
    expect(world.runner.callsFor(job.id)).toHaveLength(3);
    expect(await pod.metric('hermesx_scheduler_caught_up_total')).toBe(0);
  });

  it('skips a job whose stored schedule does not parse, warning once per definition', async () => {
    const world = new World(T0);
    const broken = world.store.addJob({ schedule: 'every now and then' });
    const fine = world.store.addJob({ schedule: '*/10 * * * * *' });
    const { log, lines } = capturingLogger();
    const pod = start(world.pod({ log }));
    await world.clock.advanceTo(at('00:01:40.300'));
    const warnings = lines.filter((l) => l.includes('msg="job skipped: invalid schedule"'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`job_id=${broken.id}`);
    expect(world.runner.callsFor(broken.id)).toEqual([]);
    expect(world.runner.callsFor(fine.id)).toHaveLength(10);
    // The sweep parked it; only the fine one comes into the window (within 5 s of 01:50).
    expect(world.store.job(broken.id).nextRunAt).toEqual(PARKED);
    await world.clock.advanceTo(at('00:01:46'));
    expect(await pod.metric('hermesx_scheduler_jobs_loaded')).toBe(1);

    world.store.updateJob(broken.id, { schedule: '*/10 * * * * *' });
    pod.scheduler.jobsChanged([broken.id]);
    await world.clock.advanceTo(at('00:01:50.500'));
    expect(world.runner.callsFor(broken.id).map((c) => iso(c.startedMs))).toEqual([
      iso(at('00:01:50')),
    ]);
  });

  it('resync() picks up changes whose notifications were lost', async () => {
    const world = new World(T0);
    const pod = start(world.pod());
    await world.clock.advanceTo(at('00:00:02'));
    const job = world.store.addJob({ schedule: '*/5 * * * * *' });
    pod.scheduler.resync();
    await world.clock.advanceTo(at('00:00:10.500'));
    expect(world.runner.callsFor(job.id).map((c) => iso(c.request.scheduledAt.getTime()))).toEqual([
      iso(at('00:00:05')),
      iso(at('00:00:10')),
    ]);
  });
});

describe('Scheduler: overlap, timeout, capacity', () => {
  it('skips an occurrence while the previous run of the job still runs (one pod or several)', async () => {
    for (const podCount of [1, 2]) {
      const world = new World(T0, { tieSeed: 3 });
      const job = world.store.addJob({ schedule: '* * * * * *' });
      world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 2500 });
      const pods = Array.from({ length: podCount }, () => start(world.pod()));

      await world.clock.advanceTo(at('00:00:10.500'));
      const calls = world.runner.callsFor(job.id);
      expect(calls.map((c) => iso(c.request.scheduledAt.getTime()))).toEqual([
        iso(at('00:00:01')),
        iso(at('00:00:04')),
        iso(at('00:00:07')),
        iso(at('00:00:10')),
      ]);
      expect(world.runner.maxActivePerJob).toBe(1);
      expect(world.store.runsOf(job.id).map((r) => r.status)).toEqual([
        'success',
        'success',
        'success',
        'running',
      ]);
      let overlaps = 0;
      let lockSkips = 0;
      for (const pod of pods) {
        overlaps += await pod.metric('hermesx_scheduler_overlap_skips_total');
        lockSkips += await pod.metric('hermesx_scheduler_lock_skips_total');
      }
      // Six occurrences came due while a run was going: each pod skipped each one, either
      // because it was running the job itself or because another pod held the lock.
      expect(overlaps + lockSkips).toBe(6 * podCount + 4 * (podCount - 1));
      if (podCount === 1) expect(overlaps).toBe(6);
    }
  });

  it.each(['ignore', 'hang'] as const)(
    'a run that never ends (%s its signal) is failed with a timeout at the exec timeout',
    async (kind) => {
      const world = new World(T0);
      const job = world.store.addJob({ schedule: '0 * * * * *' });
      world.runner.behaviour = (_, call) => (call === 0 ? { kind } : { kind: 'resolve' });
      const pod = start(world.pod());

      await world.clock.advanceTo(at('00:07:30'));
      const runs = world.store.runsOf(job.id);
      expect(runs.map((r) => [iso(r.scheduledAt.getTime()), r.status])).toEqual([
        [iso(at('00:01:00')), 'failed'],
        [iso(at('00:06:00')), 'success'],
        [iso(at('00:07:00')), 'success'],
      ]);
      const failed = runs[0];
      expect(failed?.error).toMatch(/^timeout/);
      expect(failed?.error).toBe('timeout: run exceeded SCHEDULER_EXEC_TIMEOUT (5m0s)');
      expect(failed?.finishedAt?.getTime()).toBe(at('00:06:00'));
      expect(failed?.durationMs).toBe(300_000);
      expect(world.runner.calls[0]?.signal.aborted).toBe(true);
      expect(world.runner.maxActivePerJob).toBe(kind === 'hang' ? 1 : 2);
      expect(await pod.metric('hermesx_scheduler_overlap_skips_total')).toBe(4);
      expect(await pod.metric('hermesx_scheduler_runs_total', { status: 'failed' })).toBe(1);
      expect(world.store.job(job.id)).toMatchObject({ runCount: 3, lastRunSuccess: true });
    },
  );

  it('at maxConcurrentRuns, occurrences are set aside and run when slots free, none lost', async () => {
    const world = new World(T0);
    const jobs = Array.from({ length: 5 }, (_, i) =>
      world.store.addJob({ schedule: '0 * * * * *', name: `job-${i}` }),
    );
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 10_000 });
    const pod = start(world.pod({ settings: { maxConcurrentRuns: 2 } }));

    await world.clock.advanceTo(at('00:01:00'));
    expect(world.runner.active).toBe(2);
    expect(await pod.metric('hermesx_scheduler_capacity_deferrals_total')).toBe(3);
    expect(await pod.metric('hermesx_scheduler_runs_in_flight')).toBe(2);
    await world.clock.advanceTo(at('00:01:10'));
    expect(world.runner.calls).toHaveLength(4);
    await world.clock.advanceTo(at('00:01:30'));

    expect(world.runner.maxActive).toBe(2);
    expect(world.runner.calls.map((c) => iso(c.startedMs))).toEqual([
      ...Array(2).fill(iso(at('00:01:00'))),
      ...Array(2).fill(iso(at('00:01:10'))),
      iso(at('00:01:20')),
    ]);
    // Each ran its own nominal occurrence, late but once.
    for (const job of jobs) {
      expect(
        world.store.runsOf(job.id).map((r) => [iso(r.scheduledAt.getTime()), r.status]),
      ).toEqual([[iso(at('00:01:00')), 'success']]);
    }
    expect(await pod.metric('hermesx_scheduler_missed_occurrences_total')).toBe(0);
    expect(await pod.metric('hermesx_scheduler_runs_in_flight')).toBe(0);
  });

  it('a slot frees when the agent answers, not when the outcome is recorded', async () => {
    const world = new World(T0);
    const jobs = Array.from({ length: 3 }, () => world.store.addJob({ schedule: '0 * * * * *' }));
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 1000 });
    world.store.methodLatencyMs.finishRun = 5000;
    const pod = start(world.pod({ settings: { maxConcurrentRuns: 1 } }));

    await world.clock.advanceTo(at('00:01:30'));
    expect(world.runner.calls.map((c) => iso(c.startedMs))).toEqual([
      iso(at('00:01:00')),
      iso(at('00:01:01')),
      iso(at('00:01:02')),
    ]);
    for (const job of jobs) {
      expect(world.store.runsOf(job.id).map((r) => r.status)).toEqual(['success']);
    }
    expect(await pod.metric('hermesx_scheduler_runs_in_flight')).toBe(0);
  });

  it('a pod at its limit leaves work to pods with room', async () => {
    const world = new World(T0, { tieSeed: 5 });
    const jobs = Array.from({ length: 4 }, () => world.store.addJob({ schedule: '0 * * * * *' }));
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 10_000 });
    const pods = [1, 2].map(() => start(world.pod({ settings: { maxConcurrentRuns: 2 } })));
    await world.clock.advanceTo(at('00:01:30'));
    // Jobs whose owner is full are taken over by the pod with room after the steal delay.
    for (const call of world.runner.calls) {
      expect(call.startedMs - at('00:01:00')).toBeLessThanOrEqual(STEAL_DELAY_MS);
    }
    expect(world.runner.calls).toHaveLength(4);
    for (const pod of pods) {
      expect(world.runner.calls.filter((c) => c.podId === pod.podId)).toHaveLength(2);
    }
    for (const job of jobs) expect(world.store.runsOf(job.id)).toHaveLength(1);
  });

  it("a set-aside occurrence waits for a slot until its job's next occurrence overtakes it", async () => {
    const world = new World(T0);
    const [a, b, c] = ['a', 'b', 'c'].map((name) =>
      world.store.addJob({
        schedule: '0 * * * * *',
        name,
        id: `0000000${name}-0000-4000-8000-000000000000`,
      }),
    );
    world.runner.behaviour = () => ({ kind: 'resolve', afterMs: 40_000 });
    const pod = start(world.pod({ settings: { maxConcurrentRuns: 1 } }));
    const ran = () =>
      world.runner.calls.map((call) => [
        call.request.name,
        iso(call.request.scheduledAt.getTime()),
        iso(call.startedMs),
      ]);

    // 00:01: a runs; b and c wait. 00:01:40: b's turn; c waits on, for longer than a poll interval.
    await world.clock.advanceTo(at('00:01:59'));
    expect(ran()).toEqual([
      ['a', iso(at('00:01:00')), iso(at('00:01:00'))],
      ['b', iso(at('00:01:00')), iso(at('00:01:40'))],
    ]);
    expect(await pod.metric('hermesx_scheduler_capacity_deferrals_total')).toBe(2);
    expect(await pod.metric('hermesx_scheduler_missed_occurrences_total')).toBe(0);
    // 00:02: c's next occurrence overtakes the one still waiting (missed); b is still running
    // (overlap); a's new occurrence waits too.
    await world.clock.advanceTo(at('00:02:59'));
    expect(ran().slice(2)).toEqual([['a', iso(at('00:02:00')), iso(at('00:02:20'))]]);
    expect(await pod.metric('hermesx_scheduler_missed_occurrences_total')).toBe(1);
    expect(await pod.metric('hermesx_scheduler_overlap_skips_total')).toBe(1);
    expect(world.store.runsOf(c?.id ?? '')).toEqual([]);
    expect([a, b].map((job) => world.store.runsOf(job?.id ?? '').length)).toEqual([2, 1]);
  });
});
