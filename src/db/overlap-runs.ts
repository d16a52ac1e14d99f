import type { WaitingClaimAnswer } from '../scheduler/ports.js';
import type { Pool } from './pool.js';

// The scheduler's statements for the overlap policies (docs/scheduler.md, "Overlap policies"),
// each through its SECURITY DEFINER function (the scheduler works across tenants).

/** scheduler_claim_waiting: claims an occurrence that waits for the job's running one. */
export async function claimWaitingRun(
  pool: Pool,
  jobId: string,
  scheduledAt: Date,
  nextRunAt: Date | null,
  podId: string,
): Promise<WaitingClaimAnswer> {
  const { rows } = await pool.query<{
    run_id: string | null;
    name: string | null;
    prompt: string | null;
    refused: 'overlap' | 'capped' | null;
    timeout_ms: number | null;
    model: string | null;
  }>(
    'SELECT run_id, name, prompt, refused, timeout_ms, model FROM scheduler_claim_waiting($1, $2, $3, $4)',
    [jobId, scheduledAt, nextRunAt, podId],
  );
  const row = rows[0];
  if (!row) return { kind: 'taken' };
  if (row.refused !== null) return { kind: row.refused };
  return {
    kind: 'claimed',
    run: {
      runId: row.run_id as string,
      name: row.name ?? '',
      prompt: row.prompt ?? '',
      timeoutMs: row.timeout_ms,
      model: row.model,
    },
  };
}

/** scheduler_cancel_older: asks the pods running earlier occurrences of the job to stop them. */
export async function cancelOlderRuns(
  pool: Pool,
  jobId: string,
  scheduledAt: Date,
): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    'SELECT scheduler_cancel_older AS id FROM scheduler_cancel_older($1, $2)',
    [jobId, scheduledAt],
  );
  return rows.map((row) => row.id);
}

/** scheduler_start_waiting: the waiting run starts now; false when it is no longer this pod's. */
export async function startWaitingRun(
  pool: Pool,
  runId: string,
  scheduledAt: Date,
  podId: string,
): Promise<boolean> {
  const { rows } = await pool.query<{ started: boolean }>(
    'SELECT scheduler_start_waiting($1, $2, $3) AS started',
    [runId, scheduledAt, podId],
  );
  return rows[0]?.started === true;
}
