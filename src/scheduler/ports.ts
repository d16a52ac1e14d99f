// What the scheduler core needs from the outside world. PostgreSQL, Redis and the agent implement
// these in production; unit tests use the in-memory test kit (test/kit/) and its fake clock, and
// one contract suite per store (test/contract/) runs against both. Every method is required: the
// core never asks whether a store can do something.
import type { DueKey, StoredJob, UnplannedJob } from '../domain/job.js';
import type {
  ActiveRun,
  AdoptedRun,
  AgentContextRef,
  AttemptRecord,
  ClaimedRun,
  RunHistoryUpkeep,
  RunOrigin,
  RunOutcome,
  UsageCall,
} from '../domain/run.js';
import type { ErrorKind, LockState } from '../domain/vocabulary.js';

/**
 * The planning sweep's decision for each job it took, in order: its next occurrence to run
 * (possibly in the past: a missed one to catch up), or null when it has none (an invalid
 * schedule, or no occurrence ever again), which parks the job until its definition changes.
 */
export type PlanDecider = (jobs: readonly UnplannedJob[]) => (Date | null)[];

/** What recording a run's outcome did: see JobStore.finishRun. */
export type RecordAnswer = 'recorded' | 'requeued' | false;

/**
 * A claim's answer: the run; or "capped" (the tenant is at its max_concurrent_runs: wait and try
 * again); or "taken" (already claimed, or the job is gone, disabled or still in flight).
 */
export type ClaimAnswer =
  { kind: 'claimed'; run: ClaimedRun } | { kind: 'capped' } | { kind: 'taken' };

/** A waiting claim's answer: also "overlap" when another occurrence of the job already waits. */
export type WaitingClaimAnswer = ClaimAnswer | { kind: 'overlap' };

