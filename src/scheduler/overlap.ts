// The per-job overlap policy (docs/scheduler.md, "Overlap policies"): what an occurrence does
// while the job's previous run is still in flight. Pure decisions; the dispatcher applies them to
// the runs in flight on this pod, run-occurrence.ts to the job's lock (which tells about runs on
// every pod) and the database claim.
import type { LoadedJob } from './occurrence.js';
import type { LockHolder, OverlapPolicy } from './ports.js';

export type { OverlapPolicy };

export const policyOf = (job: LoadedJob | undefined): OverlapPolicy => job?.job.overlap ?? 'skip';

/** buffer_one and cancel_other claim an occurrence first, then wait for the job's lock. */
export const waitsForLock = (policy: OverlapPolicy): boolean =>
  policy === 'buffer_one' || policy === 'cancel_other';

/**
 * An occurrence of a job with runs in flight on this pod (their nominal times): start it (the
 * lock and the claim then decide), skip it (counted as an overlap), or ignore it (it is in
 * flight already, or older than what runs: a late copy).
 */
export function decideHere(
  policy: OverlapPolicy,
  inFlightMs: readonly number[],
  scheduledAtMs: number,
): 'start' | 'skip' | 'ignore' {
  if (inFlightMs.length === 0) return 'start';
  if (inFlightMs.includes(scheduledAtMs)) return 'ignore';
  if (policy === 'allow_all') return 'start';
  if (!inFlightMs.some((ms) => ms < scheduledAtMs)) return 'ignore';
  // One running and one waiting for it is the most a buffer_one or cancel_other job has.
  if (waitsForLock(policy) && inFlightMs.length < 2) return 'start';
  return 'skip';
}

/** The lock an occurrence takes: its own for allow_all (each still once), else the job's. */
export function lockKeyOf(
  policy: OverlapPolicy,
  jobId: string,
  scheduledAtMs: number,
): string | undefined {
  return policy === 'allow_all' ? `${jobId}@${scheduledAtMs}` : undefined;
}

/**
 * The job's lock is held: an earlier occurrence running (on any pod) makes a buffer_one
 * occurrence wait its turn and a cancel_other one stop it first; anything else is skipped.
 */
export function decideOnHeld(
  policy: OverlapPolicy,
  holder: LockHolder | null,
  scheduledAtMs: number,
): 'skip' | 'wait' | 'cancel' {
  if (holder?.state !== 'run' || holder.scheduledAtMs >= scheduledAtMs) return 'skip';
  if (policy === 'buffer_one') return 'wait';
  if (policy === 'cancel_other') return 'cancel';
  return 'skip';
}

/** First tries at the lock come quickly (a cancelled run lets go within milliseconds). */
export const LOCK_POLL_MIN_MS = 20;
/** A run ending on another pod is noticed within this (one ends here wakes the wait at once). */
export const LOCK_POLL_MAX_MS = 250;

/** The pause before try number `attempt` (0-based) at the lock while waiting. */
export function lockPollDelayMs(attempt: number): number {
  return Math.min(LOCK_POLL_MIN_MS * 2 ** Math.min(attempt, 10), LOCK_POLL_MAX_MS);
}

/**
 * Until when a waiting occurrence tries: the running one cannot hold the lock longer than its
 * TTL (its own run is at most the exec timeout, shorter than the TTL), so past this the wait has
 * failed.
 */
export function waitDeadlineMs(startedMs: number, lockTtlMs: number): number {
  return startedMs + lockTtlMs;
}
