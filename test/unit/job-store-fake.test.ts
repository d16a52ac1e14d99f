// The contract suite against the in-memory JobStore of the unit tests.
import { describeJobStoreContract } from '../contract/job-store.contract.js';
import { FakeClock } from '../kit/clock.js';
import { FakeJobStore } from '../kit/job-store.js';
import { PARKED, type FakeRun } from '../kit/rows.js';

describeJobStoreContract('in-memory fake', () => {
  const clock = new FakeClock(Date.parse('2030-01-01T00:00:00Z'));
  const store = new FakeJobStore(clock);
  let tenants = 0;
  const runOf = (runId: string): FakeRun | undefined => store.runs.get(runId);
  return {
    storeFor: () => store,
    addTenant: async (cap) => {
      const id = `7e000000-0000-4000-8000-${String(++tenants).padStart(12, '0')}`;
      store.tenantCaps.set(id, cap);
      return id;
    },
    addJob: async (tenantId) => store.addJob({ schedule: '* * * * *', tenantId }).id,
    disableJob: async (id) => void store.updateJob(id, { enabled: false }),
    setRetry: async (id, policy) => void store.updateJob(id, { retry: policy }),
    setOverlap: async (id, overlap) => void store.updateJob(id, { overlap }),
    run: async (runId) => {
      const run = runOf(runId);
      return (
        run && {
          status: run.status,
          podId: run.podId,
          error: run.error,
          errorKind: run.errorKind,
          attempts: run.attempts,
        }
      );
    },
    attempts: async (runId) => {
      const run = runOf(runId);
      return (
        run && {
          attempt: run.attempt,
          queued: run.status === 'queued',
          previousAttempts: run.previousAttempts.length,
          attemptLog: run.attemptLog,
        }
      );
    },
    outcomes: async (jobId) => {
      const job = store.job(jobId);
      return {
        runCount: job.runCount,
        lastRunSuccess: job.lastRunSuccess,
        lastRunErrorKind: job.lastRunErrorKind,
      };
    },
    age: async (runId, ms) => {
      const run = runOf(runId);
      if (run) run.startedAt = new Date(run.startedAt.getTime() - ms);
    },
    trigger: async (jobId, triggeredAt) => {
      store.job(jobId).lastTriggeredAt = triggeredAt;
    },
    requestCancel: async (runId) => {
      const run = runOf(runId);
      if (run) run.cancelRequestedAt = new Date(clock.now());
    },
    makeDue: async (runId) => {
      // As now() in PostgreSQL, the clock moves between statements: runs made due in turn
      // come due in that order.
      await clock.advance(1);
      const run = runOf(runId);
      if (run?.status === 'queued') run.notBefore = new Date(clock.now());
    },
    nextRunAt: async (jobId) => {
      const next = store.job(jobId).nextRunAt;
      return next?.getTime() === PARKED.getTime() ? 'parked' : next;
    },
  };
});
