import { RUN_LIST_COLUMNS, type RunRow } from './run-history.js';
import type { PoolClient } from './pool.js';

// The run detail read (inside withTenant; RLS limits it to the tenant).

export interface RunDetailRow extends RunRow {
  /** The whole answer when inline, else its short form (see result_object_key). */
  full_result: string | null;
  result_object_key: string | null;
  result_truncated: boolean;
  model_called_at: Date | null;
  /** The parsed answer of a job with an output schema. */
  output: unknown;
  detail: {
    prompt_sent?: { role: string; content: string }[] | null;
    model?: string | null;
    usage?: { prompt_tokens: number; completion_tokens: number } | null;
    attempt_log?: {
      started_at: string;
      duration_ms: number | null;
      outcome: string | null;
      model?: string | null;
    }[];
    calls?: {
      model: string;
      prompt_tokens: number;
      cached_tokens: number;
      completion_tokens: number;
      cost_micros: number | null;
    }[];
  } | null;
  job_name: string;
  /** The attempts the job's retry policy allows now (1 without one); null once the job is gone. */
  max_attempts: number | null;
  previous_attempts: PreviousAttempt[];
}

/** An earlier attempt of the occurrence, as migration 250's trigger or a retry by hand kept it. */
export interface PreviousAttempt {
  attempt: number;
  status: string;
  error_kind: string | null;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  pod_id: string | null;
  model_requests: number;
}

/** One run of the tenant by id, with what the detail shows; null when there is none. */
export async function selectRunDetail(
  client: PoolClient,
  runId: string,
): Promise<RunDetailRow | null> {
  const { rows } = await client.query<RunDetailRow>(
    `SELECT ${RUN_LIST_COLUMNS},
            result AS full_result, result_object_key, result_truncated, model_called_at, detail, output,
            previous_attempts,
            (SELECT j.name FROM cron_jobs j WHERE j.id = cron_job_runs.cron_job_id) AS job_name,
            (SELECT coalesce(j.retry_max_attempts, 1) FROM cron_jobs j
              WHERE j.id = cron_job_runs.cron_job_id AND j.deleted_at IS NULL) AS max_attempts
       FROM cron_job_runs
      WHERE id = $1`,
    [runId],
  );
  return rows[0] ?? null;
}
