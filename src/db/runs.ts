import type { ClaimedRun, RunOutcome, RunningRun } from '../scheduler/ports.js';
import type { Pool } from './pool.js';

// The scheduler's statements on cron_job_runs. Each goes through a SECURITY DEFINER function
// (migration 104/106), because the scheduler works across tenants.

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

export interface ClaimRequest {
  jobId: string;
  scheduledAt: Date;
}

interface ClaimedRow {
  cron_job_id: string;
  scheduled_at: Date;
  run_id: string;
  name: string;
  prompt: string;
}

/** Claims many occurrences in one statement; returns each one's run, name and prompt, or null. */
export async function claimRuns(
  pool: Pool,
  claims: readonly ClaimRequest[],
  podId: string,
): Promise<(ClaimedRun | null)[]> {
  const { rows } = await pool.query<ClaimedRow>(
    'SELECT cron_job_id, scheduled_at, run_id, name, prompt FROM scheduler_claim_runs($1, $2, $3)',
    [claims.map((c) => c.jobId), claims.map((c) => c.scheduledAt), podId],
  );
  const claimed = new Map(
    rows.map((row) => [
      `${row.cron_job_id}|${row.scheduled_at.getTime()}`,
      { runId: row.run_id, name: row.name, prompt: row.prompt },
    ]),
  );
  // The same occurrence asked twice in one batch was inserted once: only the first asker gets it.
  return claims.map((c) => {
    const key = `${c.jobId}|${c.scheduledAt.getTime()}`;
    const run = claimed.get(key) ?? null;
    claimed.delete(key);
    return run;
  });
}

export interface FinishRequest {
  runId: string;
  outcome: RunOutcome;
  nextRunAt: Date | null;
}

/** Records many outcomes in one statement; true for each run that was still running. */
export async function finishRuns(pool: Pool, items: readonly FinishRequest[]): Promise<boolean[]> {
  const { rows } = await pool.query<{ id: string }>(
    'SELECT scheduler_finish_runs($1, $2, $3, $4, $5) AS id',
    [
      items.map((i) => i.runId),
      items.map((i) => i.outcome.success),
      items.map((i) => i.outcome.result),
      items.map((i) => i.outcome.error),
      items.map((i) => i.nextRunAt),
    ],
  );
  const finished = new Set(rows.map((row) => row.id));
  return items.map((i) => finished.has(i.runId));
}
