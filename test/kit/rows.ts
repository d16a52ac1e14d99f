// The rows of the in-memory database (what cron_jobs and cron_job_runs hold that the scheduler's
// statements read or write), and builders that fill them as the tables' defaults would.
import { randomUUID } from 'node:crypto';
import type { StoredJob } from '../../src/domain/job.js';
import type { AttemptRecord, RunOrigin } from '../../src/domain/run.js';
import type { ErrorKind, OverlapPolicy } from '../../src/domain/vocabulary.js';

/** next_run_at 'infinity': a job the planning sweep parked (no occurrence, invalid schedule). */
export const PARKED = new Date(8.64e15);

export const DEFAULT_TENANT = '00000000-0000-0000-0000-000000000001';

/** A job's retry policy (migration 250); absent on the job: a failed attempt is its outcome. */
export interface RetryPolicy {
  /** Counts the first attempt (1: no retry). */
  maxAttempts: number;
  /** The first backoff; it doubles from one attempt to the next, capped at an hour. */
  backoffMs: number;
  /** Retried even when the attempt made a tool call with side effects. */
  afterSideEffects?: boolean;
}

export interface FakeJob {
  id: string;
  tenantId: string;
  name: string;
  schedule: string;
  timezone: string;
  prompt: string;
  enabled: boolean;
  overlap: OverlapPolicy;
  retry: RetryPolicy | null;
  timeoutMs: number | null;
  model: string | null;
  dueFrom: Date;
  createdAt: Date;
  updatedAt: Date;
  nextRunAt: Date | null;
  lastRunAt: Date | null;
  lastRunSuccess: boolean | null;
  lastRunError: string | null;
  lastRunErrorKind: ErrorKind | null;
  runCount: number;
  /** A "run now" request's nominal time (cron_jobs.last_triggered_at). */
  lastTriggeredAt?: Date;
}

/** An earlier attempt of a retried occurrence, as the retry trigger keeps it. */
export interface PreviousAttempt {
  attempt: number;
  errorKind: ErrorKind | null;
  error: string | null;
  startedAt: Date;
  finishedAt: Date;
  durationMs: number;
  podId: string | null;
  modelRequests: number;
}

export type FakeRunStatus = 'queued' | 'claimed' | 'running' | 'success' | 'failed';

export interface FakeRun {
  id: string;
  jobId: string;
  tenantId: string;
  scheduledAt: Date;
  status: FakeRunStatus;
  /** Null only while queued: a queued run is no pod's. */
  podId: string | null;
  origin: RunOrigin;
  startedAt: Date;
  finishedAt: Date | null;
  modelCalledAt: Date | null;
  result: string | null;
  error: string | null;
  errorKind: ErrorKind | null;
  /** Model requests of the current attempt. */
  attempts: number;
  /** Which attempt of the occurrence this is (the first is 1). */
  attempt: number;
  /** A queued run starts no earlier than this. */
  notBefore: Date | null;
  previousAttempts: PreviousAttempt[];
  attemptLog: AttemptRecord[] | null;
  /** The run made a tool call that may have changed something (cron_run_tool_calls). */
  sideEffects: boolean;
  durationMs: number | null;
  /** Someone asked to stop it (POST /v1/runs/{id}/cancel). */
  cancelRequestedAt?: Date;
}

export interface JobFields {
  schedule: string;
  prompt?: string;
  name?: string;
  timezone?: string;
  tenantId?: string;
  enabled?: boolean;
  id?: string;
  overlap?: OverlapPolicy;
  retry?: RetryPolicy | null;
  timeoutMs?: number | null;
  model?: string | null;
  /** As the API writes it; absent (NULL), the planning sweep plans it, as for plain SQL. */
  nextRunAt?: Date | null;
}

/** A cron_jobs row as an INSERT with these fields leaves it at `nowMs`. */
export function jobRow(fields: JobFields, nowMs: number): FakeJob {
  const now = new Date(nowMs);
  return {
    id: fields.id ?? randomUUID(),
    tenantId: fields.tenantId ?? DEFAULT_TENANT,
    name: fields.name ?? 'job',
    schedule: fields.schedule,
    timezone: fields.timezone ?? 'UTC',
    prompt: fields.prompt ?? 'say hello',
    enabled: fields.enabled ?? true,
    overlap: fields.overlap ?? 'skip',
    retry: fields.retry ?? null,
    timeoutMs: fields.timeoutMs ?? null,
    model: fields.model ?? null,
    dueFrom: now,
    createdAt: now,
    updatedAt: now,
    nextRunAt: fields.nextRunAt ?? null,
    lastRunAt: null,
    lastRunSuccess: null,
    lastRunError: null,
    lastRunErrorKind: null,
    runCount: 0,
  };
}

export interface RunFields {
  jobId: string;
  tenantId: string;
  scheduledAt: Date;
  podId: string | null;
  status?: FakeRunStatus;
  origin?: RunOrigin;
  attempts?: number;
  notBefore?: Date | null;
}

/** A cron_job_runs row as an INSERT with these fields leaves it at `nowMs`. */
export function runRow(fields: RunFields, nowMs: number): FakeRun {
  return {
    id: randomUUID(),
    jobId: fields.jobId,
    tenantId: fields.tenantId,
    scheduledAt: new Date(fields.scheduledAt),
    status: fields.status ?? 'claimed',
    podId: fields.podId,
    origin: fields.origin ?? 'scheduled',
    startedAt: new Date(nowMs),
    finishedAt: null,
    modelCalledAt: null,
    result: null,
    error: null,
    errorKind: null,
    attempts: fields.attempts ?? 0,
    attempt: 1,
    notBefore: fields.notBefore ?? null,
    previousAttempts: [],
    attemptLog: null,
    sideEffects: false,
    durationMs: null,
  };
}

/** What the scheduler reads of a job (as src/db/jobs.ts maps a row). */
export function storedJob(job: FakeJob): StoredJob {
  return {
    id: job.id,
    tenantId: job.tenantId,
    schedule: job.schedule,
    timezone: job.timezone,
    dueFrom: new Date(job.dueFrom),
    updatedAt: new Date(job.updatedAt),
    nextRunAt: job.nextRunAt === null ? null : new Date(job.nextRunAt),
    ...(job.overlap !== 'skip' ? { overlap: job.overlap } : {}),
  };
}

/** A run some pod holds (cron_job_runs_in_flight). */
export const inFlight = (run: FakeRun): boolean =>
  run.status === 'claimed' || run.status === 'running';

/** The in-memory database: the rows the statements of claims.ts and outcomes.ts work on. */
export interface Tables {
  readonly jobs: Map<string, FakeJob>;
  readonly runs: Map<string, FakeRun>;
  /** tenants.max_concurrent_runs by tenant (absent, null or 0: unlimited). */
  readonly tenantCaps: Map<string, number | null>;
}
