import { Batcher } from '../db/batch.js';
import { loadJobVersions, loadSchedulableJobs } from '../db/jobs.js';
import type { Pool } from '../db/pool.js';
import {
  cleanupStaleRuns,
  claimRuns,
  failRuns,
  finishRuns,
  listRunningRuns,
  type ClaimRequest,
  type FinishRequest,
} from '../db/runs.js';
import type { ClaimedRun, JobStore } from './ports.js';

/**
 * The scheduler's JobStore on PostgreSQL. Claims and records issued in the same event-loop turn
 * go out as one statement each, so a burst of thousands of occurrences stays cheap.
 */
export function createPgJobStore(pool: Pool, podId: string): JobStore {
  const claims = new Batcher<ClaimRequest, ClaimedRun | null>((items) =>
    claimRuns(pool, items, podId),
  );
  const finishes = new Batcher<FinishRequest, boolean>((items) => finishRuns(pool, items));
  return {
    loadJobs: (ids) => loadSchedulableJobs(pool, ids),
    jobVersions: () => loadJobVersions(pool),
    claimRun: (jobId, scheduledAt, claimant) =>
      claimant === podId
        ? claims.add({ jobId, scheduledAt })
        : claimRuns(pool, [{ jobId, scheduledAt }], claimant).then((ids) => ids[0] ?? null),
    finishRun: (runId, outcome, nextRunAt) => finishes.add({ runId, outcome, nextRunAt }),
    failRuns: (runIds, reason) => failRuns(pool, runIds, reason),
    runningRuns: () => listRunningRuns(pool),
    cleanupStaleRuns: (lockTtlMs) => cleanupStaleRuns(pool, lockTtlMs),
  };
}
