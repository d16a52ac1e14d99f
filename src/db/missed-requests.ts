// What a pod may have missed while its listener connection was down: "run now" requests no pod
// has run and cancels of its runs in flight (migration 389). Both are read through SECURITY
// DEFINER functions, as the scheduler's reads cross tenants.
import type { Pool } from './pool.js';

const MISSED_TRIGGERS_PAGE = 500;

/** A run-now request: the job and the nominal time of that one-off occurrence. */
export interface MissedTrigger {
  jobId: string;
  scheduledAtMs: number;
}

/** scheduler_missed_triggers, page after page: the run-now requests since `since` not run yet. */
export async function loadMissedTriggers(pool: Pool, since: Date): Promise<MissedTrigger[]> {
  const missed: MissedTrigger[] = [];
  let after = null as { at: Date; id: string } | null;
  for (;;) {
    const { rows }: { rows: { id: string; last_triggered_at: Date }[] } = await pool.query(
      'SELECT id, last_triggered_at FROM scheduler_missed_triggers($1, $2, $3, $4)',
      [since, after?.at ?? null, after?.id ?? null, MISSED_TRIGGERS_PAGE],
    );
    for (const row of rows) {
      missed.push({ jobId: row.id, scheduledAtMs: row.last_triggered_at.getTime() });
    }
    const last = rows.at(-1);
    if (!last || rows.length < MISSED_TRIGGERS_PAGE) return missed;
    after = { at: last.last_triggered_at, id: last.id };
  }
}

/** scheduler_cancels_requested: those of the runs in flight someone asked to stop. */
export async function loadCancelsRequested(
  pool: Pool,
  runIds: readonly string[],
): Promise<{ runId: string; jobId: string }[]> {
  if (runIds.length === 0) return [];
  const { rows } = await pool.query<{ run_id: string; cron_job_id: string }>(
    'SELECT run_id, cron_job_id FROM scheduler_cancels_requested($1::uuid[])',
    [runIds],
  );
  return rows.map((row) => ({ runId: row.run_id, jobId: row.cron_job_id }));
}
