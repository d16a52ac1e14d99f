// POST /v1/runs/{id}/cancel: asks the pod that holds a run in flight to stop it. The request is
// a NOTIFY sent with the transaction that read the run, so every pod hears it at once; the pod
// running it aborts the run, which is then recorded failed with error_kind "cancelled". The same
// transaction sets the run's cancel_requested_at, which a pod whose listener was down reads when
// it listens again. A queued run (no pod's yet) is recorded so at once.
import { notifyCancel } from '../db/jobs.js';
import { withTenant, type Pool } from '../db/pool.js';
import { CommandError, isUuid } from './commands.js';

export interface CancelAccepted {
  run_id: string;
  cron_job_id: string;
  status: 'cancelling';
}

export async function cancelRun(
  pool: Pool,
  tenantId: string,
  runId: string,
): Promise<CancelAccepted> {
  return withTenant(pool, tenantId, async (client) => {
    const { rows } = isUuid(runId)
      ? await client.query<{ cron_job_id: string; status: string }>(
          'SELECT cron_job_id, status FROM cron_job_runs WHERE id = $1',
          [runId],
        )
      : { rows: [] };
    const run = rows[0];
    if (!run) throw new CommandError('not_found', `no run with id ${runId}`, 404);
    if (run.status === 'queued') {
      // No pod holds a queued run (a retry waiting for its backoff, a backfill): it ends here.
      await client.query(
        `UPDATE cron_job_runs SET status = 'failed', error_kind = 'cancelled',
                error = 'cancelled: stopped by request', finished_at = now(), not_before = NULL
          WHERE id = $1 AND status = 'queued'`,
        [runId],
      );
      return { run_id: runId, cron_job_id: run.cron_job_id, status: 'cancelling' };
    }
    if (run.status !== 'claimed' && run.status !== 'running') {
      throw new CommandError(
        'run_not_active',
        `the run is ${run.status}: only a run in flight can be cancelled`,
        409,
      );
    }
    await notifyCancel(client, run.cron_job_id, runId);
    return { run_id: runId, cron_job_id: run.cron_job_id, status: 'cancelling' };
  });
}
