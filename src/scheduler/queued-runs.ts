// Runs that wait in PostgreSQL for any pod (a failed attempt retried after its backoff, a run
// retried by hand, a backfilled occurrence). The database decides which run is due and whose it
// is (scheduler_take_queued: SKIP LOCKED, the job's one-run-at-a-time rule, the tenant's cap);
// this pod takes as many as it has room for and hands them to the dispatcher like adopted runs,
// so they wait their turn in the fair queue. A taken run still takes the job's Redis lock before
// it starts (life-cycle.ts, lockRuleOf); when another pod holds it, the run goes back to the
// queue for a moment.
import { errorMessage, type Occurrence } from './occurrence.js';
import type { PipelineDeps } from './pipeline.js';
import type { LockAttempt } from './ports.js';
import type { SchedulerDeps } from './settings.js';

/** At most this many queued runs are taken in one go. */
export const QUEUED_TAKE_LIMIT = 100;
/** A taken run whose job is busy elsewhere is offered again after this. */
export const REQUEUE_DELAY_MS = 1000;

export type QueuedRunDeps = Pick<SchedulerDeps, 'store' | 'log' | 'settings'>;

/**
 * Takes up to `room` due queued runs for this pod. Runs of a job this pod already holds (in
 * flight or waiting here) go straight back: one run of a job at a time.
 */
export async function takeQueuedRuns(
  deps: QueuedRunDeps,
  room: number,
  holds: (jobId: string) => boolean,
): Promise<Occurrence[]> {
  const { store, settings } = deps;
  if (room <= 0) return [];
  const taken = await store.takeQueuedRuns(settings.podId, Math.min(room, QUEUED_TAKE_LIMIT));
  const busy = taken.filter((run) => holds(run.jobId));
  if (busy.length > 0)
    await handBack(
      deps,
      busy.map((run) => run.runId),
    );
  const free = taken.filter((run) => !holds(run.jobId));
  for (const run of free) {
    deps.log.info(
      { run_id: run.runId, job_id: run.jobId, scheduled_at: run.scheduledAt.toISOString() },
      'queued run taken',
    );
  }
  return free.map((run) => ({
    jobId: run.jobId,
    tenantId: run.tenantId,
    scheduledAtMs: run.scheduledAt.getTime(),
    kind: 'queued' as const,
    adopted: {
      runId: run.runId,
      name: run.name,
      prompt: run.prompt,
      timeoutMs: run.timeoutMs ?? null,
      model: run.model ?? null,
    },
  }));
}

/**
 * One try at the job's lock for a taken queued run, at this pod's "now" rather than at the
 * occurrence's nominal time (a done marker of a later occurrence must not hide it). What a held
 * lock means for the run (it is handed back) is the life cycle's rule (life-cycle.ts).
 */
export function tryQueuedRunLock(deps: PipelineDeps, occurrence: Occurrence): Promise<LockAttempt> {
  return deps.locks.acquire(occurrence.jobId, deps.clock.now(), deps.settings.lockTtlMs);
}

/** Hands taken runs back to the queue, to be offered again after REQUEUE_DELAY_MS. */
export async function handBack(deps: QueuedRunDeps, runIds: string[]): Promise<void> {
  try {
    await deps.store.requeueRuns(runIds, deps.settings.podId, REQUEUE_DELAY_MS);
  } catch (err) {
    // Still claimed by this pod: recovery adopts them (they are not held here).
    deps.log.warn(
      { run_ids: runIds, error: errorMessage(err) },
      'cannot hand queued runs back; recovery adopts them',
    );
  }
}
