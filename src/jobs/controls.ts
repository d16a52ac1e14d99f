// The per-job run controls' rules (labels, pausing with a reason, limits, timeout, model, overlap): pure
// checks the job commands apply before writing, shared by the REST API and the cronjob tool.
import { formatDurationMs, parseDurationMs } from '../duration.js';
import { OVERLAP_POLICIES, type OverlapPolicy } from '../domain/vocabulary.js';
import type { JobRow, JobWrite } from './field-lists.js';
import type { PausedBy, StoppedBy } from './fields.js';

/** The controls as the job rules settle them, before they are written (controlColumns). */
export interface ControlFields {
  labels: Record<string, string>;
  pausedReason: string | null;
  pausedAt: Date | null;
  pausedBy: PausedBy | null;
  stoppedBy: StoppedBy | null;
  pauseAfterFailures: number | null;
  endsAt: Date | null;
  maxRuns: number | null;
  timeoutMs: number | null;
  model: string | null;
  jitterMs: number | null;
  overlap: OverlapPolicy;
  /** The retry policy (migration 250); null: a failed attempt is the run's outcome. */
  retry: RetryPolicy | null;
  /** A resumed job starts counting failures in a row from zero. */
  consecutiveFailures: number;
}

export interface RetryPolicy {
  /** Attempts in all, the first included (1 to 10). */
  maxAttempts: number;
  /** Before the second attempt; doubled for each next one, capped at an hour. */
  backoffMs: number;
  /** Retry even after a tool call with side effects. */
  afterSideEffects: boolean;
}

type ControlColumns = Pick<
  JobWrite,
  | 'labels'
  | 'paused_reason'
  | 'paused_at'
  | 'paused_by'
  | 'stopped_by'
  | 'pause_after_failures'
  | 'ends_at'
  | 'max_runs'
  | 'timeout_ms'
  | 'model'
  | 'consecutive_failures'
  | 'jitter_ms'
  | 'overlap'
  | 'retry_max_attempts'
  | 'retry_backoff_ms'
  | 'retry_after_side_effects'
>;

/** The controls' columns. */
export function controlColumns(c: ControlFields): ControlColumns {
  return {
    labels: c.labels,
    paused_reason: c.pausedReason,
    paused_at: c.pausedAt,
    paused_by: c.pausedBy,
    stopped_by: c.stoppedBy,
    pause_after_failures: c.pauseAfterFailures,
    ends_at: c.endsAt,
    // bigint: written as the number, read back as text.
    max_runs: c.maxRuns === null ? null : String(c.maxRuns),
    timeout_ms: c.timeoutMs,
    model: c.model,
    consecutive_failures: c.consecutiveFailures,
    jitter_ms: c.jitterMs,
    overlap: c.overlap,
    retry_max_attempts: c.retry?.maxAttempts ?? null,
    retry_backoff_ms: c.retry?.backoffMs ?? null,
    retry_after_side_effects: c.retry?.afterSideEffects ?? false,
  };
}

/** The controls as a request gives them: absent keeps the current value, null clears it. */
export interface JobControlsInput {
  labels?: Record<string, string> | undefined;
  paused_reason?: string | null | undefined;
  pause_after_failures?: number | null | undefined;
  ends_at?: string | null | undefined;
  max_runs?: number | null | undefined;
  timeout?: string | null | undefined;
  model?: string | null | undefined;
  jitter?: string | null | undefined;
  /** null: back to the default, skip. */
  overlap?: OverlapPolicy | null | undefined;
  retry?: RetryInput | null | undefined;
}

/** A retry policy as a request gives it. */
export interface RetryInput {
  max_attempts: number;
  backoff: string;
  after_side_effects?: boolean | undefined;
}

export interface ControlSettings {
  /** SCHEDULER_EXEC_TIMEOUT: a job's timeout may only be shorter. */
  execTimeoutMs: number;
  /** The models a job may name, the default first. */
  listModels: () => Promise<readonly string[]>;
}

export const DEFAULT_CONTROL_SETTINGS: ControlSettings = {
  execTimeoutMs: 5 * 60_000,
  listModels: () => Promise.resolve([]),
};

export const CONTROL_LIMITS = {
  labels: 16,
  labelKeyChars: 63,
  labelValueChars: 255,
  pausedReasonChars: 500,
  pauseAfterFailuresMax: 1000,
  maxRunsMax: 1_000_000_000,
  minTimeoutMs: 1000,
  maxJitterMs: 3_600_000,
  maxRetryAttempts: 10,
  minRetryBackoffMs: 1000,
  maxRetryBackoffMs: 3_600_000,
};

