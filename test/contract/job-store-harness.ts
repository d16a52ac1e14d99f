// What the JobStore contract needs of a backend besides the port itself: writes the API or plain
// SQL would make, and reads of what the store left in its rows. The in-memory fake
// (test/unit/job-store-fake.test.ts) and PostgreSQL (test/integration/job-store-pg.test.ts)
// each provide one; the cases are in job-store*.contract.ts.
import { expect } from 'vitest';
import type { AttemptRecord, RunOutcome } from '../../src/domain/run.js';
import type { ErrorKind, OverlapPolicy } from '../../src/domain/vocabulary.js';
import type { JobStore, WaitingClaimAnswer } from '../../src/scheduler/ports.js';

export interface RunState {
  status: string;
  podId: string | null;
  error: string | null;
  errorKind: ErrorKind | null;
  attempts: number;
}

/** A run's retry and progress columns (attempt, not_before, previous_attempts, the attempt log). */
export interface RunAttempts {
  attempt: number;
  queued: boolean;
  previousAttempts: number;
  attemptLog: AttemptRecord[] | null;
}

/** A job's record of its last outcome (what finishRun and failRuns write). */
export interface JobOutcomes {
  runCount: number;
  lastRunSuccess: boolean | null;
  lastRunErrorKind: ErrorKind | null;
}

export interface JobStoreHarness {
  /** One store per pod id (each pod's own batching and claims). */
  storeFor(podId: string): JobStore;
  addTenant(maxConcurrentRuns: number | null): Promise<string>;
  addJob(tenantId?: string): Promise<string>;
  disableJob(jobId: string): Promise<void>;
  /** Gives the job a retry policy (migration 250). */
  setRetry(jobId: string, policy: { maxAttempts: number; backoffMs: number }): Promise<void>;
  setOverlap(jobId: string, overlap: OverlapPolicy): Promise<void>;
  run(runId: string): Promise<RunState | undefined>;
  attempts(runId: string): Promise<RunAttempts | undefined>;
  outcomes(jobId: string): Promise<JobOutcomes>;
  /** Makes a run look started `ms` earlier. */
  age(runId: string, ms: number): Promise<void>;
  /** A queued run's backoff is over: it may start now. */
  makeDue(runId: string): Promise<void>;
  /** The job's next_run_at as stored (the fake's PARKED and PostgreSQL's 'infinity' as 'parked'). */
  nextRunAt(jobId: string): Promise<Date | null | 'parked'>;
  /** A "run now" at `at`, as the API records it (cron_jobs.last_triggered_at). */
  trigger(jobId: string, at: Date): Promise<void>;
  /** A cancel, as the API records it with its notification (cron_job_runs.cancel_requested_at). */
  requestCancel(runId: string): Promise<void>;
}

/** The start of the catch-up window the planning sweep passes: before every run of these tests. */
export const SINCE = new Date('2000-01-01T00:00:00Z');

export const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 0, minute));
/** Times no other case of the suite uses (one database serves them all). */
export const later = (minute: number) => new Date(Date.UTC(2031, 0, 1, 0, minute));

export const success: RunOutcome = {
  success: true,
  result: 'ok',
  error: null,
  errorKind: null,
  attempts: 1,
};

/** A failed attempt of a kind the retry policy runs again. */
export const modelError: RunOutcome = {
  success: false,
  result: null,
  error: 'the model server answered 500',
  errorKind: 'model_error',
  attempts: 2,
};

export function runIdOf(answer: WaitingClaimAnswer): string {
  if (answer.kind !== 'claimed') throw new Error(`claim answered ${answer.kind}`);
  return answer.run.runId;
}

/** Claims an occurrence and marks it sent: a run in flight, as the pod runs it. */
export async function runningRun(
  store: JobStore,
  jobId: string,
  scheduledAt: Date,
  podId: string,
): Promise<string> {
  const runId = runIdOf(await store.claimRun(jobId, scheduledAt, podId));
  expect(await store.markSent(runId, podId)).toBe(true);
  return runId;
}

/**
 * What takeQueuedRuns took of `mine`: one database serves every case, so another case's queued
 * runs may come along (they are finished here, so that nothing of this case stays in flight).
 */
export async function takeMine(
  store: JobStore,
  podId: string,
  limit: number,
  mine: readonly string[],
): Promise<string[]> {
  const taken = await store.takeQueuedRuns(podId, limit);
  const others = taken.filter((run) => !mine.includes(run.runId)).map((run) => run.runId);
  if (others.length > 0) await store.failRuns(others, 'not this case', 'shutdown');
  return taken.filter((run) => mine.includes(run.runId)).map((run) => run.runId);
}
