// The words for an occurrence's life cycle that the code, the logs, the metrics and the API
// share, one doc comment per value. life-cycle.ts re-exports them with the rules they feed; the
// names and values are public (log fields, metric labels, API enums, CHECK constraints). The
// lists the SQL holds as literals (CHECKs, trigger and function bodies) are named here too, and
// test/unit/vocabulary-schema.test.ts compares each with test/schema.sql.

/** docs/scheduler.md, "Overlap policies": what an occurrence does while an earlier one runs. */
export const OVERLAP_POLICIES = ['skip', 'buffer_one', 'allow_all', 'cancel_other'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** How an occurrence reaches a pod: fired (nothing taken yet) or with its run claimed already. */
export const OCCURRENCE_KINDS = {
  /** From the timeline, at its nominal time (plus the job's jitter). */
  scheduled: 'fired',
  /** Missed while out of service; the latest one within the catch-up window runs once. */
  catchup: 'fired',
  /** "Run now". */
  manual: 'fired',
  /** Claimed by a pod that is gone before it sent anything, now this pod's to run. */
  adopted: 'claimed',
  /** A run that waited in the database (a retry, a backfilled occurrence), taken by this pod. */
  queued: 'claimed',
} as const;
export type OccurrenceKind = keyof typeof OCCURRENCE_KINDS;

/**
 * Why an occurrence did not run on this pod, and what that leaves: `settled` (it ran, someone
 * else has it, or it is given up and counted) or `retried` (nothing is settled: the dispatcher,
 * another pod, recovery or the next read of the due window tries it again). Only a settled
 * occurrence leaves its lock as a "done" marker.
 */
export const SKIP_REASONS = {
  /** The job is no longer loaded (deleted, disabled, schedule now invalid). */
  not_loaded: 'settled',
  /** Another pod holds the job's lock (running it, or done with it); a queued run is handed back. */
  lock_held: 'settled',
  /** Claimed already (by any pod), or the job is gone, disabled or still in flight. */
  taken: 'settled',
  /** The tenant is at its max_concurrent_runs; the occurrence waits and is tried again. */
  capped: 'retried',
  /** The previous run of the job is still in flight on this pod. */
  overlap: 'settled',
  /** Waited for a slot until overtaken by the job's next occurrence or the catch-up window. */
  expired: 'settled',
  /** Another owner's, passed over while this pod was full: most likely its owner ran it. */
  passed_over: 'settled',
  /** Claimed, but handed back before any model request left (shutdown, or adopted elsewhere). */
  handed_back: 'retried',
  /** Redis failed: the scheduler pauses, and decides again from the database once it is back. */
  redis_error: 'retried',
  /** PostgreSQL failed: next_run_at still names the occurrence, so it is read again. */
  db_error: 'retried',
} as const;
export type SkipReason = keyof typeof SKIP_REASONS;

/** The skip ends the occurrence for good (see SKIP_REASONS). */
export const settles = (reason: SkipReason): boolean => SKIP_REASONS[reason] === 'settled';

/** Why a run failed, for machines (the `error` text is for people); the CHECK of error_kind. */
export const ERROR_KINDS = [
  /** SCHEDULER_EXEC_TIMEOUT or the job's timeout passed, or the model did not answer in time. */
  'timeout',
  /** The pod running it is gone (or restarted under the same id). */
  'pod_lost',
  /** SIGTERM, and the grace ran out. */
  'shutdown',
  /** 429/503 until the attempts or the deadline ran out. */
  'model_throttled',
  /** Another non-2xx answer of the model server. */
  'model_error',
  /** The connection to the model server failed (and could not be retried in time). */
  'model_unreachable',
  /** Invalid JSON, no choices, or too large. */
  'bad_response',
  /** The agent failed (an unexpected error). */
  'agent_error',
  /** In flight longer than the lock TTL, or a waiting run whose earlier run kept the lock. */
  'lock_lost',
  /** This pod ran it but could not record the outcome (database unavailable). */
  'not_recorded',
  /** The answer was over 8 KiB and the object store refused it (short form kept). */
  'result_not_stored',
  /** A bound of the agent or a tool was reached. */
  'tool_limit',
  /** Stopped by request (POST /v1/runs/{id}/cancel, or cancel_other) on the pod holding it. */
  'cancelled',
  /** The answer was over 8 KiB and its tenant's quota of stored result bytes was full (short form kept). */
  'result_quota',
  /** The job's output_schema was not met, after one repair turn that named the errors. */
  'invalid_output',
  /** A budget the run falls under was spent: no model request was sent. */
  'budget_exhausted',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** cron_job_runs.status: the CHECK constraint of migrations/250_queued_runs.sql. */
export const RUN_STATUSES = [
  /** Waiting in the database for any pod, from not_before on (a retry, a backfill). */
  'queued',
  /** A pod's; no model request has left it yet (so another pod may adopt it). */
  'claimed',
  /** A model request may have left: never run again, only failed (or requeued by its retry). */
  'running',
  /** Recorded with the answer. */
  'success',
  /** Recorded with an error_kind. */
  'failed',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * The run statuses of a run in flight: a pod's, not settled. SQL writes this list as
 * `IN ('claimed', 'running')` (the in-flight triggers and table of migration 313, the claim's caps,
 * recovery, the partial indexes of migration 111): test/unit/life-cycle.test.ts finds every such
 * list in test/schema.sql and compares it with this one.
 */
export const IN_FLIGHT_STATUSES = ['claimed', 'running'] as const satisfies readonly RunStatus[];
export type InFlightStatus = (typeof IN_FLIGHT_STATUSES)[number];

/** The run statuses that are a run's outcome: the outbox triggers' `IN ('success', 'failed')`. */
export const SETTLED_STATUSES = ['success', 'failed'] as const satisfies readonly RunStatus[];

/**
 * The error kinds safe to run again: the retry decision (migrations/functions/
 * cron_job_runs_retry_attempt.sql) sends a failed attempt of one of these back to `queued` when
 * its job has a retry policy with attempts left (docs/scheduler.md, "Queued runs"). A failure of
 * any other kind is the run's outcome at once.
 */
export const RETRYABLE_ERROR_KINDS = [
  /** The model server could not be reached. */
  'model_unreachable',
  /** 429/503: the in-run retries are spent, a later attempt may find room. */
  'model_throttled',
  /** Another non-2xx answer of the model server. */
  'model_error',
  /** The run or the model server took too long. */
  'timeout',
  /** The pod running it is gone; its recovery fails the run, the retry runs it again. */
  'pod_lost',
] as const satisfies readonly ErrorKind[];

/** Who paused a job (cron_jobs.paused_by, its CHECK of migration 240). */
export const PAUSED_BY = [
  /** enabled: false from the API or the agent's tool. */
  'user',
  /** A limit of the job stopped it (cron_jobs_apply_run_limits): stopped_by says which. */
  'system',
] as const;
export type PausedBy = (typeof PAUSED_BY)[number];

/**
 * Which limit stopped a job (cron_jobs.stopped_by, its CHECK of migration 240), written with
 * paused_by `system` by migrations/functions/cron_jobs_apply_run_limits.sql. ends_at stops a job
 * too, but is read from the job itself (the API shows stopped_by `ends_at`; the row holds null).
 */
export const STOPPED_BY = [
  /** run_count reached max_runs. */
  'max_runs',
  /** pause_after_failures failed occurrences in a row. */
  'pause_after_failures',
  /** A budget the job falls under was spent (docs/usage.md). */
  'budget',
] as const;
export type StoppedBy = (typeof STOPPED_BY)[number];

/**
 * The event types a webhook endpoint can subscribe to (webhooks/events.ts; the CHECKs of
 * webhook_endpoints.events and webhook_deliveries.event_type, migration 251).
 */
export const EVENT_TYPES = [
  /** A run recorded success. */
  'run.succeeded',
  /** A run recorded failed (its final attempt). */
  'run.failed',
  /** A job paused, by itself (pause_after_failures, max_runs) or by a user. */
  'job.paused',
  /** A budget passed 80 % of its period's amount (once per budget and period). */
  'budget.warning',
  /** A notification channel was disabled after failing for too long. */
  'channel.disabled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The state in a Redis lock value ("<state>|<nominal ms>|<token>|<pod id>"). */
export const LOCK_STATES = [
  /** The occurrence runs (or is being claimed) on the pod named. */
  'run',
  /** The occurrence is settled: later copies skip it, a later occurrence takes the lock. */
  'done',
] as const;
export type LockState = (typeof LOCK_STATES)[number];

/** A Redis lock value; the pod id goes last because it is free text. */
export const lockValueOf = (
  state: LockState,
  scheduledAtMs: number,
  token: string,
  podId: string,
): string => `${state}|${scheduledAtMs}|${token}|${podId}`;

type Row = RunStatus | null;
type Held = LockState | null;

/**
 * Where an occurrence is, with the run row it may have (null: none yet) and its own lock as this
 * pod holds or left it (null: none). The pod's stages start at "started".
 */
export const STAGES = {
  /** Known to a pod (timeline.ts), not yet fired; next_run_at names it. */
  planned: { rows: [null], locks: [null] },
  /** A run waiting in PostgreSQL for any pod (scheduler_take_queued makes it a pod's). */
  queued: { rows: ['queued'], locks: [null] },
  /** Another owner's, in this pod's take-over list (steal-lists.ts) until this pod has room. */
  stealable: { rows: [null], locks: [null] },
  /** In the dispatcher's fair queue for a slot; adopted and queued runs are claimed already. */
  waiting: { rows: [null, 'claimed'], locks: [null] },
  /** Holds a slot; tries the lock (or, claimed already, sends). */
  started: { rows: [null, 'claimed'], locks: [null] },
  /** Holds the lock; its claim (straight into running) is on its way. */
  locked: { rows: [null], locks: ['run'] },
  /** Claimed ahead of the lock (buffer_one, cancel_other): waits for the earlier run to let go. */
  awaiting_lock: { rows: ['claimed'], locks: [null] },
  /** The agent is called; a claimed run becomes running just before its first request leaves. */
  running: { rows: ['claimed', 'running'], locks: ['run', null] },
  /** The agent answered: its outcome is written. */
  recording: { rows: ['running'], locks: ['run', null] },
  /** Nothing more happens on this pod (see `end`). */
  ended: {
    rows: [null, 'queued', 'claimed', 'running', 'success', 'failed'],
    locks: ['done', null],
  },
} as const satisfies Record<string, { rows: readonly Row[]; locks: readonly Held[] }>;
export type Stage = keyof typeof STAGES;
