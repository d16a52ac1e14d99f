// What becomes of a pod's run, in memory: scheduler_mark_sent, scheduler_run_progress,
// scheduler_start_waiting, scheduler_finish, scheduler_fail (and the stale cleanup through it),
// scheduler_requeue and scheduler_cancel_older, with the retry trigger of migration 250 under
// every statement that fails a run.
import type { AttemptRecord, RunOrigin, RunOutcome } from '../../src/domain/run.js';
import type { ErrorKind } from '../../src/domain/vocabulary.js';
import type { RecordAnswer } from '../../src/scheduler/ports.js';
import { inFlight, type FakeJob, type FakeRun, type Tables } from './rows.js';

/** The kinds of failure that are safe to run again (cron_job_runs_retry_attempt). */
const RETRYABLE: readonly ErrorKind[] = [
  'model_unreachable',
  'model_throttled',
  'model_error',
  'timeout',
  'pod_lost',
];
const MAX_BACKOFF_MS = 3_600_000;

/** scheduler_mark_sent: claimed -> running, with the first attempt and the origin. */
export function markSent(
  tables: Tables,
  nowMs: number,
  runId: string,
  podId: string,
  origin?: RunOrigin,
): boolean {
  const run = tables.runs.get(runId);
  if (!run || run.status !== 'claimed' || run.podId !== podId) return false;
  run.status = 'running';
  run.modelCalledAt = new Date(nowMs);
  run.attempts = Math.max(run.attempts, 1);
  run.origin = origin ?? run.origin;
  return true;
}

/** scheduler_run_progress: a running run's attempts so far. */
export function noteProgress(
  tables: Tables,
  runId: string,
  podId: string,
  attempts: number,
  log: AttemptRecord[],
): boolean {
  const run = tables.runs.get(runId);
  if (!run || run.status !== 'running' || run.podId !== podId) return false;
  run.attempts = Math.max(run.attempts, attempts);
  run.attemptLog = log.map((entry) => ({ ...entry }));
  return true;
}

/** scheduler_start_waiting: the waiting run took the lock; its time counts from now. */
export function startWaiting(
  tables: Tables,
  nowMs: number,
  runId: string,
  scheduledAt: Date,
  podId: string,
): boolean {
  const run = tables.runs.get(runId);
  if (!run || run.scheduledAt.getTime() !== scheduledAt.getTime()) return false;
  if (run.podId !== podId || run.status !== 'claimed') return false;
  run.startedAt = new Date(nowMs);
  return true;
}

/**
 * cron_job_runs_retry_attempt, run as the row turns from in flight to failed: a retryable
 * failure of a job with attempts left (and no side effect unless allowed) goes back to `queued`
 * after its backoff instead. `was` is the row before the update. Returns whether it requeued.
 */
function retryAttempt(tables: Tables, nowMs: number, run: FakeRun, was: FakeRun): boolean {
  if (run.errorKind === null || !RETRYABLE.includes(run.errorKind)) return false;
  const job = tables.jobs.get(run.jobId);
  if (!job || !job.enabled || !job.retry || was.attempt >= job.retry.maxAttempts) return false;
  if (!job.retry.afterSideEffects && run.sideEffects) return false;
  run.previousAttempts = [
    ...was.previousAttempts,
    {
      attempt: was.attempt,
      errorKind: run.errorKind,
      error: run.error,
      startedAt: new Date(was.startedAt),
      finishedAt: new Date(nowMs),
      durationMs: Math.max(0, nowMs - was.startedAt.getTime()),
      podId: was.podId,
      modelRequests: run.attempts,
    },
  ];
  const backoffMs = Math.min(job.retry.backoffMs * 2 ** (was.attempt - 1), MAX_BACKOFF_MS);
  Object.assign(run, {
    status: 'queued',
    attempt: was.attempt + 1,
    notBefore: new Date(nowMs + backoffMs),
    podId: null,
    finishedAt: null,
    durationMs: null,
    error: null,
    errorKind: null,
    result: null,
  } satisfies Partial<FakeRun>);
  return true;
}

/** Sets the run's final state; the retry trigger may send it back to the queue instead. */
function end(
  tables: Tables,
  nowMs: number,
  run: FakeRun,
  ending: Pick<FakeRun, 'status' | 'result' | 'error' | 'errorKind' | 'attempts'>,
): 'recorded' | 'requeued' {
  const was = { ...run };
  Object.assign(run, ending, {
    error: ending.error === null ? null : ending.error.slice(0, 1024),
    finishedAt: new Date(nowMs),
    durationMs: Math.max(0, nowMs - run.startedAt.getTime()),
  });
  if (run.status === 'failed' && retryAttempt(tables, nowMs, run, was)) return 'requeued';
  return 'recorded';
}

