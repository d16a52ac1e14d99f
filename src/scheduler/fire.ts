import { executeRun } from './execute.js';
import type { ClaimedRun, LockHolder } from './ports.js';
import { errorMessage, type LoadedJob, type Occurrence, type SchedulerContext } from './state.js';

/** How the lock try of an occurrence ended (not tried: acquired false, holder null). */
export type LockOutcome = { acquired: true } | { acquired: false; holder: LockHolder | null };
const NOT_TRIED: LockOutcome = { acquired: false, holder: null };

/**
 * One occurrence on this pod: skip if the job is still running here, set aside if the pod is
 * full, else take the Redis lock (one try) and claim the occurrence in PostgreSQL; the winner runs.
 * Resolves once the lock try is over (the run goes on).
 */
export function fireOccurrence(
  ctx: SchedulerContext,
  occurrence: Occurrence,
): Promise<LockOutcome> {
  const loaded = ctx.jobs.get(occurrence.jobId);
  if (!ctx.active || !loaded) return Promise.resolve(NOT_TRIED);
  const current = ctx.inFlight.get(occurrence.jobId);
  if (current) {
    if (current.scheduledAtMs < occurrence.scheduledAtMs) ctx.metrics.overlapSkips.inc();
    return Promise.resolve(NOT_TRIED);
  }
  if (ctx.busySlots >= ctx.settings.maxConcurrentRuns) {
    ctx.pending.push(occurrence);
    ctx.metrics.capacityDeferrals.inc();
    return Promise.resolve(NOT_TRIED);
  }
  const controller = new AbortController();
  // A slot is held from the lock attempt until the agent has answered: recording the outcome
  // (a batched statement) and releasing the lock need not keep the next occurrence waiting.
  ctx.busySlots += 1;
  let slotHeld = true;
  const freeSlot = () => {
    if (!slotHeld) return;
    slotHeld = false;
    ctx.busySlots -= 1;
    ctx.onSlotFreed();
  };
  let settle: () => void = () => {};
  const done = new Promise<void>((resolve) => (settle = resolve));
  ctx.inFlight.set(occurrence.jobId, {
    scheduledAtMs: occurrence.scheduledAtMs,
    runId: null,
    controller,
    done,
  });
  let reportLock: (outcome: LockOutcome) => void = () => {};
  const locked = new Promise<LockOutcome>((resolve) => (reportLock = resolve));
  void attempt(ctx, loaded, occurrence, controller, freeSlot, reportLock).finally(() => {
    ctx.inFlight.delete(occurrence.jobId);
    ctx.metrics.inFlight.set(ctx.inFlight.size);
    settle();
    reportLock(NOT_TRIED);
    freeSlot();
  });
  return locked;
}

async function attempt(
  ctx: SchedulerContext,
  loaded: LoadedJob,
  occurrence: Occurrence,
  controller: AbortController,
  freeSlot: () => void,
  reportLock: (outcome: LockOutcome) => void,
): Promise<void> {
  const { jobId, scheduledAtMs } = occurrence;
  let lock;
  try {
    lock = await ctx.locks.acquire(jobId, scheduledAtMs, ctx.settings.lockTtlMs);
    if (!lock.acquired && (await holderIsGone(ctx, lock.holder, scheduledAtMs))) {
      await ctx.locks.releaseHeldBy(jobId, lock.holder?.podId ?? '');
      lock = await ctx.locks.acquire(jobId, scheduledAtMs, ctx.settings.lockTtlMs);
    }
  } catch (err) {
    ctx.onRedisError(err);
    return;
  }
  reportLock(lock.acquired ? { acquired: true } : { acquired: false, holder: lock.holder });
  if (!lock.acquired) {
    ctx.metrics.lockSkips.inc();
    return;
  }
  let claimed: ClaimedRun | null;
  try {
    claimed = await ctx.store.claimRun(jobId, new Date(scheduledAtMs), ctx.settings.podId);
  } catch (err) {
    ctx.needsCatchUp = true;
    ctx.log.error(
      {
        job_id: jobId,
        scheduled_at: new Date(scheduledAtMs).toISOString(),
        error: errorMessage(err),
      },
      'cannot claim occurrence: database unavailable',
    );
    await releaseQuietly(ctx, jobId, lock.token, null);
    return;
  }
  if (claimed === null) {
    ctx.metrics.lockSkips.inc();
    await releaseQuietly(ctx, jobId, lock.token, scheduledAtMs);
    return;
  }
  const inFlight = ctx.inFlight.get(jobId);
  if (inFlight) inFlight.runId = claimed.runId;
  ctx.metrics.inFlight.set(ctx.inFlight.size);
  await executeRun(ctx, loaded, occurrence, claimed, controller, freeSlot);
  await releaseQuietly(ctx, jobId, lock.token, scheduledAtMs);
}

/**
 * A "run" lock nobody will release: this pod's own (a release that failed in a Redis blip; this
 * pod runs a job once at a time, so it holds nothing now), or, for an earlier occurrence, a pod
 * whose liveness key is gone (killed between taking the lock and claiming, or between recording
 * and releasing, when recovery finds no running row to clean up). Left alone, either would block
 * the job for the whole lock TTL.
 */
async function holderIsGone(
  ctx: SchedulerContext,
  holder: LockHolder | null,
  scheduledAtMs: number,
): Promise<boolean> {
  if (holder?.state !== 'run') return false;
  if (holder.podId === ctx.settings.podId) return true;
  if (holder.scheduledAtMs >= scheduledAtMs) return false;
  const live = await ctx.locks.livePods([holder.podId]);
  return !live.has(holder.podId);
}

/** Releases by token; `doneAtMs` marks the occurrence done so other pods skip it cheaply. */
async function releaseQuietly(
  ctx: SchedulerContext,
  jobId: string,
  token: string,
  doneAtMs: number | null,
): Promise<void> {
  try {
    await ctx.locks.release(jobId, token, doneAtMs);
  } catch (err) {
    // The lock expires by itself after its TTL; nothing else depends on this release.
    ctx.log.warn({ job_id: jobId, error: errorMessage(err) }, 'cannot release lock');
  }
}
