// How a run becomes a pod's, in memory: scheduler_claim, scheduler_claim_waiting,
// scheduler_take_queued and scheduler_adopt (migrations/functions/), rule for rule, each as one
// step (the fake runs one statement at a time, so what the SQL serialises with locks holds here).
import type { AdoptedRun, ClaimedRun, RunOrigin } from '../../src/domain/run.js';
import type { ClaimAnswer, WaitingClaimAnswer } from '../../src/scheduler/ports.js';
import { inFlight, runRow, type FakeJob, type FakeRun, type Tables } from './rows.js';

/** The tenant's max_concurrent_runs leaves no room for one more run in flight. */
function atCap(tables: Tables, tenantId: string, admittedBefore = 0): boolean {
  const cap = tables.tenantCaps.get(tenantId) ?? 0;
  if (cap <= 0) return false;
  let active = 0;
  for (const run of tables.runs.values()) if (run.tenantId === tenantId && inFlight(run)) active++;
  return admittedBefore + 1 > cap - active;
}

function jobInFlight(tables: Tables, jobId: string, except?: Date): number {
  let count = 0;
  for (const run of tables.runs.values()) {
    if (run.jobId !== jobId || !inFlight(run)) continue;
    if (except && run.scheduledAt.getTime() === except.getTime()) continue;
    count++;
  }
  return count;
}

function occurrenceExists(tables: Tables, jobId: string, scheduledAt: Date): boolean {
  for (const run of tables.runs.values()) {
    if (run.jobId === jobId && run.scheduledAt.getTime() === scheduledAt.getTime()) return true;
  }
  return false;
}

/** The claim moves next_run_at on in the same transaction (never backwards). */
function advanceOnClaim(job: FakeJob, scheduledAt: Date, nextRunAt: Date | null): void {
  if (nextRunAt && job.nextRunAt && job.nextRunAt <= scheduledAt && nextRunAt > job.nextRunAt) {
    job.nextRunAt = new Date(nextRunAt);
  }
}

function claimedRun(job: FakeJob, run: FakeRun): ClaimedRun {
  return {
    runId: run.id,
    name: job.name,
    prompt: job.prompt,
    ...(job.timeoutMs !== null ? { timeoutMs: job.timeoutMs } : {}),
    ...(job.model !== null ? { model: job.model } : {}),
  };
}

function adoptedRun(job: FakeJob, run: FakeRun): AdoptedRun {
  return {
    runId: run.id,
    jobId: run.jobId,
    tenantId: run.tenantId,
    scheduledAt: new Date(run.scheduledAt),
    name: job.name,
    prompt: job.prompt,
    timeoutMs: job.timeoutMs,
    model: job.model,
    attempt: run.attempt,
  };
}

/** scheduler_claim for one occurrence. */
export function claim(
  tables: Tables,
  nowMs: number,
  request: {
    jobId: string;
    scheduledAt: Date;
    podId: string;
    nextRunAt: Date | null;
    sendAs?: RunOrigin | undefined;
  },
): ClaimAnswer {
  const { jobId, scheduledAt, podId, sendAs } = request;
  const job = tables.jobs.get(jobId);
  if (!job || !job.enabled) return { kind: 'taken' };
  if (job.overlap !== 'allow_all' && jobInFlight(tables, jobId) > 0) return { kind: 'taken' };
  if (atCap(tables, job.tenantId)) return { kind: 'capped' };
  if (occurrenceExists(tables, jobId, scheduledAt)) return { kind: 'taken' }; // ON CONFLICT
  const run = runRow(
    sendAs
      ? { jobId, tenantId: job.tenantId, scheduledAt, podId, status: 'running', origin: sendAs }
      : { jobId, tenantId: job.tenantId, scheduledAt, podId },
    nowMs,
  );
  if (sendAs) {
    run.modelCalledAt = new Date(nowMs);
    run.attempts = 1;
  }
  tables.runs.set(run.id, run);
  advanceOnClaim(job, scheduledAt, request.nextRunAt);
  const claimed = claimedRun(job, run);
  return { kind: 'claimed', run: sendAs ? { ...claimed, sent: true } : claimed };
}

