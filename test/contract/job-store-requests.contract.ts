// The requests a pod reads after its listener reconnects (migration 389): run-now requests no
// run answers yet, and cancels of its runs in flight.
import { describe, expect, it } from 'vitest';
import { later, runIdOf, success, type JobStoreHarness } from './job-store-harness.js';

export function describeRequestCases(setup: () => JobStoreHarness): void {
  describe('requests a pod did not hear', () => {
    it('lists a run-now of the window until a run answers it', async () => {
      const h = setup();
      const a = h.storeFor('pod-a');
      const tenant = await h.addTenant(null);
      const job = await h.addJob(tenant);
      const disabled = await h.addJob(tenant);
      await h.trigger(job, later(40));
      await h.trigger(disabled, later(40));
      await h.disableJob(disabled);
      const missed = async (sinceMinute: number) =>
        (await a.missedTriggers(later(sinceMinute).getTime())).filter(
          (m) => m.jobId === job || m.jobId === disabled,
        );
      expect(await missed(39)).toEqual([{ jobId: job, scheduledAtMs: later(40).getTime() }]);
      expect(await missed(41), 'older than the window').toEqual([]);
      // A run at another nominal time does not answer it; one at the request's does.
      const other = runIdOf(await a.claimRun(job, later(38), 'pod-a'));
      expect(await a.finishRun(other, success, 'pod-a')).toBe('recorded');
      expect(await missed(39)).toHaveLength(1);
      runIdOf(await a.claimRun(job, later(40), 'pod-a'));
      expect(await missed(39)).toEqual([]);
    });

    it('names the runs in flight asked to stop, until they end', async () => {
      const h = setup();
      const a = h.storeFor('pod-a');
      const tenant = await h.addTenant(null);
      const [asked, left] = [await h.addJob(tenant), await h.addJob(tenant)];
      const askedRun = runIdOf(await a.claimRun(asked, later(42), 'pod-a'));
      const leftRun = runIdOf(await a.claimRun(left, later(42), 'pod-a'));
      expect(await a.cancelsRequested([askedRun, leftRun])).toEqual([]);
      await h.requestCancel(askedRun);
      expect(await a.cancelsRequested([askedRun, leftRun])).toEqual([
        { runId: askedRun, jobId: asked },
      ]);
      expect(await a.cancelsRequested([])).toEqual([]);
      expect(await a.finishRun(askedRun, success, 'pod-a')).toBe('recorded');
      expect(await a.cancelsRequested([askedRun, leftRun])).toEqual([]);
    });
  });
}
