// What every JobStore must do, whatever it runs on: the in-memory fake of the unit tests and the
// PostgreSQL store (migration 109) both run these cases, so the fake cannot drift from the SQL.
import { describe, expect, it } from 'vitest';
import type { RunOutcome } from '../../src/domain/run.js';
import { at, later, runIdOf, SINCE, success, type JobStoreHarness } from './job-store-harness.js';
import { describeOverlapCases } from './job-store-overlap.contract.js';
import { describeQueueCases } from './job-store-queue.contract.js';
import { describeRequestCases } from './job-store-requests.contract.js';
import { describeUpkeepCases } from './job-store-upkeep.contract.js';

const ids = (jobs: readonly { id: string }[]) => jobs.map((job) => job.id);

export function describeJobStoreContract(name: string, setup: () => JobStoreHarness): void {
  describe(`JobStore contract: ${name}`, () => {
    it('claims an occurrence once; a job in flight claims nothing else', async () => {
      const h = setup();
      const a = h.storeFor('pod-a');
      const job = await h.addJob();
      const runId = runIdOf(await a.claimRun(job, at(1), 'pod-a'));
      expect(await h.run(runId)).toMatchObject({ status: 'claimed', podId: 'pod-a', attempts: 0 });
      expect(await h.storeFor('pod-b').claimRun(job, at(1), 'pod-b')).toEqual({ kind: 'taken' });
      expect(await a.claimRun(job, at(2), 'pod-a')).toEqual({ kind: 'taken' });
      expect(await a.markSent(runId, 'pod-a')).toBe(true);
      expect(await a.claimRun(job, at(2), 'pod-a')).toEqual({ kind: 'taken' });
      expect(await a.finishRun(runId, success, 'pod-a')).toBe('recorded');
      expect(await a.claimRun(job, at(1), 'pod-a')).toEqual({ kind: 'taken' });
      expect((await a.claimRun(job, at(2), 'pod-a')).kind).toBe('claimed');
    });

    it('claims straight into running when the pod sends at once: never adopted, never marked again', async () => {
      const h = setup();
      const a = h.storeFor('pod-a');
      const b = h.storeFor('pod-b');
      const job = await h.addJob();
      const answer = await a.claimRun(job, at(1), 'pod-a', null, 'scheduled');
      expect(answer).toMatchObject({ kind: 'claimed', run: { sent: true } });
      const runId = runIdOf(answer);
      expect(await h.run(runId)).toMatchObject({ status: 'running', podId: 'pod-a', attempts: 1 });
      expect(await b.claimRun(job, at(1), 'pod-b', null, 'scheduled')).toEqual({ kind: 'taken' });
      expect(await a.claimRun(job, at(2), 'pod-a', null, 'scheduled')).toEqual({ kind: 'taken' });
      expect(await b.adoptRuns([{ runId, fromPodId: 'pod-a' }], 'pod-b')).toEqual([]);
      expect(await a.markSent(runId, 'pod-a')).toBe(false);
      expect(await a.finishRun(runId, success, 'pod-a')).toBe('recorded');
      expect(await h.run(runId)).toMatchObject({ status: 'success', attempts: 1 });
    });

    it('refuses disabled and unknown jobs', async () => {
      const h = setup();
      const a = h.storeFor('pod-a');
      const job = await h.addJob();
      await h.disableJob(job);
      expect(await a.claimRun(job, at(1), 'pod-a')).toEqual({ kind: 'taken' });
      const unknown = '7f000000-0000-4000-8000-000000000001';
      expect(await a.claimRun(unknown, at(1), 'pod-a')).toEqual({ kind: 'taken' });
      expect(await a.loadJobs([job])).toEqual([]);
    });

    it('marks sent and records only for the pod that holds the run', async () => {
      const h = setup();
      const a = h.storeFor('pod-a');
      const b = h.storeFor('pod-b');
      const runId = runIdOf(await a.claimRun(await h.addJob(), at(1), 'pod-a'));
      expect(await b.markSent(runId, 'pod-b')).toBe(false);
      expect(await a.markSent(runId, 'pod-a')).toBe(true);
      expect(await a.markSent(runId, 'pod-a')).toBe(false);
      expect(await b.finishRun(runId, success, 'pod-b')).toBe(false);
      const failure: RunOutcome = {
        success: false,
        result: null,
        error: 'the model server answered 429',
        errorKind: 'model_throttled',
        attempts: 3,
      };
      expect(await a.finishRun(runId, failure, 'pod-a')).toBe('recorded');
      expect(await h.run(runId)).toEqual({
        status: 'failed',
        podId: 'pod-a',
        error: 'the model server answered 429',
        errorKind: 'model_throttled',
        attempts: 3,
      });
      expect(await a.finishRun(runId, success, 'pod-a')).toBe(false);
    });

    it('adopts claimed runs from the pod named, once; never a running one', async () => {
      const h = setup();
      const a = h.storeFor('pod-a');
      const b = h.storeFor('pod-b');
      const c = h.storeFor('pod-c');
      const claimedJob = await h.addJob();
      const runningJob = await h.addJob();
      const claimed = runIdOf(await a.claimRun(claimedJob, at(1), 'pod-a'));
      const running = runIdOf(await a.claimRun(runningJob, at(1), 'pod-a'));
      await a.markSent(running, 'pod-a');
      const active = await b.activeRuns();
      expect(active.filter((r) => r.runId === claimed || r.runId === running)).toEqual(
        expect.arrayContaining([
          { runId: claimed, jobId: claimedJob, podId: 'pod-a', status: 'claimed' },
          { runId: running, jobId: runningJob, podId: 'pod-a', status: 'running' },
        ]),
      );
      const taken = [
        { runId: claimed, fromPodId: 'pod-a' },
        { runId: running, fromPodId: 'pod-a' },
      ];
      const adopted = await b.adoptRuns(taken, 'pod-b');
      expect(adopted).toEqual([
        expect.objectContaining({ runId: claimed, jobId: claimedJob, scheduledAt: at(1) }),
      ]);
      expect(await c.adoptRuns(taken, 'pod-c')).toEqual([]);
      expect(await h.run(claimed)).toMatchObject({ status: 'claimed', podId: 'pod-b' });
      // The pod it was taken from can neither send nor record it any more.
      expect(await a.markSent(claimed, 'pod-a')).toBe(false);
      expect(await a.finishRun(claimed, success, 'pod-a')).toBe(false);
      expect(await b.markSent(claimed, 'pod-b')).toBe(true);
      expect(await b.finishRun(claimed, success, 'pod-b')).toBe('recorded');
    });

    it('fails named runs with their kind, and stale ones at the lock TTL', async () => {
      const h = setup();
      const a = h.storeFor('pod-a');
      const first = runIdOf(await a.claimRun(await h.addJob(), at(1), 'pod-a'));
      const stale = runIdOf(await a.claimRun(await h.addJob(), at(1), 'pod-a'));
      const failed = await a.failRuns([first], 'pod crash or lock TTL exceeded', 'pod_lost');
      expect(failed.map((f) => f.runId)).toEqual([first]);
      expect(await h.run(first)).toMatchObject({ status: 'failed', errorKind: 'pod_lost' });
      expect(await a.failRuns([first], 'again', 'shutdown')).toEqual([]);
      expect(await a.cleanupStaleRuns(60_000)).toBe(0);
      await h.age(stale, 61_000);
      expect(await a.cleanupStaleRuns(60_000)).toBe(1);
      expect(await h.run(stale)).toMatchObject({
        status: 'failed',
        error: 'pod crash or lock TTL exceeded',
        errorKind: 'lock_lost',
      });
    });

    it('holds a tenant at max_concurrent_runs across pods: over the cap answers capped', async () => {
      const h = setup();
      const tenant = await h.addTenant(2);
      const jobs = [await h.addJob(tenant), await h.addJob(tenant), await h.addJob(tenant)];
      const a = h.storeFor('pod-a');
      const b = h.storeFor('pod-b');
      const first = runIdOf(await a.claimRun(jobs[0] as string, at(1), 'pod-a'));
      runIdOf(await b.claimRun(jobs[1] as string, at(1), 'pod-b'));
      expect(await a.claimRun(jobs[2] as string, at(1), 'pod-a')).toEqual({ kind: 'capped' });
      // Another tenant is not held back.
      expect((await a.claimRun(await h.addJob(), at(1), 'pod-a')).kind).toBe('claimed');
      expect(await a.finishRun(first, success, 'pod-a')).toBe('recorded');
      expect((await b.claimRun(jobs[2] as string, at(1), 'pod-b')).kind).toBe('claimed');
    });

    it('plans each job without next_run_at once, and reads the due window in pages', async () => {
      const h = setup();
      const a = h.storeFor('pod-a');
      const b = h.storeFor('pod-b');
      const jobs = [await h.addJob(), await h.addJob(), await h.addJob()].sort();
      const parked = await h.addJob();
      const seen: string[] = [];
      const plan = (minute: number) => (taken: readonly { id: string }[]) => {
        seen.push(...ids(taken));
        return taken.map((job) => (job.id === parked ? null : later(minute)));
      };
      expect(await a.planJobs([...jobs, parked], 2, SINCE, plan(1))).toBe(2);
      expect(await b.planJobs([...jobs, parked], 10, SINCE, plan(2))).toBe(2);
      expect(await a.planJobs([...jobs, parked], 10, SINCE, plan(3))).toBe(0);
      expect(seen.sort()).toEqual([...jobs, parked].sort());
      expect(await h.nextRunAt(parked)).toBe('parked');

      // Overdue first, (next_run_at, id) order, pages after the previous page's last key.
      const first = await a.dueJobs(later(2).getTime(), null, 2);
      const firstKey = first.at(-1);
      const second = await a.dueJobs(
        later(2).getTime(),
        { atMs: firstKey?.nextRunAt?.getTime() ?? 0, id: firstKey?.id ?? '' },
        2,
      );
      const window = [...first, ...second];
      expect(window.map((job) => job.nextRunAt?.getTime()).sort()).toEqual(
        window.map((job) => job.nextRunAt?.getTime()),
      );
      expect(ids(window).sort()).toEqual(jobs);
      expect(await a.dueJobs(later(1).getTime() - 1, null, 10)).toEqual([]);
      expect(window[0]).toEqual({
        id: expect.any(String),
        tenantId: expect.any(String),
        schedule: '* * * * *',
        timezone: 'UTC',
        dueFrom: expect.any(Date),
        updatedAt: expect.any(Date),
        nextRunAt: later(1),
      });
      await h.disableJob(jobs[0] as string);
      expect(ids(await a.dueJobs(later(2).getTime(), null, 10))).not.toContain(jobs[0]);
    });

    it('the claim moves next_run_at on in the same step, never backwards; advance skips', async () => {
      const h = setup();
      const a = h.storeFor('pod-a');
      const job = await h.addJob();
      await a.planJobs([job], 10, SINCE, (taken) => taken.map(() => later(1)));
      // A run-now claim (no next) leaves it alone.
      const manual = runIdOf(await a.claimRun(job, later(0), 'pod-a', null));
      expect(await h.nextRunAt(job)).toEqual(later(1));
      expect(await a.finishRun(manual, success, 'pod-a')).toBe('recorded');
      const run = runIdOf(await a.claimRun(job, later(1), 'pod-a', later(2)));
      expect(await h.nextRunAt(job)).toEqual(later(2));
      // Finishing does not touch it; a late claim of an older occurrence cannot move it back.
      expect(await a.finishRun(run, success, 'pod-a')).toBe('recorded');
      expect(await h.nextRunAt(job)).toEqual(later(2));
      const older = new Date(later(0).getTime() + 30_000);
      runIdOf(await a.claimRun(job, older, 'pod-a', later(1)));
      expect(await h.nextRunAt(job)).toEqual(later(2));

      // Occurrences up to minute 5 were missed for good: on to minute 6, once.
      await a.advanceJob(job, later(5), later(6));
      expect(await h.nextRunAt(job)).toEqual(later(6));
      await a.advanceJob(job, later(5), later(7));
      expect(await h.nextRunAt(job)).toEqual(later(6));
      await a.advanceJob(job, later(6), null);
      expect(await h.nextRunAt(job)).toBe('parked');
    });

    it('claims of two occurrences of one job together move next_run_at past the later', async () => {
      const h = setup();
      const a = h.storeFor('pod-a');
      const job = await h.addJob();
      await h.setOverlap(job, 'allow_all');
      await a.planJobs([job], 10, SINCE, (taken) => taken.map(() => later(1)));
      // Issued in the same turn, so a batching store claims both in one statement; either order.
      const answers = await Promise.all([
        a.claimRun(job, later(2), 'pod-a', later(3)),
        a.claimRun(job, later(1), 'pod-a', later(2)),
      ]);
      expect(answers.map((answer) => answer.kind)).toEqual(['claimed', 'claimed']);
      expect(await h.nextRunAt(job)).toEqual(later(3));
      // Out of flight again, so the tenant's cap is whole for the cases after this one.
      for (const answer of answers) {
        expect(await a.finishRun(runIdOf(answer), success, 'pod-a')).toBe('recorded');
      }
    });

    it('a cap of 0 or null means unlimited', async () => {
      const h = setup();
      for (const cap of [0, null]) {
        const tenant = await h.addTenant(cap);
        const store = h.storeFor('pod-a');
        for (let i = 0; i < 5; i++) {
          expect((await store.claimRun(await h.addJob(tenant), at(1), 'pod-a')).kind).toBe(
            'claimed',
          );
        }
      }
    });
    describeQueueCases(setup);
    describeOverlapCases(setup);
    describeUpkeepCases(setup);
    describeRequestCases(setup);
  });
}