function noteOutcome(job: FakeJob | undefined, run: FakeRun): void {
  if (!job) return;
  job.lastRunAt = new Date(run.startedAt);
  job.lastRunSuccess = run.status === 'success';
  job.lastRunError = run.error;
  job.lastRunErrorKind = run.errorKind;
  job.runCount += 1;
}

/**
 * scheduler_finish for one run of podId: 'requeued' when the job's retry policy sent the failed
 * attempt back to the queue (the job is then left alone: only the final attempt counts).
 */
export function finish(
  tables: Tables,
  nowMs: number,
  request: { runId: string; outcome: RunOutcome; podId: string; scheduledAt?: Date | undefined },
): RecordAnswer {
  const { runId, outcome, podId, scheduledAt } = request;
  const run = tables.runs.get(runId);
  if (!run || !inFlight(run) || run.podId !== podId) return false;
  if (scheduledAt && run.scheduledAt.getTime() !== scheduledAt.getTime()) return false;
  const answer = end(tables, nowMs, run, {
    status: outcome.success ? 'success' : 'failed',
    result: outcome.result,
    error: outcome.error,
    errorKind: outcome.success ? null : outcome.errorKind,
    attempts: outcome.attempts,
  });
  if (answer === 'recorded') noteOutcome(tables.jobs.get(run.jobId), run);
  return answer;
}

/**
 * scheduler_fail: the runs in flight among runIds fail with the reason; each job's last run is
 * the latest started of them, counted once. Runs the retry trigger requeued leave their job alone.
 */
export function fail(
  tables: Tables,
  nowMs: number,
  runIds: readonly string[],
  reason: string,
  kind: ErrorKind,
): { runId: string; jobId: string; requeued: boolean }[] {
  const failed: { runId: string; jobId: string; requeued: boolean }[] = [];
  const latest = new Map<string, FakeRun>();
  for (const id of new Set(runIds)) {
    const run = tables.runs.get(id);
    if (!run || !inFlight(run)) continue;
    const answer = end(tables, nowMs, run, {
      status: 'failed',
      result: run.result,
      error: reason,
      errorKind: kind,
      attempts: run.attempts,
    });
    failed.push({ runId: run.id, jobId: run.jobId, requeued: answer === 'requeued' });
    const last = latest.get(run.jobId);
    if (answer === 'recorded' && (!last || run.startedAt > last.startedAt)) {
      latest.set(run.jobId, run);
    }
  }
  for (const [jobId, run] of latest) noteOutcome(tables.jobs.get(jobId), run);
  return failed;
}

/** scheduler_cleanup_stale_runs: runs in flight that started before the lock TTL fail. */
export function failStale(tables: Tables, nowMs: number, lockTtlMs: number): number {
  const cutoffMs = nowMs - Math.ceil(lockTtlMs / 1000) * 1000;
  const stale = [...tables.runs.values()].filter(
    (run) => inFlight(run) && run.startedAt.getTime() < cutoffMs,
  );
  const ids = stale.map((run) => run.id);
  return fail(tables, nowMs, ids, 'pod crash or lock TTL exceeded', 'lock_lost').length;
}

/** scheduler_requeue: claimed runs of podId go back to the queue, to start after delayMs. */
export function requeue(
  tables: Tables,
  nowMs: number,
  runIds: readonly string[],
  podId: string,
  delayMs: number,
): string[] {
  const handed: string[] = [];
  for (const id of new Set(runIds)) {
    const run = tables.runs.get(id);
    if (!run || run.status !== 'claimed' || run.podId !== podId) continue;
    run.status = 'queued';
    run.podId = null;
    run.notBefore = new Date(nowMs + Math.max(Math.round(delayMs), 0));
    handed.push(id);
  }
  return handed;
}

/** scheduler_unsend: runs claimed straight into 'running' that never sent, back to 'claimed'. */
export function unsend(tables: Tables, runIds: readonly string[], podId: string): string[] {
  const handed: string[] = [];
  for (const id of new Set(runIds)) {
    const run = tables.runs.get(id);
    if (!run || run.status !== 'running' || run.podId !== podId) continue;
    run.status = 'claimed';
    run.modelCalledAt = null;
    run.attempts = 0;
    handed.push(id);
  }
  return handed;
}

/** scheduler_cancel_older: the job's runs in flight for earlier occurrences (asked to stop). */
export function olderInFlight(tables: Tables, jobId: string, scheduledAt: Date): string[] {
  return [...tables.runs.values()]
    .filter((run) => run.jobId === jobId && inFlight(run) && run.scheduledAt < scheduledAt)
    .map((run) => run.id);
}
