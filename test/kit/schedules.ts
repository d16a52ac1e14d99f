// What the jobs' statements do, in memory: scheduler_due_jobs (the due window in pages),
// scheduler_plan_take and scheduler_plan_set (the planning sweep), scheduler_advance.
import type { DueKey, StoredJob } from '../../src/domain/job.js';
import type { PlanDecider } from '../../src/scheduler/ports.js';
import { PARKED, storedJob, type FakeJob, type Tables } from './rows.js';

const byId = (a: FakeJob, b: FakeJob) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Enabled jobs due by untilMs, in (next_run_at, id) order after `after`, at most `limit`. */
export function dueJobs(
  tables: Tables,
  untilMs: number,
  after: DueKey | null,
  limit: number,
): StoredJob[] {
  const key = (job: FakeJob) => [job.nextRunAt?.getTime() ?? Infinity, job.id] as const;
  const beyond = (job: FakeJob) => {
    if (!after) return true;
    const [atMs, id] = key(job);
    return atMs > after.atMs || (atMs === after.atMs && id > after.id);
  };
  return [...tables.jobs.values()]
    .filter((job) => job.enabled && job.nextRunAt !== null)
    .filter((job) => (job.nextRunAt as Date).getTime() <= untilMs && beyond(job))
    .sort((a, b) => key(a)[0] - key(b)[0] || byId(a, b))
    .slice(0, limit)
    .map(storedJob);
}

/** Plans up to `limit` enabled jobs without next_run_at; a null decision parks the job. */
export function planJobs(
  tables: Tables,
  ids: readonly string[] | null,
  limit: number,
  since: Date,
  decide: PlanDecider,
): number {
  const wanted = ids ? new Set(ids) : null;
  const jobs = [...tables.jobs.values()]
    .filter((job) => job.enabled && job.nextRunAt === null && (!wanted || wanted.has(job.id)))
    .sort(byId)
    .slice(0, limit);
  const nexts = decide(
    jobs.map((job) => ({
      ...storedJob(job),
      lastScheduledAt: lastScheduledAt(tables, job.id, since),
    })),
  );
  jobs.forEach((job, i) => {
    job.nextRunAt = nexts[i] ?? PARKED;
  });
  return jobs.length;
}

/** Occurrences up to pastAt were skipped for good: on to nextRunAt (null parks), never back. */
export function advanceJob(
  tables: Tables,
  jobId: string,
  pastAt: Date,
  nextRunAt: Date | null,
): void {
  const job = tables.jobs.get(jobId);
  const next = nextRunAt ?? PARKED;
  if (!job?.nextRunAt || job.nextRunAt > pastAt || next <= job.nextRunAt) return;
  job.nextRunAt = new Date(next);
}

/** The latest occurrence of the job claimed since `since` (any pod, any state). */
function lastScheduledAt(tables: Tables, jobId: string, since: Date): Date | null {
  let last: number | null = null;
  for (const run of tables.runs.values()) {
    if (run.jobId !== jobId || run.scheduledAt < since) continue;
    if (last === null || run.scheduledAt.getTime() > last) last = run.scheduledAt.getTime();
  }
  return last === null ? null : new Date(last);
}