/** scheduler_claim_waiting: an occurrence of a buffer_one or cancel_other job, ahead of its lock. */
export function claimWaiting(
  tables: Tables,
  nowMs: number,
  request: { jobId: string; scheduledAt: Date; podId: string; nextRunAt: Date | null },
): WaitingClaimAnswer {
  const { jobId, scheduledAt, podId } = request;
  const job = tables.jobs.get(jobId);
  if (!job || !job.enabled) return { kind: 'taken' };
  if (job.overlap !== 'buffer_one' && job.overlap !== 'cancel_other') return { kind: 'taken' };
  // At most one occurrence waits: one running and one waiting is the most a job has in flight.
  if (jobInFlight(tables, jobId, scheduledAt) >= 2) return { kind: 'overlap' };
  if (atCap(tables, job.tenantId)) return { kind: 'capped' };
  if (occurrenceExists(tables, jobId, scheduledAt)) return { kind: 'taken' };
  const run = runRow({ jobId, tenantId: job.tenantId, scheduledAt, podId }, nowMs);
  tables.runs.set(run.id, run);
  advanceOnClaim(job, scheduledAt, request.nextRunAt);
  return {
    kind: 'claimed',
    run: {
      runId: run.id,
      name: job.name,
      prompt: job.prompt,
      timeoutMs: job.timeoutMs,
      model: job.model,
    },
  };
}

const byQueueOrder = (a: FakeRun, b: FakeRun) =>
  (a.notBefore?.getTime() ?? 0) - (b.notBefore?.getTime() ?? 0) ||
  (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * scheduler_take_queued: the oldest due queued run of each job that may run now (live, nothing
 * of it in flight), round-robin over tenants within each capped tenant's room, at most `limit`;
 * they become claimed by podId.
 */
export function takeQueued(
  tables: Tables,
  nowMs: number,
  podId: string,
  limit: number,
): AdoptedRun[] {
  const heads = new Map<string, FakeRun>();
  for (const run of tables.runs.values()) {
    if (run.status !== 'queued' || (run.notBefore?.getTime() ?? Infinity) > nowMs) continue;
    const job = tables.jobs.get(run.jobId);
    if (!job || !job.enabled || jobInFlight(tables, run.jobId) > 0) continue;
    const head = heads.get(run.jobId);
    if (!head || byQueueOrder(run, head) < 0) heads.set(run.jobId, run);
  }
  const byTenant = new Map<string, FakeRun[]>();
  for (const run of heads.values()) {
    byTenant.set(run.tenantId, [...(byTenant.get(run.tenantId) ?? []), run]);
  }
  const admitted: { run: FakeRun; rank: number }[] = [];
  for (const [tenantId, runs] of byTenant) {
    runs.sort(byQueueOrder).forEach((run, i) => {
      if (!atCap(tables, tenantId, i)) admitted.push({ run, rank: i + 1 });
    });
  }
  admitted.sort((a, b) => a.rank - b.rank || byQueueOrder(a.run, b.run));
  return admitted.slice(0, Math.max(0, limit)).map(({ run }) => {
    run.status = 'claimed';
    run.podId = podId;
    run.startedAt = new Date(nowMs);
    run.notBefore = null;
    run.attempts = 0;
    run.modelCalledAt = null;
    return adoptedRun(tables.jobs.get(run.jobId) as FakeJob, run);
  });
}

/** scheduler_adopt: claimed runs taken over from the pods named, while still theirs. */
export function adopt(
  tables: Tables,
  runs: readonly { runId: string; fromPodId: string }[],
  podId: string,
): AdoptedRun[] {
  const adopted: AdoptedRun[] = [];
  for (const { runId, fromPodId } of runs) {
    const run = tables.runs.get(runId);
    const job = run && tables.jobs.get(run.jobId);
    if (!run || !job || run.status !== 'claimed' || run.podId !== fromPodId) continue;
    run.podId = podId;
    adopted.push(adoptedRun(job, run));
  }
  return adopted;
}
