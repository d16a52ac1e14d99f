// Occurrences that come without their job (adopted and queued runs, "run now") get it attached:
// the job as this pod holds it, else as the database has it now.
import type { Occurrence } from './occurrence.js';
import type { JobStore } from './ports.js';
import type { ScheduleCache } from './schedule-cache.js';
import type { Timeline } from './timeline.js';

export interface AttachDeps {
  store: JobStore;
  timeline: Timeline;
  schedules: ScheduleCache;
}

/** Attaches the jobs (as they are now); an occurrence whose job cannot be had stays without. */
export async function attachJobs(
  deps: AttachDeps,
  occurrences: Occurrence[],
): Promise<Occurrence[]> {
  const { timeline } = deps;
  const missing = occurrences.filter((o) => !o.job && !timeline.get(o.jobId));
  const loaded = new Map<string, Occurrence['job']>();
  if (missing.length > 0) {
    for (const job of await deps.store.loadJobs([...new Set(missing.map((o) => o.jobId))])) {
      const schedule = deps.schedules.parse(job.schedule, job.timezone, job.endsAt);
      if (typeof schedule !== 'string') loaded.set(job.id, { job, schedule });
    }
  }
  return occurrences.map((o) => {
    const job = o.job ?? timeline.get(o.jobId) ?? loaded.get(o.jobId);
    return job ? { ...o, job } : o;
  });
}
