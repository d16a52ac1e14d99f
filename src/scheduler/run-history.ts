// Run history upkeep: cron_job_runs is partitioned by day (migration 111). Every hour one pod
// creates the partitions of the week ahead, drops those past the longest tenant retention and
// trims the rows of tenants keeping less, in bounded batches (scheduler_runs_maintain).
import type { SchedulerDeps } from './settings.js';

export const RUN_HISTORY_INTERVAL_MS = 3_600_000;
const PARTITIONS_AHEAD_DAYS = 7;
const DELETE_BATCH = 5000;
const DELETE_BATCHES_PER_ROUND = 20;

/** One round of upkeep; stops early once `goOn` says the scheduler stopped. */
export async function maintainRunHistory(
  deps: Pick<SchedulerDeps, 'store' | 'log'>,
  goOn: () => boolean,
): Promise<void> {
  const total = { created: 0, dropped: 0, deleted: 0 };
  for (let batch = 0; batch < DELETE_BATCHES_PER_ROUND; batch++) {
    const done = await deps.store.maintainRunHistory(PARTITIONS_AHEAD_DAYS, DELETE_BATCH);
    total.created += done.created;
    total.dropped += done.dropped;
    total.deleted += done.deleted;
    if (done.deleted < DELETE_BATCH || !goOn()) break;
  }
  if (total.created + total.dropped + total.deleted === 0) return;
  deps.log.info(
    {
      partitions_created: total.created,
      partitions_dropped: total.dropped,
      runs_deleted: total.deleted,
    },
    'run history maintained',
  );
}
