// Run history upkeep: cron_job_runs is partitioned by day (migration 111). Every hour one pod
// creates the partitions of the week ahead, drops those past the longest tenant retention,
// trims the rows of tenants keeping less, in bounded batches, and purges deleted jobs whose last
// run is gone (scheduler_runs_maintain), then their result objects: those live as long as the
// runs that point at them, not as long as the job.
import { errorMessage } from './occurrence.js';
import type { SchedulerDeps } from './settings.js';

export const RUN_HISTORY_INTERVAL_MS = 3_600_000;
const PARTITIONS_AHEAD_DAYS = 7;
const DELETE_BATCH = 5000;
const DELETE_BATCHES_PER_ROUND = 20;

/** One round of upkeep; stops early once `goOn` says the scheduler stopped. */
export async function maintainRunHistory(
  deps: Pick<SchedulerDeps, 'store' | 'log' | 'results'>,
  goOn: () => boolean,
): Promise<void> {
  const total = { created: 0, dropped: 0, deleted: 0, purged: 0 };
  for (let batch = 0; batch < DELETE_BATCHES_PER_ROUND; batch++) {
    const done = await deps.store.maintainRunHistory(PARTITIONS_AHEAD_DAYS, DELETE_BATCH);
    total.created += done.created;
    total.dropped += done.dropped;
    total.deleted += done.deleted;
    total.purged += done.purgedJobs.length;
    await deleteResultObjects(deps, done.purgedJobs);
    const more = done.deleted >= DELETE_BATCH || done.purgedJobs.length >= DELETE_BATCH;
    if (!more || !goOn()) break;
  }
  if (total.created + total.dropped + total.deleted + total.purged === 0) return;
  deps.log.info(
    {
      partitions_created: total.created,
      partitions_dropped: total.dropped,
      runs_deleted: total.deleted,
      deleted_jobs_purged: total.purged,
    },
    'run history maintained',
  );
}

/**
 * After the purge committed: no row points at these objects any more. A delete that fails
 * leaves unreachable objects behind (logged), never a run without its result.
 */
async function deleteResultObjects(
  deps: Pick<SchedulerDeps, 'log' | 'results'>,
  jobs: readonly { tenantId: string; jobId: string }[],
): Promise<void> {
  const store = deps.results;
  if (!store) return;
  for (const job of jobs) {
    await store.removeJob(job.tenantId, job.jobId).catch((err: unknown) => {
      deps.log.warn(
        { tenant_id: job.tenantId, cron_job_id: job.jobId, error: errorMessage(err) },
        'result objects of a purged job not deleted',
      );
    });
  }
}
