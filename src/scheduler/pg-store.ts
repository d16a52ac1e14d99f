import { loadSchedulableJobs } from '../db/jobs.js';
import type { Pool } from '../db/pool.js';
import { claimRun, cleanupStaleRuns, failRuns, finishRun, listRunningRuns } from '../db/runs.js';
import type { JobStore } from './ports.js';

/** The scheduler's JobStore on PostgreSQL. */
export function createPgJobStore(pool: Pool): JobStore {
  return {
    loadJobs: (ids) => loadSchedulableJobs(pool, ids),
    claimRun: (jobId, scheduledAt, podId) => claimRun(pool, jobId, scheduledAt, podId),
    finishRun: (runId, outcome, nextRunAt) => finishRun(pool, runId, outcome, nextRunAt),
    failRuns: (runIds, reason) => failRuns(pool, runIds, reason),
    runningRuns: () => listRunningRuns(pool),
    cleanupStaleRuns: (lockTtlMs) => cleanupStaleRuns(pool, lockTtlMs),
  };
}
