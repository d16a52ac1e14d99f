// The scheduler's statements on queued runs (retries, runs retried by hand, backfills): taking
// due ones and handing claimed ones back. Both go through SECURITY DEFINER functions
// (migrations/functions/), because the scheduler works across tenants.
import type { AdoptedRun } from '../scheduler/ports.js';
import type { Pool } from './pool.js';

export async function takeQueuedRuns(
  pool: Pool,
  podId: string,
  limit: number,
): Promise<AdoptedRun[]> {
  const { rows } = await pool.query<{
    run_id: string;
    cron_job_id: string;
    tenant_id: string;
    scheduled_at: Date;
    name: string;
    prompt: string;
    timeout_ms: number | null;
    model: string | null;
  }>(
    `SELECT run_id, cron_job_id, tenant_id, scheduled_at, name, prompt, timeout_ms, model
       FROM scheduler_take_queued($1, $2)`,
    [podId, limit],
  );
  return rows.map((row) => ({
    runId: row.run_id,
    jobId: row.cron_job_id,
    tenantId: row.tenant_id,
    scheduledAt: row.scheduled_at,
    name: row.name,
    prompt: row.prompt,
    timeoutMs: row.timeout_ms,
    model: row.model,
  }));
}

export async function requeueRuns(
  pool: Pool,
  runIds: readonly string[],
  podId: string,
  delayMs: number,
): Promise<string[]> {
  if (runIds.length === 0) return [];
  const { rows } = await pool.query<{ id: string }>('SELECT scheduler_requeue($1, $2, $3) AS id', [
    runIds,
    podId,
    Math.round(delayMs),
  ]);
  return rows.map((row) => row.id);
}
