// What the scheduler core needs from the outside world. PostgreSQL, Redis and the agent implement
// these in production; unit tests use in-memory fakes and a fake clock.

/**
 * An enabled job of a live tenant, as the scheduler loads it: what scheduling needs. Its name and
 * prompt come with each claim, so a pod holding 100,000 jobs does not hold their prompts.
 */
export interface StoredJob {
  id: string;
  tenantId: string;
  schedule: string;
  timezone: string;
  /** Occurrences before this were never due (creation, re-enabling, schedule change). */
  dueFrom: Date;
  /** Changes whenever the definition changes; a different value replaces the pod's copy. */
  updatedAt: Date;
  /** The latest occurrence already claimed by any pod, if any. */
  lastScheduledAt: Date | null;
}

/** A claimed occurrence: its run, and the job's name and prompt as committed at the claim. */
export interface ClaimedRun {
  runId: string;
  name: string;
  prompt: string;
}

export interface RunOutcome {
  success: boolean;
  result: string | null;
  error: string | null;
}

export interface RunningRun {
  runId: string;
  jobId: string;
  podId: string;
}

export interface JobStore {
  /** All enabled jobs, or those of `ids` that are still enabled (missing ones are gone). */
  loadJobs(ids?: readonly string[]): Promise<StoredJob[]>;
  /** Id and version of every enabled job: what a periodic sync compares before loading changes. */
  jobVersions(): Promise<{ id: string; updatedAt: Date }[]>;
  /** Claims an occurrence; null when it was already claimed or the job can no longer run. */
  claimRun(jobId: string, scheduledAt: Date, podId: string): Promise<ClaimedRun | null>;
  /** Records the outcome and updates the job in one transaction; false if the run was no longer running. */
  finishRun(runId: string, outcome: RunOutcome, nextRunAt: Date | null): Promise<boolean>;
  failRuns(runIds: readonly string[], reason: string): Promise<{ runId: string; jobId: string }[]>;
  runningRuns(): Promise<RunningRun[]>;
  cleanupStaleRuns(lockTtlMs: number): Promise<number>;
}

/** Who holds a job's lock, as read when an acquire fails. */
export interface LockHolder {
  state: 'run' | 'done';
  scheduledAtMs: number;
  podId: string;
}

export type LockAttempt =
  { acquired: true; token: string } | { acquired: false; holder: LockHolder | null };

export interface LockStore {
  acquire(jobId: string, scheduledAtMs: number, ttlMs: number): Promise<LockAttempt>;
  /**
   * Compare-and-set on the token. With doneAtMs the key stays as a short-lived "done" marker, so
   * pods that come late to that occurrence skip it without asking the database; without, it goes.
   */
  release(jobId: string, token: string, doneAtMs: number | null): Promise<void>;
  /** Frees a lock held by a dead pod (only if that pod still holds it). */
  releaseHeldBy(jobId: string, podId: string): Promise<void>;
  /**
   * Proves `podId` alive for ttlMs. A pod that schedules also registers as a peer; the answer is
   * every registered peer still alive (sorted), which decides who tries which lock first.
   */
  publishLiveness(podId: string, ttlMs: number, schedules: boolean): Promise<string[]>;
  /** The subset of podIds whose liveness key exists. */
  livePods(podIds: readonly string[]): Promise<Set<string>>;
  ping(): Promise<boolean>;
}

export interface RunRequest {
  jobId: string;
  tenantId: string;
  name: string;
  prompt: string;
  timezone: string;
  scheduledAt: Date;
}

/** Runs a job's prompt (through the agent in production); resolves with the reply text. */
export type AgentRunner = (request: RunRequest, signal: AbortSignal) => Promise<string>;

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
