import { formatDurationMs } from '../duration.js';
import type { RunStatus } from '../domain/vocabulary.js';
import type { ErrorKind, OverlapPolicy } from '../domain/vocabulary.js';
import type { RunOrigin } from '../domain/run.js';
import type { PausedBy, StoppedBy } from '../db/jobs.js';
import type { JobRow } from '../db/jobs.js';
import type { RunRow } from '../db/run-history.js';

/** A job as the API and the agent tool show it. */
export interface JobView {
  id: string;
  name: string;
  schedule: string;
  timezone: string;
  prompt: string;
  enabled: boolean;
  next_run_at: string | null;
  last_run_at: string | null;
  last_run_success: boolean | null;
  last_run_error: string | null;
  last_run_error_kind: ErrorKind | null;
  run_count: number;
  created_at: string;
  updated_at: string;
  labels: Record<string, string>;
  paused_reason: string | null;
  paused_at: string | null;
  paused_by: PausedBy | null;
  pause_after_failures: number | null;
  consecutive_failures: number;
  ends_at: string | null;
  max_runs: number | null;
  /** The limit that stopped the job: max_runs, pause_after_failures, or ends_at once passed. */
  stopped_by: StoppedBy | 'ends_at' | null;
  timeout: string | null;
  model: string | null;
  /** Each occurrence starts up to this long after its nominal time (scheduled_at stays nominal). */
  jitter: string | null;
  /** What an occurrence does while the job's previous run is in flight. */
  overlap: OverlapPolicy;
  /** Failed attempts of a safe kind are run again (null: never). */
  retry: { max_attempts: number; backoff: string; after_side_effects: boolean } | null;
  skills: string[];
  context: { previous_result: boolean };
}

export interface RunView {
  id: string;
  cron_job_id: string;
  scheduled_at: string;
  started_at: string;
  finished_at: string | null;
  status: RunStatus;
  result: string | null;
  error: string | null;
  error_kind: ErrorKind | null;
  attempts: number;
  /** Which attempt of the occurrence (the first is 1). */
  attempt: number;
  duration_ms: number | null;
  pod_id: string | null;
  not_before: string | null;
  created_at: string;
  origin: RunOrigin;
  result_bytes: number | null;
  result_complete: boolean;
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export function toJobView(row: JobRow, now: Date): JobView {
  return {
    id: row.id,
    name: row.name,
    schedule: row.schedule,
    timezone: row.timezone,
    prompt: row.prompt,
    enabled: row.enabled,
    next_run_at: iso(row.next_run_at),
    last_run_at: iso(row.last_run_at),
    last_run_success: row.last_run_success,
    last_run_error: row.last_run_error,
    last_run_error_kind: row.last_run_error_kind,
    run_count: Number(row.run_count),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    labels: row.labels,
    paused_reason: row.paused_reason,
    paused_at: iso(row.paused_at),
    paused_by: row.paused_by,
    pause_after_failures: row.pause_after_failures,
    consecutive_failures: row.consecutive_failures,
    ends_at: iso(row.ends_at),
    max_runs: row.max_runs === null ? null : Number(row.max_runs),
    stopped_by: row.stopped_by ?? (endedBefore(row, now) ? 'ends_at' : null),
    timeout: row.timeout_ms === null ? null : formatDurationMs(row.timeout_ms),
    model: row.model,
    jitter: row.jitter_ms === null ? null : formatDurationMs(row.jitter_ms),
    overlap: row.overlap ?? 'skip',
    retry:
      row.retry_max_attempts === null || row.retry_backoff_ms === null
        ? null
        : {
            max_attempts: row.retry_max_attempts,
            backoff: formatDurationMs(row.retry_backoff_ms),
            after_side_effects: row.retry_after_side_effects,
          },
    skills: row.skills,
    context: { previous_result: row.context_previous_result },
  };
}

/** An enabled job whose ends_at has passed (no occurrence is left). */
function endedBefore(row: JobRow, now: Date): boolean {
  return row.ends_at !== null && row.ends_at.getTime() < now.getTime();
}

export function toRunView(row: RunRow): RunView {
  return {
    id: row.id,
    cron_job_id: row.cron_job_id,
    scheduled_at: row.scheduled_at.toISOString(),
    started_at: row.started_at.toISOString(),
    finished_at: iso(row.finished_at),
    status: row.status,
    result: row.result,
    error: row.error,
    error_kind: row.error_kind,
    attempts: row.attempts,
    attempt: row.attempt,
    duration_ms: row.duration_ms,
    pod_id: row.pod_id,
    not_before: iso(row.not_before),
    created_at: row.created_at.toISOString(),
    origin: row.origin,
    result_bytes: row.result_bytes,
    result_complete: row.result_complete,
  };
}

/**
 * Opaque page cursor: the exact sort key of the last row of a page, its timestamp as text with
 * microseconds (a Date would round to milliseconds and skip rows within the same millisecond).
 */
export function encodeCursor(at: string, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString('base64url');
}

const CURSOR_AT = /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The cursor's position, or null for anything this API did not hand out. */
export function decodeCursor(cursor: string): { at: string; id: string } | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [at, id] = value as unknown[];
    if (typeof at !== 'string' || typeof id !== 'string') return null;
    if (!CURSOR_AT.test(at) || !UUID.test(id)) return null;
    // A real calendar time (no 24:00 or February 30th), so PostgreSQL accepts it as it is.
    const date = new Date(at);
    if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 19) !== at.slice(0, 19)) {
      return null;
    }
    return { at, id };
  } catch {
    return null;
  }
}
