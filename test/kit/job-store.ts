// The whole JobStore port in memory: what migrations/functions/ do in PostgreSQL (the run
// statements in claims.ts and outcomes.ts), with a slow or failing database on demand.
// test/contract/job-store.contract.ts runs the same cases on this and on PostgreSQL.
import type { DueKey, StoredJob } from '../../src/domain/job.js';
import type {
  ActiveRun,
  AdoptedRun,
  AttemptRecord,
  RunHistoryUpkeep,
  RunOrigin,
  RunOutcome,
} from '../../src/domain/run.js';
import type { ErrorKind } from '../../src/domain/vocabulary.js';
import type {
  ClaimAnswer,
  JobStore,
  PlanDecider,
  RecordAnswer,
  WaitingClaimAnswer,
} from '../../src/scheduler/ports.js';
import type { Clock } from '../../src/services/clock.js';
import { adopt, claim, claimWaiting, takeQueued } from './claims.js';
import {
  fail,
  failStale,
  finish,
  markSent,
  noteProgress,
  olderInFlight,
  requeue,
  startWaiting,
  unsend,
} from './outcomes.js';
import { maintainPartitions, migratedPartitions } from './history.js';
import { advanceJob, dueJobs, planJobs } from './schedules.js';
import {
  inFlight,
  jobRow,
  storedJob,
  type FakeJob,
  type FakeRun,
  type JobFields,
  type Tables,
} from './rows.js';

export type JobStoreMethod = keyof JobStore;

/** What POST /v1/runs/{id}/cancel and cancel_other send on hermesx_run_cancels. */
export type CancelListener = (jobId: string, runId: string, why: string) => void;

const JOB_STORE_METHODS: readonly JobStoreMethod[] = [
  'loadJobs',
  'dueJobs',
  'planJobs',
  'advanceJob',
  'claimRun',
  'markSent',
  'noteProgress',
  'finishRun',
  'failRuns',
  'takeQueuedRuns',
  'requeueRuns',
  'unsendRuns',
  'activeRuns',
  'adoptRuns',
  'cleanupStaleRuns',
  'claimWaiting',
  'cancelOlderRuns',
  'startWaiting',
  'maintainRunHistory',
  'missedTriggers',
  'cancelsRequested',
];

export class FakeJobStore implements JobStore, Tables {
  readonly jobs = new Map<string, FakeJob>();
  readonly runs = new Map<string, FakeRun>();
  readonly tenantCaps = new Map<string, number | null>();
  /** The day partitions of cron_job_runs (UTC day numbers) maintainRunHistory keeps. */
  readonly partitions = new Set<number>();
  /** Who hears cancel requests (each pod of a World). */
  readonly cancelListeners: CancelListener[] = [];
  /** Database down: every call rejects. */
  down = false;
  /** Only these calls reject (a partial failure). */
  readonly failing = new Set<JobStoreMethod>();
  /** Fake-clock latency of every call (a slow database). */
  latencyMs = 0;
  /** Extra fake-clock latency of some calls only. */
  readonly methodLatencyMs: Partial<Record<JobStoreMethod, number>> = {};
  readonly calls = Object.fromEntries(JOB_STORE_METHODS.map((m) => [m, 0])) as Record<
    JobStoreMethod,
    number
  >;

  constructor(private readonly clock: Clock) {
    for (const day of migratedPartitions(clock.now())) this.partitions.add(day);
  }

  // --- test-side writes (what the API or plain SQL would do) ---

  addJob(fields: JobFields): FakeJob {
    const job = jobRow(fields, this.clock.now());
    this.jobs.set(job.id, job);
    return job;
  }

