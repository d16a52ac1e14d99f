import { parseSchedule } from '../jobs/schedule.js';
import { fireOccurrence } from './fire.js';
import { planJob } from './plan.js';
import type { StoredJob } from './ports.js';
import type { Occurrence, SchedulerContext } from './state.js';

/**
 * Full sync. With catchUp (start, or after an outage), every job is loaded and re-planned against
 * the database's record of the last claimed occurrence. Otherwise only ids and versions are read,
 * and just the new or changed jobs are loaded: a periodic sync of 100,000 unchanged jobs moves
 * ids, not prompts.
 */
export async function syncAll(ctx: SchedulerContext, catchUp: boolean): Promise<void> {
  const startedMs = ctx.clock.now();
  if (catchUp) {
    const jobs = await ctx.store.loadJobs();
    removeMissing(ctx, new Set(jobs.map((job) => job.id)));
    applyJobs(ctx, jobs, true);
  } else {
    const versions = await ctx.store.jobVersions();
    removeMissing(ctx, new Set(versions.map((version) => version.id)));
    const changed = versions
      .filter((v) => ctx.jobs.get(v.id)?.job.updatedAt.getTime() !== v.updatedAt.getTime())
      .map((v) => v.id);
    if (changed.length > 0) applyJobs(ctx, await ctx.store.loadJobs(changed), false);
  }
  ctx.metrics.syncDuration.observe((ctx.clock.now() - startedMs) / 1000);
}

function removeMissing(ctx: SchedulerContext, present: Set<string>): void {
  for (const id of ctx.jobs.keys()) if (!present.has(id)) removeJob(ctx, id);
}

/** Sync of the named jobs (after notifications): missing ones were deleted or disabled. */
export async function syncJobs(ctx: SchedulerContext, ids: readonly string[]): Promise<void> {
  const jobs = await ctx.store.loadJobs(ids);
  const found = new Set(jobs.map((job) => job.id));
  for (const id of ids) if (!found.has(id)) removeJob(ctx, id);
  applyJobs(ctx, jobs, false);
}

function applyJobs(ctx: SchedulerContext, jobs: StoredJob[], catchUp: boolean): void {
  const catchUps: Occurrence[] = [];
  const nowMs = ctx.clock.now();
  for (const job of jobs) {
    const known = ctx.jobs.get(job.id);
    if (!catchUp && known && known.job.updatedAt.getTime() === job.updatedAt.getTime()) continue;
    const parsed = parseSchedule({ schedule: job.schedule, timezone: job.timezone });
    if (!parsed.ok) {
      if (ctx.invalidJobs.get(job.id) !== job.updatedAt.getTime()) {
        ctx.invalidJobs.set(job.id, job.updatedAt.getTime());
        ctx.log.warn(
          { job_id: job.id, tenant_id: job.tenantId, error: parsed.message },
          'job skipped: invalid schedule',
        );
      }
      removeJob(ctx, job.id);
      continue;
    }
    ctx.invalidJobs.delete(job.id);
    const plan = planJob(parsed.schedule, job, nowMs, ctx.settings.catchupWindowMs);
    ctx.jobs.set(job.id, { job, schedule: parsed.schedule });
    if (plan.next) ctx.queue.schedule(job.id, plan.next.getTime());
    else ctx.queue.remove(job.id);
    if (plan.missed > 0) ctx.metrics.missed.inc(plan.missed);
    if (plan.catchUp) {
      catchUps.push({ jobId: job.id, scheduledAtMs: plan.catchUp.getTime(), kind: 'catchup' });
    }
  }
  ctx.metrics.jobsLoaded.set(ctx.jobs.size);
  ctx.rearm();
  for (const occurrence of catchUps) void fireOccurrence(ctx, occurrence);
}

function removeJob(ctx: SchedulerContext, id: string): void {
  ctx.jobs.delete(id);
  ctx.queue.remove(id);
  ctx.metrics.jobsLoaded.set(ctx.jobs.size);
}
