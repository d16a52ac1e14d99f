// The JobStore contract, queued runs: the retry policy sends a failed attempt back to the queue
// (finishRun answers 'requeued', failRuns says so), a pod takes due queued runs and hands back
// those it cannot start, one run of a job at a time and within the tenant's cap.
import { expect, it } from 'vitest';
import {
  at,
  modelError,
  runIdOf,
  runningRun,
  success,
  takeMine,
  type JobStoreHarness,
} from './job-store-harness.js';

export function describeQueueCases(setup: () => JobStoreHarness): void {
  it('finishRun answers requeued when the job retries the attempt; a pod takes it once due', async () => {
    const h = setup();
    const a = h.storeFor('pod-a');
    const b = h.storeFor('pod-b');
    const job = await h.addJob();
    await h.setRetry(job, { maxAttempts: 2, backoffMs: 1000 });
    const runId = await runningRun(a, job, at(1), 'pod-a');
    expect(await a.finishRun(runId, modelError, 'pod-a')).toBe('requeued');
    expect(await h.run(runId)).toEqual({
      status: 'queued',
      podId: null,
      error: null,
      errorKind: null,
      attempts: 2,
    });
    expect(await h.attempts(runId)).toMatchObject({
      attempt: 2,
      queued: true,
      previousAttempts: 1,
    });
    // Only the final attempt is the run's outcome: the job is left alone.
    expect(await h.outcomes(job)).toEqual({
      runCount: 0,
      lastRunSuccess: null,
      lastRunErrorKind: null,
    });
    expect(await a.finishRun(runId, success, 'pod-a')).toBe(false);
    expect(await takeMine(b, 'pod-b', 10, [runId])).toEqual([]); // its backoff is not over
    await h.makeDue(runId);
    const taken = await b.takeQueuedRuns('pod-b', 10);
    expect(taken.filter((run) => run.runId === runId)).toEqual([
      expect.objectContaining({
        runId,
        jobId: job,
        scheduledAt: at(1),
        prompt: expect.any(String),
      }),
    ]);
    expect(await takeMine(a, 'pod-a', 10, [runId])).toEqual([]);
    expect(await h.run(runId)).toMatchObject({ status: 'claimed', podId: 'pod-b', attempts: 0 });
    expect(await b.markSent(runId, 'pod-b')).toBe(true);
    // The last attempt allowed: its failure is the outcome.
    expect(await b.finishRun(runId, modelError, 'pod-b')).toBe('recorded');
    expect(await h.run(runId)).toMatchObject({ status: 'failed', errorKind: 'model_error' });
    expect(await h.attempts(runId)).toMatchObject({ attempt: 2, queued: false });
    expect(await h.outcomes(job)).toEqual({
      runCount: 1,
      lastRunSuccess: false,
      lastRunErrorKind: 'model_error',
    });
  });

  it('records a failure the policy does not retry, and any failure of a job without one', async () => {
    const h = setup();
    const a = h.storeFor('pod-a');
    const retried = await h.addJob();
    await h.setRetry(retried, { maxAttempts: 3, backoffMs: 1000 });
    const plain = await h.addJob();
    const refused = await runningRun(a, retried, at(1), 'pod-a');
    const agentError = { ...modelError, error: 'bad tool', errorKind: 'agent_error' as const };
    expect(await a.finishRun(refused, agentError, 'pod-a')).toBe('recorded');
    const unretried = await runningRun(a, plain, at(1), 'pod-a');
    expect(await a.finishRun(unretried, modelError, 'pod-a')).toBe('recorded');
    expect(await h.run(unretried)).toMatchObject({ status: 'failed', errorKind: 'model_error' });
    expect(await h.outcomes(retried)).toMatchObject({
      runCount: 1,
      lastRunErrorKind: 'agent_error',
    });
  });

  it('failRuns requeues the runs whose job retries them and fails the others', async () => {
    const h = setup();
    const a = h.storeFor('pod-a');
    const retried = await h.addJob();
    await h.setRetry(retried, { maxAttempts: 2, backoffMs: 1000 });
    const plain = await h.addJob();
    const first = await runningRun(a, retried, at(1), 'pod-a');
    const second = runIdOf(await a.claimRun(plain, at(1), 'pod-a'));
    const failed = await a.failRuns([first, second], 'pod crash or lock TTL exceeded', 'pod_lost');
    expect(failed.sort((x, y) => (x.runId < y.runId ? -1 : 1))).toEqual(
      [
        { runId: first, jobId: retried, requeued: true },
        { runId: second, jobId: plain, requeued: false },
      ].sort((x, y) => (x.runId < y.runId ? -1 : 1)),
    );
    expect(await h.run(first)).toMatchObject({ status: 'queued', podId: null });
    expect(await h.outcomes(retried)).toMatchObject({ runCount: 0, lastRunSuccess: null });
    expect(await h.outcomes(plain)).toEqual({
      runCount: 1,
      lastRunSuccess: false,
      lastRunErrorKind: 'pod_lost',
    });
    // A queued run is in flight nowhere: failing it again does nothing.
    expect(await a.failRuns([first], 'again', 'shutdown')).toEqual([]);
    await h.makeDue(first);
    expect(await takeMine(a, 'pod-a', 10, [first])).toEqual([first]);
    expect(await a.failRuns([first], 'stopping', 'shutdown')).toEqual([
      { runId: first, jobId: retried, requeued: false },
    ]);
  });

  it("requeueRuns hands the pod's claimed runs back, to start after the delay", async () => {
    const h = setup();
    const a = h.storeFor('pod-a');
    const b = h.storeFor('pod-b');
    const job = await h.addJob();
    const runId = runIdOf(await a.claimRun(job, at(1), 'pod-a'));
    expect(await b.requeueRuns([runId], 'pod-b', 60_000)).toEqual([]);
    expect(await a.requeueRuns([runId], 'pod-a', 60_000)).toEqual([runId]);
    expect(await h.run(runId)).toMatchObject({ status: 'queued', podId: null });
    expect(await a.requeueRuns([runId], 'pod-a', 60_000)).toEqual([]);
    expect(await takeMine(b, 'pod-b', 10, [runId])).toEqual([]);
    await h.makeDue(runId);
    expect(await takeMine(b, 'pod-b', 10, [runId])).toEqual([runId]);
    expect(await h.attempts(runId)).toMatchObject({ attempt: 1, queued: false });
    // A run already sent is not handed back (its request reached the model).
    expect(await b.markSent(runId, 'pod-b')).toBe(true);
    expect(await b.requeueRuns([runId], 'pod-b', 0)).toEqual([]);
    expect(await b.finishRun(runId, success, 'pod-b')).toBe('recorded');
  });

  it("unsendRuns hands the pod's runs claimed straight into running back to claimed, for adoption", async () => {
    const h = setup();
    const a = h.storeFor('pod-a');
    const b = h.storeFor('pod-b');
    const job = await h.addJob();
    const runId = runIdOf(await a.claimRun(job, at(1), 'pod-a', null, 'scheduled'));
    expect(await h.run(runId)).toMatchObject({ status: 'running', attempts: 1 });
    expect(await b.unsendRuns([runId], 'pod-b')).toEqual([]);
    expect(await a.unsendRuns([runId], 'pod-a')).toEqual([runId]);
    expect(await h.run(runId)).toMatchObject({ status: 'claimed', podId: 'pod-a', attempts: 0 });
    expect(await a.unsendRuns([runId], 'pod-a')).toEqual([]);
    // Claimed again, it is adopted like any claimed run of a pod that is gone.
    const adopted = await b.adoptRuns([{ runId, fromPodId: 'pod-a' }], 'pod-b');
    expect(adopted.map((run) => run.runId)).toEqual([runId]);
    expect(await b.markSent(runId, 'pod-b')).toBe(true);
    expect(await b.unsendRuns([runId], 'pod-a')).toEqual([]);
    expect(await b.finishRun(runId, success, 'pod-b')).toBe('recorded');
    expect(await b.unsendRuns([runId], 'pod-b')).toEqual([]);
  });

  it('takes one run of a job at a time, never beside one in flight, within the tenant cap', async () => {
    const h = setup();
    const a = h.storeFor('pod-a');
    const tenant = await h.addTenant(1);
    const capped = [await h.addJob(tenant), await h.addJob(tenant)];
    const busy = await h.addJob();
    const queued: string[] = [];
    for (const job of capped) {
      const runId = runIdOf(await a.claimRun(job, at(1), 'pod-a'));
      expect(await a.requeueRuns([runId], 'pod-a', 60_000)).toEqual([runId]);
      queued.push(runId);
    }
    // Two queued runs of one job, and a later occurrence of it in flight.
    const busyQueued: string[] = [];
    for (const minute of [1, 2]) {
      const runId = runIdOf(await a.claimRun(busy, at(minute), 'pod-a'));
      expect(await a.requeueRuns([runId], 'pod-a', 60_000)).toEqual([runId]);
      busyQueued.push(runId);
    }
    const inFlight = runIdOf(await a.claimRun(busy, at(3), 'pod-a'));
    for (const runId of [...queued, ...busyQueued]) await h.makeDue(runId);
    const mine = [...queued, ...busyQueued];

    const first = await takeMine(a, 'pod-a', 10, mine);
    expect(first).toHaveLength(1); // the tenant's cap of one; the busy job's runs wait
    expect(queued).toContain(first[0]);
    expect(await takeMine(a, 'pod-a', 10, mine)).toEqual([]);
    expect(await a.finishRun(first[0] as string, success, 'pod-a')).toBe('recorded');
    expect(await a.finishRun(inFlight, success, 'pod-a')).toBe('recorded');
    const second = await takeMine(a, 'pod-a', 10, mine);
    const other = queued.find((runId) => runId !== first[0]) as string;
    // The other capped run, and the busy job's oldest queued run only.
    expect(second.sort()).toEqual([other, busyQueued[0] as string].sort());
    for (const runId of second) expect(await a.finishRun(runId, success, 'pod-a')).toBe('recorded');
    expect(await takeMine(a, 'pod-a', 1, mine)).toEqual([busyQueued[1]]);
    expect(await a.finishRun(busyQueued[1] as string, success, 'pod-a')).toBe('recorded');
  });
}