// Letters, digits and . _ / - (no "=": a filter is written key=value), starting with a letter or digit.
const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

/** A rule was broken: the caller turns it into a 400 (or 422 with `status`). */
export class ControlError extends Error {
  constructor(
    message: string,
    readonly status = 400,
    readonly code = 'validation_error',
  ) {
    super(message);
  }
}

export function checkLabelKey(key: string): void {
  if (key.length === 0 || key.length > CONTROL_LIMITS.labelKeyChars || !LABEL_KEY.test(key)) {
    throw new ControlError(
      `label key ${JSON.stringify(key.slice(0, 80))} must be 1 to ${CONTROL_LIMITS.labelKeyChars} letters, digits or . _ / -, starting with a letter or digit`,
    );
  }
}

function checkLabels(labels: Record<string, string>): Record<string, string> {
  const entries = Object.entries(labels);
  if (entries.length > CONTROL_LIMITS.labels) {
    throw new ControlError(`a job has at most ${CONTROL_LIMITS.labels} labels`);
  }
  for (const [key, value] of entries) {
    checkLabelKey(key);
    if (typeof value !== 'string' || value.length > CONTROL_LIMITS.labelValueChars) {
      throw new ControlError(
        `label ${key} must be a string of at most ${CONTROL_LIMITS.labelValueChars} characters`,
      );
    }
    if (value.includes('\u0000')) throw new ControlError(`label ${key} must not contain NUL`);
  }
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function checkTimeout(text: string, settings: ControlSettings): number {
  const ms = parseDurationMs(text);
  const limit = formatDurationMs(settings.execTimeoutMs);
  if (ms === null || ms < CONTROL_LIMITS.minTimeoutMs || ms > settings.execTimeoutMs) {
    throw new ControlError(
      `timeout must be a duration from 1s to SCHEDULER_EXEC_TIMEOUT (${limit}), such as 30s or 2m`,
    );
  }
  if (ms % 1000 !== 0) throw new ControlError('timeout must be a whole number of seconds');
  return ms;
}

function checkJitter(text: string): number {
  const ms = parseDurationMs(text);
  if (ms === null || ms < 1000 || ms > CONTROL_LIMITS.maxJitterMs || ms % 1000 !== 0) {
    throw new ControlError('jitter must be a whole number of seconds from 1s to 1h, such as 30s');
  }
  return ms;
}

function checkOverlap(value: string): OverlapPolicy {
  if (!(OVERLAP_POLICIES as readonly string[]).includes(value)) {
    throw new ControlError(`overlap must be one of ${OVERLAP_POLICIES.join(', ')}`);
  }
  return value as OverlapPolicy;
}

function checkRetry(input: RetryInput): RetryPolicy {
  const maxAttempts = checkPositive(
    'retry.max_attempts',
    input.max_attempts,
    CONTROL_LIMITS.maxRetryAttempts,
  );
  const backoffMs = typeof input.backoff === 'string' ? parseDurationMs(input.backoff) : null;
  if (
    backoffMs === null ||
    backoffMs < CONTROL_LIMITS.minRetryBackoffMs ||
    backoffMs > CONTROL_LIMITS.maxRetryBackoffMs ||
    backoffMs % 1000 !== 0
  ) {
    throw new ControlError(
      'retry.backoff must be a whole number of seconds from 1s to 1h, such as 30s',
    );
  }
  return { maxAttempts, backoffMs, afterSideEffects: input.after_side_effects ?? false };
}

/** The stored retry policy of a job row, or null. */
export function retryOf(row: JobRow | undefined): RetryPolicy | null {
  if (!row || row.retry_max_attempts === null || row.retry_backoff_ms === null) return null;
  return {
    maxAttempts: row.retry_max_attempts,
    backoffMs: row.retry_backoff_ms,
    afterSideEffects: row.retry_after_side_effects,
  };
}

function checkEndsAt(text: string): Date {
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) {
    throw new ControlError('ends_at must be an RFC 3339 time such as 2026-12-31T23:59:00Z');
  }
  return date;
}

function checkPositive(name: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new ControlError(`${name} must be a whole number from 1 to ${max}`);
  }
  return value;
}

/** Refuses a model outside the allow-list (LLM_MODELS, or the model server's list). */
export async function checkModel(
  model: string | null | undefined,
  settings: ControlSettings,
): Promise<void> {
  if (model === undefined || model === null) return;
  const allowed = await settings.listModels();
  if (!allowed.includes(model)) {
    throw new ControlError(
      `model ${JSON.stringify(model.slice(0, 200))} is not offered here; choose one of: ${allowed.join(', ') || '(none listed)'}`,
      422,
      'model_not_allowed',
    );
  }
}

