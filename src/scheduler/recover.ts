// Recovery of runs no pod will finish. A run still "claimed" never sent anything to the model,
// so it is adopted and run by this pod; a "running" one may have reached the model, so it is
// failed (pod_lost), never run again, unless its job's retry policy sends it back to the queue
// (the database decides: attempts left, no side-effect tool call recorded; migration 250).
import type { SchedulerEvents } from './events.js';
import type { Occurrence } from './occurrence.js';
import type { ActiveRun } from '../domain/run.js';
import type { ErrorKind } from '../domain/vocabulary.js';
import type { SchedulerDeps } from './settings.js';

export const POD_CRASH_ERROR = 'pod crash or lock TTL exceeded';
export const UNRECORDED_ERROR = 'outcome not recorded: database unavailable';

export type RecoveryDeps = Pick<
  SchedulerDeps,
  'store' | 'locks' | 'log' | 'metrics' | 'settings'
> & {
  events: SchedulerEvents;
};

/**
 * Proves this pod is alive (runs of a pod whose proof has expired are recovered by the others)
 * and, while it schedules, learns which pods share the work. Returns the live peers.
 */
export function publishLiveness(deps: RecoveryDeps, schedules: boolean): Promise<string[]> {
  const { podId, livenessTtlMs } = deps.settings;
  return deps.locks.publishLiveness(podId, livenessTtlMs, schedules);
}

/**
 * Runs that no pod will finish: this pod's own that it does not hold (`holds`), and those of pods
 * whose liveness key is gone. Returns the claimed ones it adopted, to run.
 */
export async function recoverRuns(
  deps: RecoveryDeps,
  holds: (jobId: string) => boolean,
): Promise<Occurrence[]> {
  const self = deps.settings.podId;
  const active = await deps.store.activeRuns();
  const orphans = active.filter((run) => run.podId === self && !holds(run.jobId));
  const others = active.filter((run) => run.podId !== self);
  const live =
    others.length === 0
      ? new Set<string>()
      : await deps.locks.livePods([...new Set(others.map((run) => run.podId))]);
  const dead = others.filter((run) => !live.has(run.podId));

  await failRuns(deps, running(orphans), UNRECORDED_ERROR, 'not_recorded', 'unrecorded');
  await failRuns(deps, running(dead), POD_CRASH_ERROR, 'pod_lost', 'pod_gone');
  return adopt(deps, [...claimed(orphans), ...claimed(dead)]);
}

/**
 * Runs left under this pod's id by an earlier process with the same id (a restarted container
 * keeps its name). Called once, before this process has claimed anything.
 */
export async function recoverOwnLeftovers(deps: RecoveryDeps): Promise<Occurrence[]> {
  const active = await deps.store.activeRuns();
  const mine = active.filter((run) => run.podId === deps.settings.podId);
  await failRuns(deps, running(mine), POD_CRASH_ERROR, 'pod_lost', 'pod_restarted');
  return adopt(deps, claimed(mine));
}

/** The guide's safety net: runs in flight for longer than the lock TTL are failed. */
export async function cleanupStaleRuns(deps: RecoveryDeps): Promise<number> {
  const count = await deps.store.cleanupStaleRuns(deps.settings.lockTtlMs);
  if (count > 0) {
    deps.metrics.recovered.inc({ reason: 'stale' }, count);
    deps.log.warn({ count }, 'stale runs marked failed');
  }
  return count;
}

const FAILED_LOG_LINES: Record<string, string> = {
  unrecorded: 'run failed: outcome was not recorded',
  pod_gone: 'run failed: pod is gone',
};

const running = (runs: ActiveRun[]) => runs.filter((run) => run.status === 'running');
const claimed = (runs: ActiveRun[]) => runs.filter((run) => run.status === 'claimed');

async function failRuns(
  deps: RecoveryDeps,
  runs: ActiveRun[],
  error: string,
  kind: ErrorKind,
  reason: string,
): Promise<void> {
  if (runs.length === 0) return;
  const podOf = new Map(runs.map((run) => [run.runId, run.podId]));
  const failed = await deps.store.failRuns([...podOf.keys()], error, kind);
  for (const { runId, jobId, requeued } of failed) {
    const podId = podOf.get(runId) ?? '';
    await deps.locks.releaseHeldBy(jobId, podId);
    if (requeued) {
      // The job retries it (the database decided: no side-effect call, attempts left).
      deps.log.warn(
        { run_id: runId, job_id: jobId, pod_of_run: podId, error_kind: kind },
        'run requeued: its attempt was lost with its pod',
      );
      deps.events.emit('recovered', { runId, jobId, action: 'requeued', reason });
      continue;
    }
    deps.log.warn(
      { run_id: runId, job_id: jobId, pod_of_run: podId, error_kind: kind },
      FAILED_LOG_LINES[reason] ?? 'run failed by recovery',
    );
    deps.events.emit('recovered', { runId, jobId, action: 'failed', reason });
  }
  deps.metrics.recovered.inc({ reason }, failed.length);
}

async function adopt(deps: RecoveryDeps, runs: ActiveRun[]): Promise<Occurrence[]> {
  if (runs.length === 0) return [];
  const self = deps.settings.podId;
  for (const run of runs) {
    if (run.podId !== self) await deps.locks.releaseHeldBy(run.jobId, run.podId);
  }
  const adopted = await deps.store.adoptRuns(
    runs.map((run) => ({ runId: run.runId, fromPodId: run.podId })),
    self,
  );
  for (const run of adopted) {
    deps.log.info({ run_id: run.runId, job_id: run.jobId }, 'run adopted: it had not started');
    deps.events.emit('recovered', {
      runId: run.runId,
      jobId: run.jobId,
      action: 'adopted',
      reason: 'not_started',
    });
  }
  deps.metrics.recovered.inc({ reason: 'adopted' }, adopted.length);
  return adopted.map((run) => ({
    jobId: run.jobId,
    tenantId: run.tenantId,
    scheduledAtMs: run.scheduledAt.getTime(),
    kind: 'adopted' as const,
    adopted: { runId: run.runId, name: run.name, prompt: run.prompt },
  }));
}
