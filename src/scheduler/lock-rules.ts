// How an occurrence uses its job's Redis lock, by overlap policy and kind: which key it takes,
// how, and whether it leaves a "done" marker. Pure; part of the life cycle (life-cycle.ts), which
// re-exports it.
import type { LockState, OccurrenceKind, OverlapPolicy } from '../domain/vocabulary.js';

/** Who holds a lock, as read from its value (ports.ts LockHolder is this). */
export interface HolderView {
  state: LockState;
  scheduledAtMs: number;
  podId: string;
}

/** buffer_one and cancel_other claim an occurrence first, then wait for the job's lock. */
export const waitsForLock = (policy: OverlapPolicy): boolean =>
  policy === 'buffer_one' || policy === 'cancel_other';

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
  holder: HolderView | null,
  scheduledAtMs: number,
): 'skip' | 'wait' | 'cancel' {
  if (holder?.state !== 'run' || holder.scheduledAtMs >= scheduledAtMs) return 'skip';
  if (policy === 'buffer_one') return 'wait';
  if (policy === 'cancel_other') return 'cancel';
  return 'skip';
}

export interface LockRule {
  /** The key when it is not the job's own (allow_all: the occurrence's); undefined: the job's. */
  key: string | undefined;
  /**
   * try: once, at the nominal time, before the claim; try_at_now: once, at this pod's now (a done
   * marker of a later occurrence must not hide an earlier run), the run handed back if held;
   * wait: until the earlier run lets go (the run holds its claim); none: not at all.
   */
  take: 'try' | 'try_at_now' | 'wait' | 'none';
  /** Released as a "done" marker once the occurrence is settled (else the key simply goes). */
  leavesDone: boolean;
}

/** Which lock an occurrence takes, how, and what it leaves: the one rule for every kind. */
export function lockRuleOf(
  kind: OccurrenceKind,
  policy: OverlapPolicy,
  jobId: string,
  scheduledAtMs: number,
): LockRule {
  // A queued run may be queued again (its retry policy), so no marker may say it is done.
  if (kind === 'queued') return { key: undefined, take: 'try_at_now', leavesDone: false };
  const key = lockKeyOf(policy, jobId, scheduledAtMs);
  // An adopted run's dead claimant's lock is freed by recovery; it only waits its turn behind
  // an earlier run when the policy makes occurrences wait for each other.
  if (kind === 'adopted') {
    return waitsForLock(policy)
      ? { key, take: 'wait', leavesDone: true }
      : { key: undefined, take: 'none', leavesDone: true };
  }
  return { key, take: 'try', leavesDone: true };
}
