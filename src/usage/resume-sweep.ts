// Jobs the system paused because a period budget ran out (stopped_by 'budget') resume when the
// period turns: every replica asks every minute (migrations/functions/usage_resume_budget_jobs.sql
// takes each job once, SKIP LOCKED); the clock's time is the argument, so tests turn the period.
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import { systemClock, type Clock } from '../services/clock.js';
import { startLoop, type Loop } from '../services/loop.js';
import type { Service } from '../services/service.js';

const BATCH_JOBS = 500;

/** Resumes the budget-paused jobs whose period turned at or before `now`; returns them. */
export async function resumeBudgetJobs(
  pool: Pool,
  now: Date,
): Promise<{ jobId: string; tenantId: string }[]> {
  const resumed: { jobId: string; tenantId: string }[] = [];
  for (;;) {
    const { rows } = await pool.query<{ cron_job_id: string; tenant_id: string }>(
      'SELECT cron_job_id, tenant_id FROM usage_resume_budget_jobs($1, $2)',
      [now, BATCH_JOBS],
    );
    for (const row of rows) resumed.push({ jobId: row.cron_job_id, tenantId: row.tenant_id });
    if (rows.length < BATCH_JOBS) return resumed;
  }
}

export class BudgetResumeSweep implements Service {
  readonly name = 'budget resume sweep';
  private loop: Loop | undefined;

  constructor(
    private readonly deps: { pool: Pool; log: Logger; clock?: Clock; intervalMs?: number },
  ) {}

  start(): void {
    if (this.loop) return;
    const { pool, log } = this.deps;
    const clock = this.deps.clock ?? systemClock;
    const intervalMs = this.deps.intervalMs ?? 60_000;
    this.loop = startLoop({
      name: this.name,
      intervalMs,
      clock,
      log,
      round: async () => {
        const resumed = await resumeBudgetJobs(pool, new Date(clock.now()));
        for (const job of resumed) {
          log.info(
            { job_id: job.jobId, tenant_id: job.tenantId },
            'budget period turned: job resumed',
          );
        }
      },
      backoff: { firstMs: 2 * intervalMs, maxMs: 30 * intervalMs },
      onFailure: (err, failures) =>
        log.warn({ error: String(err), failures }, 'budget resume sweep failed, retrying later'),
    });
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
  }
}