  /**
   * An UPDATE through the cron_jobs_track_definition trigger: keeps updatedAt and dueFrom true,
   * and a schedule, zone or re-enabling change that does not write next_run_at clears it.
   */
  updateJob(
    id: string,
    patch: Partial<
      Pick<FakeJob, 'name' | 'schedule' | 'timezone' | 'prompt' | 'enabled' | 'overlap' | 'retry'>
    >,
  ): FakeJob {
    const old = this.job(id);
    const next: FakeJob = { ...old, ...patch };
    const nowMs = this.clock.now();
    if (
      next.schedule !== old.schedule ||
      next.timezone !== old.timezone ||
      (next.enabled && !old.enabled)
    ) {
      next.dueFrom = new Date(nowMs);
      next.nextRunAt = null;
    }
    const fields = ['name', 'schedule', 'timezone', 'prompt', 'enabled', 'overlap'] as const;
    if (fields.some((f) => next[f] !== old[f]) || next.retry !== old.retry) {
      // now() differs between transactions in PostgreSQL; keep it strictly increasing here too.
      next.updatedAt = new Date(Math.max(nowMs, old.updatedAt.getTime() + 1));
    }
    this.jobs.set(id, next);
    return next;
  }

  deleteJob(id: string): void {
    this.jobs.delete(id);
    for (const run of [...this.runs.values()]) if (run.jobId === id) this.runs.delete(run.id);
  }

  job(id: string): FakeJob {
    const job = this.jobs.get(id);
    if (!job) throw new Error(`no job ${id}`);
    return job;
  }

  /** Runs of a job, by scheduled time. */
  runsOf(jobId: string): FakeRun[] {
    return [...this.runs.values()]
      .filter((run) => run.jobId === jobId)
      .sort((a, b) => a.scheduledAt.getTime() - b.scheduledAt.getTime());
  }

  // --- JobStore: the jobs ---

  async loadJobs(ids: readonly string[]): Promise<StoredJob[]> {
    await this.enter('loadJobs');
    const wanted = new Set(ids);
    return [...this.jobs.values()]
      .filter((job) => job.enabled && wanted.has(job.id))
      .map(storedJob);
  }

  async dueJobs(untilMs: number, after: DueKey | null, limit: number): Promise<StoredJob[]> {
    await this.enter('dueJobs');
    return dueJobs(this, untilMs, after, limit);
  }

  async planJobs(
    ids: readonly string[] | null,
    limit: number,
    since: Date,
    decide: PlanDecider,
  ): Promise<number> {
    await this.enter('planJobs');
    return planJobs(this, ids, limit, since, decide);
  }

  async advanceJob(jobId: string, pastAt: Date, nextRunAt: Date | null): Promise<void> {
    await this.enter('advanceJob');
    advanceJob(this, jobId, pastAt, nextRunAt);
  }

  // --- JobStore: the runs (claims.ts, outcomes.ts) ---

  async claimRun(
    jobId: string,
    scheduledAt: Date,
    podId: string,
    nextRunAt: Date | null = null,
    sendAs?: RunOrigin,
  ): Promise<ClaimAnswer> {
    await this.enter('claimRun');
    return claim(this, this.clock.now(), { jobId, scheduledAt, podId, nextRunAt, sendAs });
  }

  async claimWaiting(
    jobId: string,
    scheduledAt: Date,
    podId: string,
    nextRunAt: Date | null,
  ): Promise<WaitingClaimAnswer> {
    await this.enter('claimWaiting');
    return claimWaiting(this, this.clock.now(), { jobId, scheduledAt, podId, nextRunAt });
  }

  async takeQueuedRuns(podId: string, limit: number): Promise<AdoptedRun[]> {
    await this.enter('takeQueuedRuns');
    return takeQueued(this, this.clock.now(), podId, limit);
  }

  async adoptRuns(
    runs: readonly { runId: string; fromPodId: string }[],
    podId: string,
  ): Promise<AdoptedRun[]> {
    await this.enter('adoptRuns');
    return adopt(this, runs, podId);
  }

  async markSent(runId: string, podId: string, origin?: RunOrigin): Promise<boolean> {
    await this.enter('markSent');
    return markSent(this, this.clock.now(), runId, podId, origin);
  }

  async noteProgress(
    runId: string,
    podId: string,
    attempts: number,
    log: AttemptRecord[],
  ): Promise<void> {
    await this.enter('noteProgress');
    noteProgress(this, runId, podId, attempts, log);
  }

