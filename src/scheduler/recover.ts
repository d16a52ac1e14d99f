import type { SchedulerContext } from './state.js';

export const POD_CRASH_ERROR = 'pod crash or lock TTL exceeded';
export const UNRECORDED_ERROR = 'outcome not recorded: database unavailable';

/**
 * Proves this pod is alive (runs of a pod whose proof has expired are failed by the others) and,
 * while it schedules, learns which pods share the work.
 */
export async function publishLiveness(ctx: SchedulerContext, schedules: boolean): Promise<void> {
  const peers = await ctx.locks.publishLiveness(
    ctx.settings.podId,
    ctx.settings.livenessTtlMs,
    schedules,
  );
  ctx.peers = peers;
}

/**
 * Fails runs still marked running by pods that are no longer alive, and frees their locks, so a
 * crashed pod blocks its jobs for seconds rather than for the whole lock TTL.
 */
export async function failRunsOfDeadPods(ctx: SchedulerContext): Promise<number> {
  const running = await ctx.store.runningRuns();
  // This pod's own runs of jobs it is not running: their outcome could not be recorded.
  const orphans = running.filter(
    (run) => run.podId === ctx.settings.podId && !ctx.inFlight.has(run.jobId),
  );
  let recovered = 0;
  if (orphans.length > 0) {
    const failed = await ctx.store.failRuns(
      orphans.map((run) => run.runId),
      UNRECORDED_ERROR,
    );
    for (const { runId, jobId } of failed) {
      ctx.log.warn({ run_id: runId, job_id: jobId }, 'run failed: outcome was not recorded');
    }
    ctx.metrics.recovered.inc({ reason: 'unrecorded' }, failed.length);
    recovered += failed.length;
  }
  const others = running.filter((run) => run.podId !== ctx.settings.podId);
  if (others.length === 0) return recovered;
  const live = await ctx.locks.livePods([...new Set(others.map((run) => run.podId))]);
  const dead = others.filter((run) => !live.has(run.podId));
  if (dead.length === 0) return recovered;
  const failed = await ctx.store.failRuns(
    dead.map((run) => run.runId),
    POD_CRASH_ERROR,
  );
  const podOf = new Map(dead.map((run) => [run.runId, run.podId]));
  for (const { runId, jobId } of failed) {
    const podId = podOf.get(runId) ?? '';
    await ctx.locks.releaseHeldBy(jobId, podId);
    ctx.log.warn({ run_id: runId, job_id: jobId, dead_pod: podId }, 'run failed: pod is gone');
  }
  ctx.metrics.recovered.inc({ reason: 'pod_gone' }, failed.length);
  return recovered + failed.length;
}

/** The guide's safety net: runs older than the lock TTL are failed. */
export async function cleanupStaleRuns(ctx: SchedulerContext): Promise<number> {
  const count = await ctx.store.cleanupStaleRuns(ctx.settings.lockTtlMs);
  if (count > 0) {
    ctx.metrics.recovered.inc({ reason: 'stale' }, count);
    ctx.log.warn({ count }, 'stale runs marked failed');
  }
  return count;
}

/**
 * Runs left "running" under this pod's id by an earlier process with the same id (a restarted
 * container keeps its name). Called once, before this process has claimed anything.
 */
export async function failOwnLeftoverRuns(ctx: SchedulerContext): Promise<void> {
  const running = await ctx.store.runningRuns();
  const mine = running.filter((run) => run.podId === ctx.settings.podId);
  if (mine.length === 0) return;
  const failed = await ctx.store.failRuns(
    mine.map((run) => run.runId),
    POD_CRASH_ERROR,
  );
  for (const { jobId } of failed) await ctx.locks.releaseHeldBy(jobId, ctx.settings.podId);
  ctx.metrics.recovered.inc({ reason: 'pod_restarted' }, failed.length);
}