/**
 * The stored controls after a create (current undefined) or an update. Pausing (enabled false)
 * stamps paused_at and paused_by "user" and keeps the reason; resuming clears all three and the
 * limit that stopped the job. The model is checked separately (checkModel: it may ask the server).
 */
export function prepareControls(
  input: JobControlsInput,
  enabled: boolean,
  current: JobRow | undefined,
  now: Date,
  settings: ControlSettings,
): ControlFields {
  const pick = <K extends keyof JobControlsInput>(key: K) =>
    Object.prototype.hasOwnProperty.call(input, key) && input[key] !== undefined;
  const reason = pick('paused_reason') ? (input.paused_reason ?? null) : undefined;
  if (reason !== undefined && reason !== null) {
    if (enabled) throw new ControlError('paused_reason goes with enabled: false');
    if (reason.length > CONTROL_LIMITS.pausedReasonChars || reason.includes('\u0000')) {
      throw new ControlError(
        `paused_reason must be at most ${CONTROL_LIMITS.pausedReasonChars} characters, without NUL`,
      );
    }
  }
  const fields: ControlFields = {
    labels: pick('labels') ? checkLabels(input.labels ?? {}) : (current?.labels ?? {}),
    pauseAfterFailures: pick('pause_after_failures')
      ? nullable(input.pause_after_failures, (n) =>
          checkPositive('pause_after_failures', n, CONTROL_LIMITS.pauseAfterFailuresMax),
        )
      : (current?.pause_after_failures ?? null),
    endsAt: pick('ends_at') ? nullable(input.ends_at, checkEndsAt) : (current?.ends_at ?? null),
    maxRuns: pick('max_runs')
      ? nullable(input.max_runs, (n) => checkPositive('max_runs', n, CONTROL_LIMITS.maxRunsMax))
      : current?.max_runs == null
        ? null
        : Number(current.max_runs),
    timeoutMs: pick('timeout')
      ? nullable(input.timeout, (text) => checkTimeout(text, settings))
      : (current?.timeout_ms ?? null),
    model: pick('model') ? (input.model ?? null) : (current?.model ?? null),
    jitterMs: pick('jitter') ? nullable(input.jitter, checkJitter) : (current?.jitter_ms ?? null),
    overlap: pick('overlap')
      ? (nullable(input.overlap, checkOverlap) ?? 'skip')
      : (current?.overlap ?? 'skip'),
    retry: pick('retry') ? nullable(input.retry, checkRetry) : retryOf(current),
    pausedReason: null,
    pausedAt: null,
    pausedBy: null,
    stoppedBy: null,
    consecutiveFailures: current?.consecutive_failures ?? 0,
  };
  const wasEnabled = current?.enabled ?? true;
  if (enabled) {
    const runCount = Number(current?.run_count ?? 0);
    if (fields.maxRuns !== null && runCount >= fields.maxRuns) {
      throw new ControlError(
        `the job has run ${runCount} times and max_runs is ${fields.maxRuns}: raise or clear max_runs to enable it`,
        422,
        'limit_reached',
      );
    }
    if (!wasEnabled) fields.consecutiveFailures = 0;
  } else if (wasEnabled || !current) {
    Object.assign(fields, { pausedAt: now, pausedBy: 'user', pausedReason: reason ?? null });
  } else {
    // Still paused: who paused it and when stay; the reason may be reworded.
    fields.pausedAt = current.paused_at ?? now;
    fields.pausedBy = current.paused_by ?? 'user';
    fields.stoppedBy = current.stopped_by;
    fields.pausedReason = reason === undefined ? current.paused_reason : reason;
  }
  return fields;
}

function nullable<T, U>(value: T | null | undefined, check: (value: T) => U): U | null {
  return value === null || value === undefined ? null : check(value);
}

/** `label` filters of a list: "key=value" (that pair) or "key" (has the key); all must hold. */
export function parseLabelFilters(filters: readonly string[]): {
  pairs: Record<string, string>[];
  keys: string[];
} {
  if (filters.length > CONTROL_LIMITS.labels) {
    throw new ControlError(`at most ${CONTROL_LIMITS.labels} label filters`);
  }
  const pairs: Record<string, string>[] = [];
  const keys: string[] = [];
  for (const filter of filters) {
    const at = filter.indexOf('=');
    const key = at === -1 ? filter : filter.slice(0, at);
    checkLabelKey(key);
    if (at === -1) keys.push(key);
    else pairs.push({ [key]: filter.slice(at + 1) });
  }
  return { pairs, keys };
}
