// The fakes must behave like what they replace, or the scheduler tests prove nothing.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../kit/clock.js';
import { FakeJobStore } from '../kit/job-store.js';
import { FakeRedis } from '../kit/redis.js';
import { FakeRunner } from '../kit/runner.js';

const T0 = Date.parse('2026-01-01T00:00:00.500Z');

describe('FakeClock', () => {
  it('runs due timers in time order, async work in between, never early', async () => {
    const clock = new FakeClock(T0);
    const seen: string[] = [];
    clock.setTimeout(() => seen.push(`b@${clock.now() - T0}`), 200);
    clock.setTimeout(() => {
      seen.push(`a@${clock.now() - T0}`);
      // A chain of promises started by a timer completes before the next timer runs.
      void Promise.resolve()
        .then(() => Promise.resolve())
        .then(() => seen.push('a-chain'));
      clock.setTimeout(() => seen.push(`c@${clock.now() - T0}`), 50);
    }, 100);
    const cleared = clock.setTimeout(() => seen.push('cleared'), 120);
    clock.clearTimeout(cleared);
    await clock.advance(140);
    expect(seen).toEqual(['a@100', 'a-chain']);
    expect(clock.now()).toBe(T0 + 140);
    await clock.advance(1000);
    expect(seen).toEqual(['a@100', 'a-chain', 'c@150', 'b@200']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('until() stops at the first instant the condition holds, and fails at its deadline', async () => {
    const clock = new FakeClock(T0);
    let done = false;
    clock.setTimeout(() => (done = true), 700);
    expect(await clock.until(() => done, 1000)).toBe(T0 + 700);
    await expect(clock.until(() => false, 500)).rejects.toThrow(/did not hold/);
    expect(clock.now()).toBe(T0 + 1200);
  });
});

describe('FakeJobStore', () => {
  it('claims an occurrence once, refuses disabled, missing and still-running jobs', async () => {
    const clock = new FakeClock(T0);
    const store = new FakeJobStore(clock);
    const job = store.addJob({ schedule: '* * * * *' });
    const at = new Date('2026-01-01T00:01:00Z');
    const claimed = await store.claimRun(job.id, at, 'p1');
    expect(claimed).toEqual({
      kind: 'claimed',
      run: { runId: expect.any(String), name: 'job', prompt: 'say hello' },
    });
    const runId = claimed.kind === 'claimed' ? claimed.run.runId : '';
    const taken = { kind: 'taken' };
    expect(await store.claimRun(job.id, new Date('2026-01-01T00:02:00Z'), 'p2')).toEqual(taken);
    const ok = { success: true, result: 'r', error: null, errorKind: null, attempts: 1 };
    expect(await store.finishRun(runId, ok, 'p1')).toBe('recorded');
    const failed = { success: false, result: null, error: 'x', errorKind: null, attempts: 1 };
    expect(await store.finishRun(runId, failed, 'p1')).toBe(false);
    expect(await store.claimRun(job.id, at, 'p2')).toEqual(taken); // same occurrence
    expect(await store.claimRun('missing', at, 'p2')).toEqual(taken);
    store.updateJob(job.id, { enabled: false });
    expect(await store.claimRun(job.id, new Date('2026-01-01T00:03:00Z'), 'p2')).toEqual(taken);
    expect(await store.loadJobs([job.id])).toEqual([]);
    store.updateJob(job.id, { enabled: true });
    const [loaded] = await store.loadJobs([job.id]);
    expect(loaded?.dueFrom.getTime()).toBe(T0);
    // Re-enabled by an update that did not write next_run_at: the planning sweep plans it.
    expect(loaded?.nextRunAt).toBeNull();
    expect(store.job(job.id)).toMatchObject({ runCount: 1, lastRunSuccess: true });
  });

  it('fails stale runs, and every call when down', async () => {
    const clock = new FakeClock(T0);
    const store = new FakeJobStore(clock);
    const job = store.addJob({ schedule: '* * * * *' });
    const claim = await store.claimRun(job.id, new Date(T0), 'p1');
    const runId = claim.kind === 'claimed' ? claim.run.runId : undefined;
    await clock.advance(60_000);
    expect(await store.cleanupStaleRuns(60_000)).toBe(0);
    await clock.advance(1);
    expect(await store.cleanupStaleRuns(60_000)).toBe(1);
    expect(store.runs.get(runId as string)).toMatchObject({
      status: 'failed',
      error: 'pod crash or lock TTL exceeded',
    });
    store.down = true;
    await expect(store.loadJobs([job.id])).rejects.toThrow(/database down/);
    expect(store.calls.loadJobs).toBe(1);
  });
});

describe('FakeRedis', () => {
  it('acquires when free or done for an earlier occurrence; releases by token only', async () => {
    const clock = new FakeClock(T0);
    const redis = new FakeRedis(clock);
    const a = redis.forPod('pod-a');
    const b = redis.forPod('pod-b');
    const first = await a.acquire('j', 1000, 60_000);
    expect(first.acquired).toBe(true);
    expect(await b.acquire('j', 1000, 60_000)).toEqual({
      acquired: false,
      holder: { state: 'run', scheduledAtMs: 1000, podId: 'pod-a' },
    });
    expect((await b.acquire('j', 2000, 60_000)).acquired).toBe(false); // still running
    await b.release('j', 'run|1000|0|pod-b', 1000); // wrong token: nothing
    expect(redis.holder('j')?.podId).toBe('pod-a');
    if (!first.acquired) throw new Error('unreachable');
    await a.release('j', first.token, 1000);
    expect(redis.holder('j')).toEqual({ state: 'done', scheduledAtMs: 1000, podId: 'pod-a' });
    expect((await b.acquire('j', 1000, 60_000)).acquired).toBe(false); // that occurrence is done
    const later = await b.acquire('j', 2000, 60_000);
    expect(later.acquired).toBe(true);
    if (!later.acquired) throw new Error('unreachable');
    await b.release('j', later.token, null);
    expect(redis.holder('j')).toBeNull();
  });

  it('expires keys with the clock, frees a dead pod lock, and can be unavailable', async () => {
    const clock = new FakeClock(T0);
    const redis = new FakeRedis(clock);
    const a = redis.forPod('pod-a');
    await a.acquire('j', 1000, 10_000);
    await a.publishLiveness('pod-a', 15_000, true);
    await a.releaseHeldBy('j', 'pod-b');
    expect(redis.holder('j')?.podId).toBe('pod-a');
    await a.releaseHeldBy('j', 'pod-a');
    expect(redis.holder('j')).toBeNull();
    await a.acquire('j', 2000, 10_000);
    await clock.advance(10_000);
    expect(redis.holder('j')).toBeNull();
    expect(await a.livePods(['pod-a', 'pod-b'])).toEqual(new Set(['pod-a']));
    await clock.advance(5_000);
    expect(await a.livePods(['pod-a'])).toEqual(new Set());
    redis.available = false;
    expect(await a.ping()).toBe(false);
    await expect(a.acquire('j', 3000, 1000)).rejects.toThrow(/unavailable/);
  });
});

describe('FakeRunner', () => {
  it('resolves after fake time, rejects on abort unless told to ignore it', async () => {
    const clock = new FakeClock(T0);
    const runner = new FakeRunner(clock);
    const request = {
      jobId: 'j',
      tenantId: 't',
      name: 'n',
      prompt: 'p',
      timezone: 'UTC',
      scheduledAt: new Date(T0),
    };
    runner.behaviour = () => ({ kind: 'resolve', afterMs: 500, result: 'done' });
    const context = (signal: AbortSignal) => ({
      signal,
      deadlineMs: T0 + 60_000,
      beforeSend: () => Promise.resolve(),
    });
    const ok = runner.forPod('p')(request, context(new AbortController().signal));
    await clock.advance(500);
    await expect(ok).resolves.toEqual({ ok: true, text: 'done' });

    runner.behaviour = () => ({ kind: 'hang' });
    const controller = new AbortController();
    const hung = runner.forPod('p')(request, context(controller.signal));
    controller.abort(new Error('stop'));
    await expect(hung).rejects.toThrow('stop');

    runner.behaviour = () => ({ kind: 'ignore' });
    const ignoring = new AbortController();
    void runner.forPod('p')(request, context(ignoring.signal));
    ignoring.abort(new Error('stop'));
    await clock.advance(1000);
    expect(runner.calls.map((c) => c.settledMs)).toEqual([T0 + 500, T0 + 500, null]);
    expect(runner.active).toBe(1);
  });
});
