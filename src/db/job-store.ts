import { Batcher } from './batch.js';
import {
  advanceJobs,
  loadDueJobs,
  loadSchedulableJobs,
  planUnplannedJobs,
  type AdvanceRequest,
  type PlanCursor,
} from './jobs.js';
import type { Pool } from './pool.js';
import { requeueRuns, takeQueuedRuns, unsendRuns } from './queued-runs.js';
import {
  adoptRuns,
  claimRuns,
  cleanupStaleRuns,
  failRuns,
  finishRuns,
  listActiveRuns,
  maintainRunHistory,
  markRunsSent,
  noteRunProgress,
  type ClaimRequest,
  type FinishRequest,
  type MarkRequest,
} from './runs.js';
import { cancelOlderRuns, claimWaitingRun, startWaitingRun } from './overlap-runs.js';
import { loadCancelsRequested, loadMissedTriggers } from './missed-requests.js';
import type { ClaimAnswer, JobStore, RecordAnswer } from '../scheduler/ports.js';

/** Connections of the batched statements (claim, mark, record, advance: one in flight each). */
export const BATCH_CONNECTIONS = 4;

/**
 * The scheduler's JobStore on PostgreSQL. Claims, marks and records issued in the same
 * event-loop turn go out as one statement each, so a burst of thousands of occurrences stays
 * cheap; a batch that fails is retried item by item, so one bad item fails alone.
 * `batchPool` (BATCH_CONNECTIONS, kept open) carries those batches: each connection plans the
 * functions it calls once, on its first call, and keeps the plans. Taken from the shared pool,
 * the batches landed on whichever of its connections was free, and every new one planned the
 * claim and the record again (20 ms of PostgreSQL's time each, inside the slot of the runs
 * waiting for that claim).
 */
export function createPgJobStore(pool: Pool, podId: string, batchPool: Pool = pool): JobStore {
  const claims = new Batcher<ClaimRequest, ClaimAnswer>((items) =>
    claimRuns(batchPool, items, podId),
  );
  const marks = new Batcher<MarkRequest, boolean>((items) => markRunsSent(batchPool, items, podId));
  const finishes = new Batcher<FinishRequest, RecordAnswer>((items) =>
    finishRuns(batchPool, items, podId),
  );
  const advances = new Batcher<AdvanceRequest, void>(async (items) => {
    await advanceJobs(batchPool, items);
    return items.map(() => undefined);
  });
  const mine = (claimant: string) => claimant === podId;
  // The sweep goes on where this pod's last batch ended (pods side by side skip each other's
  // locked rows and leapfrog).
  const planCursor: PlanCursor = { after: null };
  return {
    loadJobs: (ids) => loadSchedulableJobs(pool, ids),
    dueJobs: (untilMs, after, limit) => loadDueJobs(pool, new Date(untilMs), after, limit),
    planJobs: (ids, limit, since, decide) =>
      planUnplannedJobs(pool, ids, limit, since, decide, planCursor),
    advanceJob: (jobId, pastAt, nextRunAt) => advances.add({ jobId, pastAt, nextRunAt }),
    claimRun: (jobId, scheduledAt, claimant, nextRunAt, sendAs) =>
      mine(claimant)
        ? claims.add({ jobId, scheduledAt, nextRunAt, sendAs })
        : claimRuns(pool, [{ jobId, scheduledAt, nextRunAt, sendAs }], claimant).then(
            (a) => a[0] ?? { kind: 'taken' },
          ),
    markSent: (runId, claimant, origin, scheduledAt) =>
      mine(claimant)
        ? marks.add({ runId, origin, scheduledAt })
        : markRunsSent(pool, [{ runId, origin, scheduledAt }], claimant).then((a) => a[0] ?? false),
    noteProgress: (runId, claimant, attempts, log) =>
      noteRunProgress(pool, runId, claimant, attempts, log),
    finishRun: (runId, outcome, claimant, scheduledAt) =>
      mine(claimant)
        ? finishes.add({ runId, outcome, scheduledAt })
        : finishRuns(pool, [{ runId, outcome, scheduledAt }], claimant).then((a) => a[0] ?? false),
    failRuns: (runIds, reason, kind) => failRuns(pool, runIds, reason, kind),
    activeRuns: () => listActiveRuns(pool),
    adoptRuns: (runs, claimant) => adoptRuns(pool, runs, claimant),
    takeQueuedRuns: (claimant, limit) => takeQueuedRuns(pool, claimant, limit),
    requeueRuns: (runIds, claimant, delayMs) => requeueRuns(pool, runIds, claimant, delayMs),
    unsendRuns: (runIds, claimant) => unsendRuns(pool, runIds, claimant),
    cleanupStaleRuns: (lockTtlMs) => cleanupStaleRuns(pool, lockTtlMs),
    maintainRunHistory: (daysAhead, deleteLimit) =>
      maintainRunHistory(pool, daysAhead, deleteLimit),
    claimWaiting: (jobId, scheduledAt, claimant, nextRunAt) =>
      claimWaitingRun(pool, jobId, scheduledAt, nextRunAt, claimant),
    cancelOlderRuns: (jobId, scheduledAt) => cancelOlderRuns(pool, jobId, scheduledAt),
    startWaiting: (runId, scheduledAt, claimant) =>
      startWaitingRun(pool, runId, scheduledAt, claimant),
    missedTriggers: (sinceMs) => loadMissedTriggers(pool, new Date(sinceMs)),
    cancelsRequested: (runIds) => loadCancelsRequested(pool, runIds),
  };
}