export interface JobStore {
  /** Those of `ids` that are enabled jobs of live tenants (missing ones are gone or disabled). */
  loadJobs(ids: readonly string[]): Promise<StoredJob[]>;
  /**
   * Enabled jobs of live tenants with next_run_at at or before untilMs, in (next_run_at, id)
   * order after `after`, at most `limit`: one page of the due window.
   */
  dueJobs(untilMs: number, after: DueKey | null, limit: number): Promise<StoredJob[]>;
  /**
   * Plans up to `limit` enabled jobs whose next_run_at is NULL (only those of `ids`, if given):
   * takes them (rows other pods are planning are skipped), asks `decide`, writes the answers, in
   * one transaction. `lastScheduledAt` counts only claims since `since` (the catch-up window's
   * start: older ones cannot change the plan). Returns how many jobs it planned.
   */
  planJobs(
    ids: readonly string[] | null,
    limit: number,
    since: Date,
    decide: PlanDecider,
  ): Promise<number>;
  /**
   * Claims an occurrence. When claimed, the job's next_run_at moves to `nextRunAt` in the same
   * transaction (if given, and if it was not already past the occurrence). With `sendAs` (the
   * pod holds a slot and sends at once) the run is claimed straight into 'running' with that
   * origin, as markSent would leave it, and comes back `sent`.
   */
  claimRun(
    jobId: string,
    scheduledAt: Date,
    podId: string,
    nextRunAt?: Date | null,
    sendAs?: RunOrigin,
  ): Promise<ClaimAnswer>;
  /**
   * Occurrences up to `pastAt` were skipped for good (missed outside the catch-up window): moves
   * next_run_at to `nextRunAt`, unless it already moved past `pastAt`.
   */
  advanceJob(jobId: string, pastAt: Date, nextRunAt: Date | null): Promise<void>;
  /**
   * claimed -> running before the model request leaves; false when the run is no longer podId's.
   * `scheduledAt`, the run's nominal time, lets the store look in that day's history only.
   */
  markSent(runId: string, podId: string, origin?: RunOrigin, scheduledAt?: Date): Promise<boolean>;
  /** A running run sends another model request: its attempts so far, while it runs. */
  noteProgress(runId: string, podId: string, attempts: number, log: AttemptRecord[]): Promise<void>;
  /**
   * Records the outcome and updates the job in one transaction: 'requeued' when the job's retry
   * policy sent the failed attempt back to the queue (the database decides, migration 250);
   * false if the run was no longer podId's. `scheduledAt`, the run's nominal time, lets the
   * store look in that day's history only (without it: every day's).
   */
  finishRun(
    runId: string,
    outcome: RunOutcome,
    podId: string,
    scheduledAt?: Date,
  ): Promise<RecordAnswer>;
  /**
   * Fails runs in flight; a run whose job retries it goes back to the queue instead
   * (`requeued`: the database decides, migration 250).
   */
  failRuns(
    runIds: readonly string[],
    reason: string,
    kind: ErrorKind,
  ): Promise<{ runId: string; jobId: string; requeued: boolean }[]>;
  /**
   * Takes up to `limit` due queued runs (retries, runs retried by hand, backfills) and makes
   * them claimed by podId.
   */
  takeQueuedRuns(podId: string, limit: number): Promise<AdoptedRun[]>;
  /** Hands claimed runs of podId back to the queue, to start after delayMs; returns those. */
  requeueRuns(runIds: readonly string[], podId: string, delayMs: number): Promise<string[]>;
  /**
   * Runs of podId claimed straight into 'running' whose request never left (the pod stops while
   * they wait for a model slot): back to 'claimed', for another pod to adopt; returns those.
   */
  unsendRuns(runIds: readonly string[], podId: string): Promise<string[]>;
  activeRuns(): Promise<ActiveRun[]>;
  /** Takes claimed runs over from the pods named (only while still theirs and claimed). */
  adoptRuns(
    runs: readonly { runId: string; fromPodId: string }[],
    podId: string,
  ): Promise<AdoptedRun[]>;
  cleanupStaleRuns(lockTtlMs: number): Promise<number>;
  /**
   * overlap buffer_one / cancel_other: claims an occurrence while the job's previous run still
   * holds the lock, to start once it is free (at most one waits per job).
   */
  claimWaiting(
    jobId: string,
    scheduledAt: Date,
    podId: string,
    nextRunAt: Date | null,
  ): Promise<WaitingClaimAnswer>;
  /** overlap cancel_other: asks whichever pods run earlier occurrences of the job to stop them. */
  cancelOlderRuns(jobId: string, scheduledAt: Date): Promise<string[]>;
  /** A waiting run took the lock: it starts now (false: no longer this pod's, do not run it). */
  startWaiting(runId: string, scheduledAt: Date, podId: string): Promise<boolean>;
  /**
   * Run history upkeep (one pod at a time): creates the daily partitions of the next
   * `daysAhead` days, drops those past the longest retention, and deletes at most
   * `deleteLimit` expired rows of tenants keeping less.
   */
  maintainRunHistory(daysAhead: number, deleteLimit: number): Promise<RunHistoryUpkeep>;
  /**
   * "Run now" requests made at or after sinceMs that no run answers yet (enabled jobs of live
   * tenants): the job and the request's nominal time. Read after a lost notification may have
   * hidden them.
   */
  missedTriggers(sinceMs: number): Promise<{ jobId: string; scheduledAtMs: number }[]>;
  /** Those of `runIds` still in flight that were asked to stop (POST /v1/runs/{id}/cancel). */
  cancelsRequested(runIds: readonly string[]): Promise<{ runId: string; jobId: string }[]>;
}

/** Who holds a job's lock, as read when an acquire fails. */
export interface LockHolder {
  state: LockState;
  scheduledAtMs: number;
  podId: string;
}

export type LockAttempt =
  { acquired: true; token: string } | { acquired: false; holder: LockHolder | null };

export interface LockOptions {
  /**
   * The key's name when it is not the job's (overlap allow_all locks each occurrence apart).
   */
  key?: string;
  /** A "done" marker of any occurrence is free (a waiting run already holds its claim). */
  overDone?: boolean;
}

