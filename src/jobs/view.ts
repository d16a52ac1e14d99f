import type { ErrorKind, RunStatus } from '../domain/vocabulary.js';
import type { RunOrigin } from '../domain/run.js';
import { SHOWN_FIELDS, type JobRow, type JobView } from './field-lists.js';
import type { RunRow } from '../db/run-history.js';
import { measureAttemptTimings } from './run-timings.js';

export type { JobView };

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
  /** The requests the current attempt sent to the model (the number `attempts` holds). */
  model_requests: number;
  /** How late the first attempt was claimed; null while it waits in the queue. */
  start_lag_ms: number | null;
  /** The time spent between attempts (the retry back-off), apart from start_lag_ms. */
  retry_wait_ms: number;
  prompt_tokens: number | null;
  cached_tokens: number | null;
  completion_tokens: number | null;
  cost_micros: number | null;
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** The job as the API shows it: each field of the table, shown from its columns. */
export function toJobView(row: JobRow, now: Date): JobView {
  return Object.fromEntries(SHOWN_FIELDS.map(({ key, show }) => [key, show(row, now)])) as JobView;
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
    model_requests: row.attempts,
    ...lagOf(row),
    prompt_tokens: row.prompt_tokens,
    cached_tokens: row.cached_tokens,
    completion_tokens: row.completion_tokens,
    cost_micros: row.cost_micros === null ? null : Number(row.cost_micros),
  };
}

function lagOf(row: RunRow): { start_lag_ms: number | null; retry_wait_ms: number } {
  const timings = measureAttemptTimings({
    scheduledAt: row.scheduled_at,
    startedAt: row.started_at,
    status: row.status,
    previousSpans: row.previous_spans,
  });
  return { start_lag_ms: timings.startLagMs, retry_wait_ms: timings.retryWaitMs };
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
