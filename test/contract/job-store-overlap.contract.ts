// The JobStore contract, overlap policies: allow_all claims beside a run in flight; buffer_one
// and cancel_other claim one waiting occurrence ahead of the lock (claimWaiting), ask earlier
// runs to stop (cancelOlderRuns) and start the waiting run once its turn comes (startWaiting).
import { expect, it } from 'vitest';
import {
  at,
  runIdOf,
  runningRun,
  SINCE,
  success,
  type JobStoreHarness,
} from './job-store-harness.js';

export function describeOverlapCases(setup: () => JobStoreHarness): void {
  it('allow_all claims occurrences beside one in flight; skip does not', async () => {
    const h = setup();
    const a = h.storeFor('pod-a');
    const side = await h.addJob();
    await h.setOverlap(side, 'allow_all');
    const skip = await h.addJob();
    await runningRun(a, side, at(1), 'pod-a');
    await runningRun(a, skip, at(1), 'pod-a');
    expect((await a.claimRun(side, at(2), 'pod-a')).kind).toBe('claimed');
    expect(await a.claimRun(side, at(1), 'pod-a')).toEqual({ kind: 'taken' });
    expect(await a.claimRun(skip, at(2), 'pod-a')).toEqual({ kind: 'taken' });
  });

  it('claimWaiting claims one occurrence behind the running one; at most one waits', async () => {
    const h = setup();
    const a = h.storeFor('pod-a');
    const b = h.storeFor('pod-b');
    const job = await h.addJob();
    await h.setOverlap(job, 'buffer_one');
    await a.planJobs([job], 10, SINCE, (taken) => taken.map(() => at(2)));
    const running = await runningRun(a, job, at(1), 'pod-a');
    expect(await a.claimRun(job, at(2), 'pod-a')).toEqual({ kind: 'taken' });
    const answer = await b.claimWaiting(job, at(2), 'pod-b', at(3));
    expect(answer).toMatchObject({ kind: 'claimed', run: { name: expect.any(String) } });
    const waiting = runIdOf(answer);
    expect(await h.run(waiting)).toMatchObject({ status: 'claimed', podId: 'pod-b', attempts: 0 });
    expect(await h.nextRunAt(job)).toEqual(at(3));
    expect(await a.claimWaiting(job, at(3), 'pod-a', at(4))).toEqual({ kind: 'overlap' });
    expect(await a.claimWaiting(job, at(2), 'pod-a', at(3))).toEqual({ kind: 'taken' });
    expect(await h.nextRunAt(job)).toEqual(at(3));

    // Its turn: only the pod holding it, for its own occurrence, while still claimed.
    expect(await a.startWaiting(waiting, at(2), 'pod-a')).toBe(false);
    expect(await b.startWaiting(waiting, at(3), 'pod-b')).toBe(false);
    expect(await a.finishRun(running, success, 'pod-a')).toBe('recorded');
    expect(await b.startWaiting(waiting, at(2), 'pod-b')).toBe(true);
    expect(await b.markSent(waiting, 'pod-b')).toBe(true);
    expect(await b.startWaiting(waiting, at(2), 'pod-b')).toBe(false);
    expect(await b.finishRun(waiting, success, 'pod-b')).toBe('recorded');
  });

  it('claimWaiting refuses skip and allow_all jobs, disabled ones, and a tenant at its cap', async () => {
    const h = setup();
    const a = h.storeFor('pod-a');
    const skip = await h.addJob();
    expect(await a.claimWaiting(skip, at(2), 'pod-a', null)).toEqual({ kind: 'taken' });
    const side = await h.addJob();
    await h.setOverlap(side, 'allow_all');
    expect(await a.claimWaiting(side, at(2), 'pod-a', null)).toEqual({ kind: 'taken' });
    const off = await h.addJob();
    await h.setOverlap(off, 'cancel_other');
    await h.disableJob(off);
    expect(await a.claimWaiting(off, at(2), 'pod-a', null)).toEqual({ kind: 'taken' });

    const tenant = await h.addTenant(1);
    const job = await h.addJob(tenant);
    await h.setOverlap(job, 'cancel_other');
    const running = await runningRun(a, job, at(1), 'pod-a');
    expect(await a.claimWaiting(job, at(2), 'pod-a', null)).toEqual({ kind: 'capped' });
    expect(await a.finishRun(running, success, 'pod-a')).toBe('recorded');
    expect((await a.claimWaiting(job, at(2), 'pod-a', null)).kind).toBe('claimed');
  });

  it("cancelOlderRuns names the job's runs in flight for earlier occurrences", async () => {
    const h = setup();
    const a = h.storeFor('pod-a');
    const b = h.storeFor('pod-b');
    const job = await h.addJob();
    await h.setOverlap(job, 'cancel_other');
    const other = await h.addJob();
    await runningRun(a, other, at(1), 'pod-a');
    const running = await runningRun(a, job, at(1), 'pod-a');
    const waiting = runIdOf(await b.claimWaiting(job, at(2), 'pod-b', null));
    expect(await b.cancelOlderRuns(job, at(1))).toEqual([]);
    expect(await b.cancelOlderRuns(job, at(2))).toEqual([running]);
    expect((await b.cancelOlderRuns(job, at(3))).sort()).toEqual([running, waiting].sort());
    // Asking is not stopping: the runs stay as they are until their pods record them.
    expect(await h.run(running)).toMatchObject({ status: 'running', podId: 'pod-a' });
    expect(await a.finishRun(running, success, 'pod-a')).toBe('recorded');
    expect(await b.cancelOlderRuns(job, at(3))).toEqual([waiting]);
  });
}