export interface LockStore {
  acquire(
    jobId: string,
    scheduledAtMs: number,
    ttlMs: number,
    options?: LockOptions,
  ): Promise<LockAttempt>;
  /**
   * Compare-and-set on the token. With doneAtMs the key stays as a short-lived "done" marker, so
   * pods that come late to that occurrence skip it without asking the database; without, it goes.
   */
  release(jobId: string, token: string, doneAtMs: number | null, key?: string): Promise<void>;
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

/** Which run an answer belongs to (the result store's keys start with the tenant). */
export interface RunIds {
  tenantId: string;
  jobId: string;
  runId: string;
}

/** Where a long answer was put, and what the run row holds of it. */
export interface PlacedResult {
  /** What goes into the `result` column: the whole answer, or its short form. */
  column: string;
  /** Set when the whole answer is in the result store. */
  objectKey: string | null;
  /** Size of the whole answer in UTF-8 bytes. */
  bytes: number;
}

/** A long answer not written: its tenant's stored answers would pass the tenant's quota. */
export interface RefusedResult {
  refused: 'quota';
  /** Size of the whole answer in UTF-8 bytes. */
  bytes: number;
  /** What the tenant's runs already hold in the result store, and its quota (bytes). */
  usedBytes: number;
  quotaBytes: number;
}

/** Holds answers over RESULT_INLINE_BYTES (the adapter: src/storage/run-results.ts). */
export interface ResultStore {
  /**
   * Puts a long answer where it will live, resolving once it is durable, and says what the row
   * holds; or refuses it, unwritten, when it would take its tenant past its quota of stored
   * bytes. Throws the store's error: no run may point at an object not written.
   */
  place(ids: RunIds, text: string): Promise<PlacedResult | RefusedResult>;
  /** Removes one placed answer whose run was not recorded. */
  remove(objectKey: string): Promise<void>;
  /** Removes every answer of a purged job. */
  removeJob(tenantId: string, jobId: string): Promise<void>;
}

export interface RunRequest {
  jobId: string;
  tenantId: string;
  name: string;
  prompt: string;
  timezone: string;
  scheduledAt: Date;
  /** The job's model; absent: the default. */
  model?: string | undefined;
  /** The run's id (its tool calls are audited under it). */
  runId?: string | undefined;
  agent?: AgentContextRef | undefined;
}

export interface RunContext {
  /** Fires at the exec timeout and on shutdown. */
  signal: AbortSignal;
  /** When the exec timeout fires (this clock's ms): retries must not be planned past it. */
  deadlineMs: number;
  /**
   * Awaited before every model request leaves the process. The first call records that the run
   * may reach the model; it rejects when the run is no longer this pod's, and then nothing may
   * be sent.
   */
  beforeSend(): Promise<void>;
  /** Called when a model request failed in a way that is sent again (429, 503, connect). */
  onRetry?(cause: 'throttled' | 'overloaded' | 'connect'): void;
  /** The runner tells what it sends and what answered, as it learns it (the run detail). */
  report?(detail: RunReplyDetail): void;
}

/** What the runner saw of its model calls, for the run detail (each part when known). */
export interface RunReplyDetail {
  promptSent?: { role: string; content: string }[];
  model?: string | null;
  /** The model the next request goes to (the attempt log names it). */
  askModel?: string;
  /** The request just made failed and the call goes on to the next model, for this reason. */
  fallback?: string;
  usage?: { promptTokens: number; completionTokens: number } | null;
  /** Each model call's usage and cost, in order (the usage ledger). */
  calls?: UsageCall[];
  /** A period budget refused a call: when it turns (ISO 8601). */
  budgetResetsAt?: string | null;
}

/** How a runner ended: the reply, or a failure with its kind. */
export type RunReply =
  { ok: true; text: string; output?: unknown } | { ok: false; errorKind: ErrorKind; error: string };

/** Runs a job's prompt (through the agent in production). A throw counts as an agent_error. */
export type AgentRunner = (request: RunRequest, context: RunContext) => Promise<RunReply>;