  async startWaiting(runId: string, scheduledAt: Date, podId: string): Promise<boolean> {
    await this.enter('startWaiting');
    return startWaiting(this, this.clock.now(), runId, scheduledAt, podId);
  }

  async finishRun(
    runId: string,
    outcome: RunOutcome,
    podId: string,
    scheduledAt?: Date,
  ): Promise<RecordAnswer> {
    await this.enter('finishRun');
    return finish(this, this.clock.now(), { runId, outcome, podId, scheduledAt });
  }

  async failRuns(
    runIds: readonly string[],
    reason: string,
    kind: ErrorKind,
  ): Promise<{ runId: string; jobId: string; requeued: boolean }[]> {
    await this.enter('failRuns');
    return fail(this, this.clock.now(), runIds, reason, kind);
  }

  async requeueRuns(runIds: readonly string[], podId: string, delayMs: number): Promise<string[]> {
    await this.enter('requeueRuns');
    return requeue(this, this.clock.now(), runIds, podId, delayMs);
  }

  async unsendRuns(runIds: readonly string[], podId: string): Promise<string[]> {
    await this.enter('unsendRuns');
    return unsend(this, runIds, podId);
  }

  async cleanupStaleRuns(lockTtlMs: number): Promise<number> {
    await this.enter('cleanupStaleRuns');
    return failStale(this, this.clock.now(), lockTtlMs);
  }

  async cancelOlderRuns(jobId: string, scheduledAt: Date): Promise<string[]> {
    await this.enter('cancelOlderRuns');
    const runIds = olderInFlight(this, jobId, scheduledAt);
    // The NOTIFY goes out once the statement has committed: after this call answers.
    queueMicrotask(() => {
      for (const runId of runIds) {
        for (const listener of this.cancelListeners) listener(jobId, runId, 'overlap');
      }
    });
    return runIds;
  }

  async activeRuns(): Promise<ActiveRun[]> {
    await this.enter('activeRuns');
    return [...this.runs.values()].filter(inFlight).map((run) => ({
      runId: run.id,
      jobId: run.jobId,
      podId: run.podId as string,
      status: run.status as 'claimed' | 'running',
    }));
  }

  async maintainRunHistory(daysAhead: number): Promise<RunHistoryUpkeep> {
    await this.enter('maintainRunHistory');
    return maintainPartitions(this, this.partitions, this.clock.now(), daysAhead);
  }

  async missedTriggers(sinceMs: number): Promise<{ jobId: string; scheduledAtMs: number }[]> {
    await this.enter('missedTriggers');
    return [...this.jobs.values()]
      .filter(
        (job) => job.enabled && job.lastTriggeredAt && job.lastTriggeredAt.getTime() >= sinceMs,
      )
      .filter(
        (job) =>
          !this.runsOf(job.id).some(
            (run) => run.scheduledAt.getTime() === job.lastTriggeredAt?.getTime(),
          ),
      )
      .map((job) => ({ jobId: job.id, scheduledAtMs: (job.lastTriggeredAt as Date).getTime() }));
  }

  async cancelsRequested(runIds: readonly string[]): Promise<{ runId: string; jobId: string }[]> {
    await this.enter('cancelsRequested');
    return runIds.flatMap((id) => {
      const run = this.runs.get(id);
      return run && inFlight(run) && run.cancelRequestedAt ? [{ runId: id, jobId: run.jobId }] : [];
    });
  }

  private async enter(method: JobStoreMethod): Promise<void> {
    this.calls[method] += 1;
    const latencyMs = this.latencyMs + (this.methodLatencyMs[method] ?? 0);
    if (latencyMs > 0) {
      await new Promise<void>((resolve) => this.clock.setTimeout(resolve, latencyMs));
    }
    if (this.down || this.failing.has(method)) {
      throw new Error(`connect ECONNREFUSED (fake database down during ${method})`);
    }
  }
}
