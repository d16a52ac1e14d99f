// An occurrence of a buffer_one or cancel_other job whose previous run holds the job's lock: it
// is claimed first (its run row makes it durable: if this pod dies, recovery adopts it), a
// cancel_other one asks the running one to stop (the cancel channel, heard by every pod), and it
// then takes the lock as soon as the running one lets go, wherever that runs.
import type { SkipReason } from './events.js';
import { errorMessage, type Occurrence } from './occurrence.js';
import { lockPollDelayMs, waitDeadlineMs } from './overlap.js';
import type { ClaimedRun, RunOutcome } from '../domain/run.js';
import type { LockHolder } from './ports.js';
import { RunAborted, type PipelineDeps, type RunResult } from './pipeline.js';

export type Turn = { kind: 'locked'; token: string } | RunResult;

/** Claims the occurrence ahead of the lock. */
export async function claimWaiting(
  deps: PipelineDeps,
  occurrence: Occurrence,
): Promise<{ kind: 'claimed'; run: ClaimedRun } | { kind: 'skipped'; reason: SkipReason }> {
  try {
    const answer = await deps.store.claimWaiting(
      occurrence.jobId,
      new Date(occurrence.scheduledAtMs),
      deps.settings.podId,
      occurrence.nextMs == null ? null : new Date(occurrence.nextMs),
    );
    if (answer.kind === 'claimed') return answer;
    return { kind: 'skipped', reason: answer.kind };
  } catch (err) {
    deps.log.error(
      { job_id: occurrence.jobId, error: errorMessage(err) },
      'cannot claim waiting occurrence: database unavailable',
    );
    return { kind: 'skipped', reason: 'db_error' };
  }
}

/** Asks the pods running earlier occurrences of the job to stop them (cancel_other). */
export async function cancelEarlier(deps: PipelineDeps, occurrence: Occurrence): Promise<void> {
  try {
    const runIds = await deps.store.cancelOlderRuns(
      occurrence.jobId,
      new Date(occurrence.scheduledAtMs),
    );
    if (runIds.length > 0) {
      deps.log.info(
        { job_id: occurrence.jobId, cancelled_runs: runIds },
        'overlap cancel_other: earlier run asked to stop',
      );
    }
  } catch (err) {
    // The wait below still ends when the earlier run does, or at its lock's TTL.
    deps.log.warn(
      { job_id: occurrence.jobId, error: errorMessage(err) },
      'cannot ask the earlier run to stop',
    );
  }
}

/**
 * Tries the job's lock until it is this occurrence's (a "done" marker of any occurrence is free
 * to it: it holds its claim), the waiting run is aborted, or the lock's TTL has passed.
 */
export async function waitForLock(
  deps: PipelineDeps,
  occurrence: Occurrence,
  run: ClaimedRun,
  controller: AbortController,
): Promise<Turn> {
  const { clock, settings } = deps;
  const { jobId, scheduledAtMs } = occurrence;
  const deadlineMs = waitDeadlineMs(clock.now(), settings.lockTtlMs);
  let livenessCheckedMs = -Infinity;
  for (let attempt = 0; ; attempt++) {
    if (controller.signal.aborted) return endAborted(deps, occurrence, run, controller.signal);
    let lock;
    try {
      lock = await deps.locks.acquire(jobId, scheduledAtMs, settings.lockTtlMs, { overDone: true });
      if (!lock.acquired && clock.now() - livenessCheckedMs >= 1000) {
        livenessCheckedMs = clock.now();
        if (await holderIsGone(deps, jobId, lock.holder)) {
          await deps.locks.releaseHeldBy(jobId, lock.holder?.podId ?? '');
          continue;
        }
      }
    } catch {
      return { kind: 'skipped', reason: 'redis_error' };
    }
    if (lock.acquired) return startTurn(deps, occurrence, run, lock.token);
    if (clock.now() >= deadlineMs) {
      return failWaiting(deps, occurrence, run, 'lock_lost', 'the earlier run kept the lock');
    }
    await pause(deps, jobId, controller.signal, lockPollDelayMs(attempt));
  }
}

/** The lock is this occurrence's: its run starts now, if it is still this pod's. */
async function startTurn(
  deps: PipelineDeps,
  occurrence: Occurrence,
  run: ClaimedRun,
  token: string,
): Promise<Turn> {
  const started = await deps.store
    .startWaiting(run.runId, new Date(occurrence.scheduledAtMs), deps.settings.podId)
    .catch(() => false);
  if (!started) {
    await deps.locks.release(occurrence.jobId, token, null).catch(() => {});
    return { kind: 'skipped', reason: 'taken' };
  }
  return { kind: 'locked', token };
}

/** A run holding the lock that no one will finish: a dead pod's, or this pod's not in flight. */
async function holderIsGone(
  deps: PipelineDeps,
  jobId: string,
  holder: LockHolder | null,
): Promise<boolean> {
  if (holder?.state !== 'run') return false;
  if (holder.podId === deps.settings.podId) {
    return !(deps.inFlightHere?.(jobId, holder.scheduledAtMs) ?? true);
  }
  const live = await deps.locks.livePods([holder.podId]);
  return !live.has(holder.podId);
}

/** Waits for a pause, the abort, or the end of one of the job's runs on this pod. */
function pause(
  deps: PipelineDeps,
  jobId: string,
  signal: AbortSignal,
  delayMs: number,
): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      deps.clock.clearTimeout(timer);
      signal.removeEventListener('abort', done);
      forget();
      resolve();
    };
    const timer = deps.clock.setTimeout(done, delayMs);
    signal.addEventListener('abort', done);
    const forget = deps.whenRunEnds?.(jobId, done) ?? (() => {});
  });
}

/** Aborted while waiting: a cancel is recorded; a shutdown leaves the claim for another pod. */
async function endAborted(
  deps: PipelineDeps,
  occurrence: Occurrence,
  run: ClaimedRun,
  signal: AbortSignal,
): Promise<RunResult> {
  const reason: unknown = signal.reason;
  if (reason instanceof RunAborted && reason.kind === 'cancelled') {
    return failWaiting(deps, occurrence, run, 'cancelled', reason.message);
  }
  return { kind: 'skipped', reason: 'handed_back' };
}

async function failWaiting(
  deps: PipelineDeps,
  occurrence: Occurrence,
  run: ClaimedRun,
  errorKind: 'cancelled' | 'lock_lost',
  error: string,
): Promise<RunResult> {
  const failed = await deps.store.failRuns([run.runId], error, errorKind).catch(() => []);
  const outcome: RunOutcome = { success: false, result: null, error, errorKind, attempts: 0 };
  deps.metrics.runs.inc({ status: 'failed', error_kind: errorKind });
  deps.log.warn(
    {
      job_id: occurrence.jobId,
      tenant_id: occurrence.tenantId,
      run_id: run.runId,
      scheduled_at: new Date(occurrence.scheduledAtMs).toISOString(),
      error_kind: errorKind,
    },
    'run failed before it started: it was waiting for the earlier run of its job',
  );
  deps.events.emit('recorded', {
    jobId: occurrence.jobId,
    runId: run.runId,
    scheduledAtMs: occurrence.scheduledAtMs,
    status: 'failed',
    errorKind,
    recorded: failed.length > 0,
  });
  return { kind: 'ran', runId: run.runId, outcome, recorded: failed.length > 0 };
}
