// The per-job overlap policy (docs/scheduler.md, "Overlap policies"): what an occurrence does
// while the job's previous run is still in flight. Pure decisions; the dispatcher applies them to
// the runs in flight on this pod. What the policy makes of the job's lock (which tells about runs
// on every pod: its key, a held lock, a wait) is part of the life cycle (life-cycle.ts), whose
// rules are re-exported here.
import { waitsForLock, type OccurrenceInput, type OverlapPolicy } from './life-cycle.js';
import type { LoadedJob, Occurrence } from './occurrence.js';

export { decideOnHeld, lockKeyOf, waitsForLock } from './life-cycle.js';
export type { OverlapPolicy };

export const policyOf = (job: LoadedJob | undefined): OverlapPolicy => job?.job.overlap ?? 'skip';

/** What the life cycle knows of an occurrence: its kind, its job's policy, its job and instant. */
export const lifeInputOf = (
  { kind, jobId, scheduledAtMs }: Occurrence,
  job: LoadedJob | undefined,
): OccurrenceInput => ({ kind, policy: policyOf(job), jobId, scheduledAtMs });

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
