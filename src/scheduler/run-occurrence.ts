// One occurrence on this pod, top to bottom: lock -> claim -> call the agent -> record -> release.
// The dispatcher gives it a slot and an AbortController and consumes the result; nothing here
// reaches back into the scheduler.
import { callAgent, originOf } from './call-agent.js';
import type { SkipReason } from './events.js';
import { errorMessage, type Occurrence } from './occurrence.js';
import { decideOnHeld, lockKeyOf, policyOf, waitsForLock } from './overlap.js';
import type { ClaimAnswer, ClaimedRun, LockHolder, RunOrigin } from './ports.js';
import type { PipelineDeps, RunResult, Slot } from './pipeline.js';
import { lockQueuedRun } from './queued-runs.js';
import { recordRun } from './record-run.js';
import { cancelEarlier, claimWaiting, waitForLock } from './wait-turn.js';

export async function runOccurrence(
  deps: PipelineDeps,
  occurrence: Occurrence,
  controller: AbortController,
  slot: Slot,
): Promise<RunResult> {
  const loaded = occurrence.job ?? deps.lookup(occurrence.jobId);
  if (!loaded) return occurrence.adopted ? dropAdopted(deps, occurrence) : skip('not_loaded');
  const policy = policyOf(loaded);
  const lockKey = lockKeyOf(policy, occurrence.jobId, occurrence.scheduledAtMs);
  let token: string | null = null;
  // Claimed ahead of the lock (overlap buffer_one, cancel_other): adopted, or claimed below.
  let early: ClaimedRun | undefined = occurrence.adopted;
  let announced = false;
  let releaseKey = lockKey;
  // An adopted run skips the lock (its dead claimant's is freed), unless an earlier run of the
  // job may still hold it: then it waits its turn like the occurrence it is.
  if (occurrence.kind === 'queued') {
    // A queued run (a retry, a backfill) takes the job's own lock at this pod's now; if it is
    // held, the run is handed back to the queue.
    const lock = await lockQueuedRun(deps, occurrence);
    if (lock.kind === 'skipped') return lock;
    token = lock.token;
    releaseKey = undefined;
  } else if (!occurrence.adopted || waitsForLock(policy)) {
    const lock = early ? null : await takeLock(deps, occurrence, lockKey);
    if (lock?.kind === 'locked') token = lock.token;
    else {
      if (lock && decideOnHeld(policy, lock.holder ?? null, occurrence.scheduledAtMs) === 'skip') {
        return lock;
      }
      if (!early) {
        const waiting = await claimWaiting(deps, occurrence);
        if (waiting.kind !== 'claimed') return waiting;
        early = waiting.run;
      }
      announceClaim(deps, occurrence, early.runId, slot);
      announced = true;
      if (policy === 'cancel_other') await cancelEarlier(deps, occurrence);
      const turn = await waitForLock(deps, occurrence, early, controller);
      if (turn.kind !== 'locked') return turn;
      token = turn.token;
    }
  }
  // The lock stays a "done" marker unless the occurrence may still need running (a queued run
  // may be retried again: its lock simply goes).
  let doneAtMs: number | null = occurrence.kind === 'queued' ? null : occurrence.scheduledAtMs;
  try {
    const claim = early
      ? ({ kind: 'claimed', run: early } as const)
      : await claimOccurrence(deps, occurrence, originOf(loaded, occurrence));
    if (claim.kind !== 'claimed') {
      if (claim.kind !== 'taken') doneAtMs = null;
      return skip(claim.kind === 'db_error' ? 'db_error' : claim.kind);
    }
    const { runId } = claim.run;
    if (!announced) announceClaim(deps, occurrence, runId, slot);
    const call = await callAgent(deps, loaded, occurrence, claim.run, controller);
    slot.release();
    if (call === 'handed_back') {
      doneAtMs = null;
      return skip('handed_back');
    }
    return await recordRun(deps, occurrence, runId, call);
  } finally {
    slot.release();
    if (token !== null) await releaseQuietly(deps, occurrence.jobId, token, doneAtMs, releaseKey);
  }
}

/** The occurrence will run here: the dispatcher's slot and the scheduler's events learn it. */
function announceClaim(
  deps: PipelineDeps,
  occurrence: Occurrence,
  runId: string,
  slot: Slot,
): void {
  slot.claimed(runId);
  deps.events.emit('claimed', {
    jobId: occurrence.jobId,
    runId,
    scheduledAtMs: occurrence.scheduledAtMs,
  });
}

const skip = (reason: SkipReason, holder?: LockHolder | null): RunResult => ({
  kind: 'skipped',
  reason,
  ...(holder === undefined ? {} : { holder }),
});

