// The contract suite against the in-memory JobStore of the unit tests.
import { describeJobStoreContract } from '../contract/job-store.contract.js';
import { FakeClock } from '../kit/clock.js';
import { FakeJobStore } from '../kit/job-store.js';
import { PARKED } from '../kit/rows.js';

describeJobStoreContract('in-memory fake', () => {
  const clock = new FakeClock(Date.parse('2030-01-01T00:00:00Z'));
  const store = new FakeJobStore(clock);
  let tenants = 0;
  return {
    storeFor: () => store,
    addTenant: async (cap) => {
      const id = `7e000000-0000-4000-8000-${String(++tenants).padStart(12, '0')}`;
      store.tenantCaps.set(id, cap);
      return id;
    },
    addJob: async (tenantId) => store.addJob({ schedule: '* * * * *', tenantId }).id,
    disableJob: async (id) => void store.updateJob(id, { enabled: false }),
    run: async (runId) => {
      const run = store.runs.get(runId);
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
    age: async (runId, ms) => {
      const run = store.runs.get(runId);
      if (run) run.startedAt = new Date(run.startedAt.getTime() - ms);
    },
    nextRunAt: async (jobId) => {
      const next = store.job(jobId).nextRunAt;
      return next?.getTime() === PARKED.getTime() ? 'parked' : next;
    },
  };
});
