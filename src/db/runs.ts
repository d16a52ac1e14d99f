import type { RunOutcome, RunningRun } from '../scheduler/ports.js';
import type { Pool } from './pool.js';

// The scheduler's statements on cron_job_runs. Each goes through a SECURITY DEFINER function
// (migration 104/106), because the scheduler works across tenants.

export async function claimRun(
  pool: Pool,
  jobId: string,
  scheduledAt: Date,
  podId: string,
): Promise<string | null> {
  const { rows } = await pool.query<{ id: string | null }>(
    'SELECT scheduler_claim_run($1, $2, $3) AS id',
    [jobId, scheduledAt, podId],
  );
  return rows[0]?.id ?? null;
}

export async function finishRun(
  pool: Pool,
  runId: string,
  outcome: RunOutcome,
  nextRunAt: Date | null,
): Promise<boolean> {
  const { rows } = await pool.query<{ finished: boolean }>(
    'SELECT scheduler_finish_run($1, $2, $3, $4, $5) AS finished',
    [runId, outcome.success, outcome.result, outcome.error, nextRunAt],
  );
  return rows[0]?.finished === true;
}

export async function failRuns(
  pool: Pool,
  runIds: readonly string[],
  reason: string,
): Promise<{ runId: string; jobId: string }[]> {
  const { rows } = await pool.query<{ run_id: string; cron_job_id: string }>(
    'SELECT run_id, cron_job_id FROM scheduler_fail_named_runs($1, $2)',
    [runIds, reason],
  );
  return rows.map((row) => ({ runId: row.run_id, jobId: row.cron_job_id }));
}

export async function listRunningRuns(pool: Pool): Promise<RunningRun[]> {
  const { rows } = await pool.query<{ run_id: string; cron_job_id: string; pod_id: string }>(
    'SELECT run_id, cron_job_id, pod_id FROM scheduler_running_runs()',
  );
  return rows.map((row) => ({ runId: row.run_id, jobId: row.cron_job_id, podId: row.pod_id }));
}

export async function cleanupStaleRuns(pool: Pool, lockTtlMs: number): Promise<number> {
  const { rows } = await pool.query<{ count: number }>(
    'SELECT scheduler_cleanup_stale_runs($1) AS count',
    [Math.ceil(lockTtlMs / 1000)],
  );
  return rows[0]?.count ?? 0;
}