/** One try at the job's lock; a lock whose holder will never release it is freed first. */
async function takeLock(
  deps: PipelineDeps,
  occurrence: Occurrence,
  key: string | undefined,
): Promise<{ kind: 'locked'; token: string } | (RunResult & { kind: 'skipped' })> {
  const { jobId, scheduledAtMs } = occurrence;
  const ttlMs = deps.settings.lockTtlMs;
  const options = key === undefined ? undefined : { key };
  try {
    let lock = await deps.locks.acquire(jobId, scheduledAtMs, ttlMs, options);
    // Only the job's own lock is freed this way (an occurrence's own is never another's).
    if (!lock.acquired && !key && (await holderIsGone(deps, jobId, lock.holder, scheduledAtMs))) {
      await deps.locks.releaseHeldBy(jobId, lock.holder?.podId ?? '');
      lock = await deps.locks.acquire(jobId, scheduledAtMs, ttlMs, options);
    }
    if (lock.acquired) return { kind: 'locked', token: lock.token };
    deps.metrics.lockSkips.inc();
    return { kind: 'skipped', reason: 'lock_held', holder: lock.holder };
  } catch {
    return { kind: 'skipped', reason: 'redis_error' };
  }
}

/**
 * A "run" lock nobody will release: this pod's own for an occurrence not in flight here (a
 * release that failed in a Redis blip), or, for an earlier occurrence, a pod whose liveness key
 * is gone. Left alone, either would block the job for the whole lock TTL.
 */
async function holderIsGone(
  deps: PipelineDeps,
  jobId: string,
  holder: LockHolder | null,
  scheduledAtMs: number,
): Promise<boolean> {
  if (holder?.state !== 'run') return false;
  if (holder.podId === deps.settings.podId) {
    return (
      holder.scheduledAtMs === scheduledAtMs ||
      !(deps.inFlightHere?.(jobId, holder.scheduledAtMs) ?? false)
    );
  }
  if (holder.scheduledAtMs >= scheduledAtMs) return false;
  const live = await deps.locks.livePods([holder.podId]);
  return !live.has(holder.podId);
}

/** Claims straight into 'running' (`sendAs`): this occurrence holds its slot and sends at once. */
async function claimOccurrence(
  deps: PipelineDeps,
  occurrence: Occurrence,
  sendAs: RunOrigin | undefined,
): Promise<ClaimAnswer | { kind: 'db_error' }> {
  try {
    const nextMs = occurrence.nextMs ?? null;
    const answer = await deps.store.claimRun(
      occurrence.jobId,
      new Date(occurrence.scheduledAtMs),
      deps.settings.podId,
      nextMs === null ? null : new Date(nextMs),
      sendAs,
    );
    if (answer.kind === 'taken') deps.metrics.lockSkips.inc();
    // The schedule has no occurrence after this one (ends_at): the claim could not say so (null
    // leaves next_run_at, as a "run now" must), so the job is parked explicitly.
    if (answer.kind === 'claimed' && occurrence.nextMs === null) {
      deps.store
        .advanceJob(occurrence.jobId, new Date(occurrence.scheduledAtMs), null)
        .catch((err: unknown) =>
          deps.log.warn(
            { job_id: occurrence.jobId, error: errorMessage(err) },
            'cannot park a job after its last occurrence (the due window will skip it)',
          ),
        );
    }
    return answer;
  } catch (err) {
    deps.log.error(
      {
        job_id: occurrence.jobId,
        scheduled_at: new Date(occurrence.scheduledAtMs).toISOString(),
        error: errorMessage(err),
      },
      'cannot claim occurrence: database unavailable',
    );
    return { kind: 'db_error' };
  }
}

/** An adopted run whose job this pod no longer holds (disabled or deleted meanwhile). */
async function dropAdopted(deps: PipelineDeps, occurrence: Occurrence): Promise<RunResult> {
  const runId = occurrence.adopted?.runId as string;
  await deps.store
    .failRuns([runId], 'pod crash before the run started; the job is no longer enabled', 'pod_lost')
    .catch(() => {});
  return skip('not_loaded');
}

/** Releases by token; `doneAtMs` marks the occurrence done so other pods skip it cheaply. */
async function releaseQuietly(
  deps: PipelineDeps,
  jobId: string,
  token: string,
  doneAtMs: number | null,
  key: string | undefined,
): Promise<void> {
  try {
    await deps.locks.release(jobId, token, doneAtMs, key);
  } catch (err) {
    // The lock expires by itself after its TTL; nothing else depends on this release.
    deps.log.warn({ job_id: jobId, error: errorMessage(err) }, 'cannot release lock');
  }
}
