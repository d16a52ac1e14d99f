import type { Occurrence } from './occurrence.js';
import type { Clock, JobStore } from './ports.js';
import type { SchedulerMetrics } from './metrics.js';
import type { Timeline } from './timeline.js';

export interface SyncDeps {
  store: JobStore;
  clock: Clock;
  metrics: SchedulerMetrics;
  timeline: Timeline;
  catchupWindowMs: number;
}

/**
 * Full sync. With catchUp (start, or after an outage), every job is loaded and re-planned against
 * the database's record of the last claimed occurrence. Otherwise only ids and versions are read,
 * and just the new or changed jobs are loaded: a periodic sync of 100,000 unchanged jobs moves
 * ids, not definitions. Returns the occurrences to catch up.
 */
export async function syncAll(deps: SyncDeps, catchUp: boolean): Promise<Occurrence[]> {
  const { store, clock, timeline } = deps;
  const startedMs = clock.now();
  let catchUps: Occurrence[] = [];
  if (catchUp) {
    const jobs = await store.loadJobs();
    removeMissing(timeline, new Set(jobs.map((job) => job.id)));
    catchUps = timeline.apply(jobs, clock.now(), deps.catchupWindowMs, true);
  } else {
    const versions = await store.jobVersions();
    removeMissing(timeline, new Set(versions.map((version) => version.id)));
    const changed = versions
      .filter((v) => timeline.versionOf(v.id) !== v.updatedAt.getTime())
      .map((v) => v.id);
    if (changed.length > 0) {
      const jobs = await store.loadJobs(changed);
      catchUps = timeline.apply(jobs, clock.now(), deps.catchupWindowMs, false);
    }
  }
  deps.metrics.syncDuration.observe((clock.now() - startedMs) / 1000);
  return catchUps;
}

/** Sync of the named jobs (after notifications): missing ones were deleted or disabled. */
export async function syncJobs(deps: SyncDeps, ids: readonly string[]): Promise<Occurrence[]> {
  const jobs = await deps.store.loadJobs(ids);
  const found = new Set(jobs.map((job) => job.id));
  for (const id of ids) if (!found.has(id)) deps.timeline.remove(id);
  return deps.timeline.apply(jobs, deps.clock.now(), deps.catchupWindowMs, false);
}

function removeMissing(timeline: Timeline, present: Set<string>): void {
  for (const id of timeline.ids()) if (!present.has(id)) timeline.remove(id);
}
