// POST /v1/runs/{id}/retry: a failed run's occurrence runs again as a new attempt of the same row
// (the occurrence stays one entry for UNIQUE (cron_job_id, scheduled_at); its origin stays). The
// row goes back to `queued`, due at once, and any pod takes it (scheduler_take_queued); the
// failed attempt's outcome joins previous_attempts. A retry by hand is a manual run: it spends
// the tenant's manual-run budget, and it counts against the tenant's bound on queued runs.
import { withTenant, type Pool } from '../db/pool.js';
import { RUN_LIST_COLUMNS, type RunRow } from '../db/run-history.js';
import { CommandError, isUuid } from './commands.js';
import { DEFAULT_QUEUED_RUN_LIMITS, lockTenantQueue, requireQueueRoom } from './queued-limits.js';
import { toRunView, type RunView } from './view.js';

/** The attempts column's bound (migration 250). */
const MAX_ATTEMPT = 100;

export interface RetryDeps {
  pool: Pool;
  /** The tenant's manual-run budget: null when allowed, else seconds until the next one. */
  spendManualRun?: ((tenantId: string) => Promise<number | null>) | undefined;
  /** Queued runs a tenant may have at once (MAX_QUEUED_RUNS_PER_TENANT). */
  limits?: { maxQueuedRuns: number } | undefined;
}

export async function retryRun(deps: RetryDeps, tenantId: string, runId: string): Promise<RunView> {
  return withTenant(deps.pool, tenantId, async (client) => {
    const { rows } = isUuid(runId)
      ? await client.query<{ status: string; attempt: number; enabled: boolean }>(
          `SELECT r.status, r.attempt, j.enabled FROM cron_job_runs r
             JOIN cron_jobs j ON j.id = r.cron_job_id
            WHERE r.id = $1 FOR UPDATE OF r`,
          [runId],
        )
      : { rows: [] };
    const run = rows[0];
    if (!run) throw new CommandError('not_found', `no run with id ${runId}`, 404);
    if (run.status !== 'success' && run.status !== 'failed') {
      throw new CommandError(
        'run_not_finished',
        `the run is ${run.status}: only a finished run can be retried`,
        409,
      );
    }
    if (run.status === 'success') {
      throw new CommandError(
        'run_succeeded',
        'the run succeeded: only a failed run is retried',
        409,
      );
    }
    if (!run.enabled) {
      throw new CommandError('job_disabled', 'the job is paused; resume it to retry its runs', 409);
    }
    if (run.attempt >= MAX_ATTEMPT) {
      throw new CommandError('too_many_attempts', `the run has had ${MAX_ATTEMPT} attempts`, 409);
    }
    await lockTenantQueue(client, tenantId);
    await requireQueueRoom(
      client,
      deps.limits?.maxQueuedRuns ?? DEFAULT_QUEUED_RUN_LIMITS.maxQueuedRuns,
    );
    const waitSeconds = (await deps.spendManualRun?.(tenantId)) ?? null;
    if (waitSeconds !== null) {
      throw new CommandError(
        'manual_run_budget',
        `this tenant has used its manual runs for this minute; retry in ${waitSeconds}s`,
        429,
        waitSeconds,
      );
    }
    const updated = await client.query<RunRow>(
      `UPDATE cron_job_runs
          SET previous_attempts = previous_attempts || jsonb_build_array(jsonb_build_object(
                'attempt', attempt, 'status', status, 'error_kind', error_kind, 'error', error,
                'started_at', started_at, 'finished_at', finished_at, 'duration_ms', duration_ms,
                'pod_id', pod_id, 'model_requests', attempts)),
              status = 'queued', attempt = attempt + 1, not_before = now(), pod_id = NULL,
              finished_at = NULL, duration_ms = NULL, error = NULL, error_kind = NULL,
              result = NULL, result_bytes = NULL, result_truncated = false
        WHERE id = $1 AND status = 'failed'
        RETURNING ${RUN_LIST_COLUMNS}`,
      [runId],
    );
    const row = updated.rows[0];
    if (!row) throw new CommandError('run_not_finished', 'the run changed; try again', 409);
    return toRunView(row);
  });
}
